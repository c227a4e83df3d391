import { stableStringify } from '../stable-json.js';
import type { StructuredSummary, SummaryFact, SummaryToolOutcome } from './structured-summary.js';

/**
 * Merge an older summary into a newer one (a chained compaction round).
 *
 * The newer summary is authoritative for the current state (task, plan), but nothing the
 * older one guaranteed may be lost: every pinned fact carries over verbatim, every tool
 * outcome keeps all its key fields, and lists are unions in first-seen order, so the merge
 * is deterministic and idempotent (merge(a, merge(a, b)) equals merge(a, b)).
 *
 * @param older - The previous round's summary.
 * @param newer - This round's summary.
 * @returns The merged summary.
 */
export function mergeSummaries(older: StructuredSummary, newer: StructuredSummary): StructuredSummary {
  // A pinned fact externalized on either side (ADR-0161) stays externalized: one pointer, not twice.
  const externalized = unionBy(
    [...(older.externalizedFacts ?? []), ...(newer.externalizedFacts ?? [])],
    (fact) => fact.text,
  );
  const outside = new Set(externalized.map((fact) => fact.text));
  const facts = mergeFacts(older.facts, newer.facts).filter((fact) => !outside.has(fact.text));
  // An artifact listed on either side stays listed; one only outside the text stays outside (ADR-0330).
  const artifacts = unionBy(
    [...older.artifacts, ...newer.artifacts],
    (artifact) => artifact.artifactId,
    'last',
  );
  const listed = new Set(artifacts.map((artifact) => artifact.artifactId));
  const outsideArtifacts = unionBy(
    [...(older.externalizedArtifacts ?? []), ...(newer.externalizedArtifacts ?? [])],
    (artifact) => artifact.artifactId,
    'last',
  ).filter((artifact) => !listed.has(artifact.artifactId));
  return {
    schemaVersion: newer.schemaVersion,
    facts,
    decisions: unionBy([...older.decisions, ...newer.decisions], (decision) => decision.decision),
    openItems: unionBy([...older.openItems, ...newer.openItems], (item) => item.description, 'last'),
    artifacts,
    toolOutcomes: mergeToolOutcomes(older.toolOutcomes, newer.toolOutcomes),
    currentTask: newer.currentTask ?? older.currentTask,
    currentPlan: newer.currentPlan ?? older.currentPlan,
    filesRead: unionBy([...older.filesRead, ...newer.filesRead], (path) => path),
    filesModified: unionBy([...older.filesModified, ...newer.filesModified], (path) => path),
    ...(externalized.length > 0 ? { externalizedFacts: externalized } : {}),
    ...(outsideArtifacts.length > 0 ? { externalizedArtifacts: outsideArtifacts } : {}),
  };
}

/** Pinned facts first (older ones first), then the rest; a fact pinned on either side stays pinned. */
function mergeFacts(older: SummaryFact[], newer: SummaryFact[]): SummaryFact[] {
  const byText = new Map<string, SummaryFact>();
  for (const fact of [...older, ...newer]) {
    const existing = byText.get(fact.text);
    if (!existing) byText.set(fact.text, { ...fact });
    else {
      if (fact.pinned && !existing.pinned) existing.pinned = true;
      if (fact.score !== undefined && (existing.score ?? -1) < fact.score) existing.score = fact.score;
    }
  }
  const all = [...byText.values()];
  return [...all.filter((fact) => fact.pinned), ...all.filter((fact) => !fact.pinned)];
}

function toolOutcomeKey(outcome: SummaryToolOutcome): string {
  return outcome.toolCallId ?? `${outcome.toolName}:${stableStringify(outcome.keyFields)}`;
}

/**
 * Same call seen twice (on both sides, or twice on one side): the later outcome wins, but no key
 * field of the earlier one disappears.
 */
function mergeToolOutcomes(older: SummaryToolOutcome[], newer: SummaryToolOutcome[]): SummaryToolOutcome[] {
  const merged = new Map<string, SummaryToolOutcome>();
  for (const outcome of [...older, ...newer]) {
    const key = toolOutcomeKey(outcome);
    const previous = merged.get(key);
    merged.set(
      key,
      previous ? { ...outcome, keyFields: { ...previous.keyFields, ...outcome.keyFields } } : { ...outcome },
    );
  }
  return [...merged.values()];
}

function unionBy<T>(items: T[], keyOf: (item: T) => string, keep: 'first' | 'last' = 'first'): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    if (!byKey.has(key) || keep === 'last') {
      // Re-inserting keeps the first-seen position; only the value is replaced.
      byKey.set(key, item);
    }
  }
  return [...byKey.values()];
}
