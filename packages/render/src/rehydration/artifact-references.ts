import type { CompactionPlan, ThreadMessage } from '@compactor/core';
import type { ToolExchangeIndex } from '../plan/tool-exchanges.js';

/** Characters an artifact id may continue with: a match must not touch one on either side. */
function isIdCharacter(character: string | undefined): boolean {
  if (character === undefined) return false;
  const code = character.charCodeAt(0);
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 45
  );
}

/**
 * Whether `text` names `artifactId` as a whole token: `art_abc` is found in "see artifact:art_abc."
 * but not in `art_abcd` or `xart_abc` (ADR-0008's exact-match rule, which also keeps a model from
 * steering rehydration with look-alike ids).
 *
 * @param text - Where to look.
 * @param artifactId - The id to find.
 * @returns The first position of a whole-token match, or -1 (also for an empty id).
 */
export function findArtifactId(text: string, artifactId: string): number {
  if (artifactId === '') return -1;
  let from = 0;
  for (;;) {
    const at = text.indexOf(artifactId, from);
    if (at === -1) return -1;
    if (!isIdCharacter(text[at - 1]) && !isIdCharacter(text[at + artifactId.length])) return at;
    from = at + 1;
  }
}

/**
 * The artifact ids the plan knows: its externalizations and every artifact its summaries list
 * (chained rounds carry older pointers there). Only these can be rehydrated automatically.
 *
 * @param plan - The thread's plan, or null.
 * @returns The ids, sorted (empty without a plan).
 */
export function knownArtifactIds(plan: CompactionPlan | null): string[] {
  if (!plan) return [];
  const ids = new Set<string>();
  for (const record of plan.externalizations) {
    ids.add(record.artifactId);
    for (const artifact of record.summary.artifacts) ids.add(artifact.artifactId);
  }
  for (const record of plan.summarizations) {
    for (const artifact of record.summary.artifacts) ids.add(artifact.artifactId);
  }
  return [...ids].sort();
}

export interface ArtifactReference {
  artifactId: string;
  trigger: 'message' | 'tool_call';
}

/**
 * Artifact ids named by the agent's latest message (its text) or by a pending tool call (any string
 * in its input), in order of appearance: the message first, then the pending calls in log order.
 */
export function findArtifactReferences(
  messages: readonly ThreadMessage[],
  exchanges: ToolExchangeIndex,
  agent: string | undefined,
  knownIds: readonly string[],
): ArtifactReference[] {
  if (knownIds.length === 0) return [];
  const found: ArtifactReference[] = [];
  const seen = new Set<string>();
  const scan = (text: string, trigger: ArtifactReference['trigger']) => {
    const hits: { artifactId: string; at: number }[] = [];
    for (const artifactId of knownIds) {
      if (seen.has(artifactId)) continue;
      const at = findArtifactId(text, artifactId);
      if (at !== -1) hits.push({ artifactId, at });
    }
    hits.sort((left, right) => left.at - right.at || (left.artifactId < right.artifactId ? -1 : 1));
    for (const hit of hits) {
      seen.add(hit.artifactId);
      found.push({ artifactId: hit.artifactId, trigger });
    }
  };
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || message.subagentId !== agent) continue;
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
    scan(text, 'message');
    break;
  }
  for (const exchange of exchanges.exchanges) {
    if (exchange.resultMessageIndex !== undefined) continue;
    const message = messages[exchange.callMessageIndex];
    if (!message || message.subagentId !== agent) continue;
    const call = message.content.find((part) => part.type === 'tool_call' && part.id === exchange.callId);
    if (call?.type !== 'tool_call') continue;
    scan(stringsIn(call.input).join('\n'), 'tool_call');
  }
  return found;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}
