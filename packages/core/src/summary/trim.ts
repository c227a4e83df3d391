import { renderSummary } from './render.js';
import type { StructuredSummary } from './structured-summary.js';

/** Keep `count` of `items`, evenly spread, always the first and the last: coverage over recency. */
function thin<T>(items: readonly T[], count: number): T[] {
  if (count >= items.length) return [...items];
  if (count <= 0) return [];
  if (count === 1) return [items[0]!];
  const kept: T[] = [];
  for (let slot = 0; slot < count; slot += 1)
    kept.push(items[Math.round((slot * (items.length - 1)) / (count - 1))]!);
  return kept;
}

/**
 * Bring a summary within `maxTokens` without losing a guarantee: pinned facts, tool outcomes with
 * key fields, artifacts, files modified, the current task and plan are never removed. What can go
 * is thinned evenly across the conversation (so early turns stay represented, unlike a window):
 * unpinned facts first, then plain tool outcomes, decisions, files read and low-priority items.
 * Deterministic.
 *
 * @param summary - The summary.
 * @param maxTokens - The budget for its rendered text.
 * @param countText - Counts rendered text.
 * @returns The summary unchanged when it fits, else thinned (possibly still over, if the guaranteed
 *   parts alone exceed the budget).
 */
export function trimSummaryToBudget(
  summary: StructuredSummary,
  maxTokens: number,
  countText: (text: string) => number,
): StructuredSummary {
  if (countText(renderSummary(summary)) <= maxTokens) return summary;
  const pinnedFacts = summary.facts.filter((fact) => fact.pinned);
  const looseFacts = summary.facts.filter((fact) => !fact.pinned);
  const anchored = summary.toolOutcomes.filter((outcome) => Object.keys(outcome.keyFields).length > 0);
  const plain = summary.toolOutcomes.filter((outcome) => Object.keys(outcome.keyFields).length === 0);
  const build = (share: number): StructuredSummary => ({
    ...summary,
    facts: [...pinnedFacts, ...thin(looseFacts, Math.floor(looseFacts.length * share))],
    toolOutcomes: [...anchored, ...thin(plain, Math.floor(plain.length * share * share))],
    decisions: thin(summary.decisions, Math.floor(summary.decisions.length * Math.sqrt(share))),
    filesRead: thin(summary.filesRead, Math.floor(summary.filesRead.length * Math.sqrt(share))),
    openItems: summary.openItems.filter((item) => item.priority !== 'low' || share >= 0.5),
  });
  // The largest share that fits, by bisection over [0, 1].
  let low = 0;
  let high = 1;
  for (let step = 0; step < 12; step += 1) {
    const middle = (low + high) / 2;
    if (countText(renderSummary(build(middle))) <= maxTokens) low = middle;
    else high = middle;
  }
  return build(low);
}
