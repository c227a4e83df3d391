import type { Thread } from '@compactor/core';
import type { QaProbe } from '@compactor/importers';
import type { ProbeRetention, RetentionCount } from './eval-types.js';
import { type CodingProbe, messageText } from './probes.js';
import { containsNormalized } from './request-text.js';

/** What a system's request shows of the thread, for probe counting. */
export interface RequestView {
  /** The request's text, normalized (`requestText`). */
  text: string;
  /** Whether the request still carries the message verbatim (not compacted). */
  keptVerbatim: (messageId: string) => boolean;
  /** Artifact ids and the message ids each artifact holds (our externalizations; none for baselines). */
  artifacts: ReadonlyMap<string, ReadonlySet<string>>;
}

const emptyCount = (): RetentionCount => ({ retained: 0, compacted: 0 });

/**
 * LoCoMo: each probe with at least one compacted evidence message counts; it is retained when the
 * request holds its answer, or every compacted evidence turn verbatim or behind an artifact pointer
 * (the artifact id in the request and the turn in that artifact). "Early": every evidence turn lies
 * in the first half of the conversation's messages.
 */
export function qaRetention(thread: Thread, probes: readonly QaProbe[], view: RequestView): ProbeRetention {
  const byId = new Map(thread.messages.map((message) => [message.id, message]));
  const half = thread.messages.length / 2;
  const overall = emptyCount();
  const early = emptyCount();
  for (const probe of probes) {
    const evidence = probe.evidenceMessageIds.flatMap((id) => {
      const message = byId.get(id);
      return message ? [message] : [];
    });
    const compacted = evidence.filter((message) => !view.keptVerbatim(message.id));
    if (compacted.length === 0) continue;
    const answerPresent = probe.answer !== undefined && containsNormalized(view.text, probe.answer);
    const evidencePresent = compacted.every(
      (message) => containsNormalized(view.text, messageText(message)) || behindArtifact(message.id, view),
    );
    const retained = answerPresent || evidencePresent;
    overall.compacted += 1;
    if (retained) overall.retained += 1;
    if (evidence.every((message) => message.index < half)) {
      early.compacted += 1;
      if (retained) early.retained += 1;
    }
  }
  return { overall, early };
}

/**
 * Coding sessions: each probe whose source message was compacted counts; it is retained when its
 * text (constraint sentence, path, command or error line) appears in the request.
 */
export function codingRetention(probes: readonly CodingProbe[], view: RequestView): ProbeRetention {
  const overall = emptyCount();
  for (const probe of probes) {
    if (view.keptVerbatim(probe.messageId)) continue;
    overall.compacted += 1;
    if (containsNormalized(view.text, probe.text)) overall.retained += 1;
  }
  return { overall, early: { ...overall } };
}

function behindArtifact(messageId: string, view: RequestView): boolean {
  for (const [artifactId, messageIds] of view.artifacts) {
    if (messageIds.has(messageId) && containsNormalized(view.text, artifactId)) return true;
  }
  return false;
}

export function addCounts(left: RetentionCount, right: RetentionCount): RetentionCount {
  return { retained: left.retained + right.retained, compacted: left.compacted + right.compacted };
}

/** retained / compacted, or null when nothing was compacted. */
export function share(count: RetentionCount): number | null {
  return count.compacted === 0 ? null : count.retained / count.compacted;
}
