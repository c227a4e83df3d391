import { renderSummary } from './render.js';
import type { StructuredSummary, SummaryFact } from './structured-summary.js';

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
 * Keep `count` unpinned facts: the highest-scored of those with a score (ties: the earlier one),
 * and of those without one an even spread; in their original order either way (ADR-0160).
 */
function keepFacts(facts: readonly SummaryFact[], share: number): SummaryFact[] {
  const scored = facts.filter((fact) => fact.score !== undefined);
  const plain = facts.filter((fact) => fact.score === undefined);
  const keepScored = Math.floor(scored.length * share);
  const chosen = new Set(
    scored
      .map((fact, index) => ({ fact, index }))
      .sort((a, b) => b.fact.score! - a.fact.score! || a.index - b.index)
      .slice(0, keepScored)
      .map((entry) => entry.fact),
  );
  const thinned = new Set(thin(plain, Math.floor(plain.length * share)));
  return facts.filter((fact) => chosen.has(fact) || thinned.has(fact));
}

/** Clip a line to about `share` of its length (never below 80 characters), marking the cut. */
function clipTo(text: string, share: number): string {
  const keep = Math.max(80, Math.floor(text.length * share));
  return text.length <= keep ? text : `${text.slice(0, keep - 1)}…`;
}

/** The largest share in [0, 1] whose build fits, by bisection (builds are monotone in the share). */
function largestFitting(
  build: (share: number) => StructuredSummary,
  fits: (summary: StructuredSummary) => boolean,
): StructuredSummary {
  let low = 0;
  let high = 1;
  for (let step = 0; step < 12; step += 1) {
    const middle = (low + high) / 2;
    if (fits(build(middle))) low = middle;
    else high = middle;
  }
  return build(low);
}

/**
 * Bring a summary within `maxTokens`; a summary is never dropped whole and no pinned fact is lost
 * (ADR-0161). Four stages, each only when the one before cannot fit:
 * 1. the loose parts: unpinned facts (the highest-scored first, unscored ones thinned evenly so
 *    early turns stay represented, unlike a window), plain tool outcomes, decisions, files read and
 *    low-priority items;
 * 2. successful tool outcomes with key fields (a command that ran, a call that worked: what happened,
 *    not what the work is left in), thinned evenly (ADR-0400);
 * 3. when the rest alone does not fit: every tool outcome with key fields, files modified, artifacts,
 *    open items and the current plan are thinned evenly, and the current task is clipped;
 * 4. the oldest pinned facts move to `externalizedFacts`, rendered as one pointer line, as few as
 *    make it fit.
 * Deterministic.
 *
 * @param summary - The summary.
 * @param maxTokens - The budget for its rendered text.
 * @param countText - Counts rendered text.
 * @returns The summary unchanged when it fits, else trimmed; over the budget only when the pointer
 *   line and the newest pinned fact alone exceed it.
 */
export function trimSummaryToBudget(
  summary: StructuredSummary,
  maxTokens: number,
  countText: (text: string) => number,
): StructuredSummary {
  const fits = (candidate: StructuredSummary) => countText(renderSummary(candidate)) <= maxTokens;
  if (fits(summary)) return summary;
  const pinnedFacts = summary.facts.filter((fact) => fact.pinned);
  const looseFacts = summary.facts.filter((fact) => !fact.pinned);
  const anchored = summary.toolOutcomes.filter((outcome) => Object.keys(outcome.keyFields).length > 0);
  const plain = summary.toolOutcomes.filter((outcome) => Object.keys(outcome.keyFields).length === 0);

  // Stage 1: the loose parts.
  const loose = (share: number): StructuredSummary => ({
    ...summary,
    facts: [...pinnedFacts, ...keepFacts(looseFacts, share)],
    toolOutcomes: [...anchored, ...thin(plain, Math.floor(plain.length * share * share))],
    decisions: thin(summary.decisions, Math.floor(summary.decisions.length * Math.sqrt(share))),
    filesRead: thin(summary.filesRead, Math.floor(summary.filesRead.length * Math.sqrt(share))),
    openItems: summary.openItems.filter((item) => item.priority !== 'low' || share >= 0.5),
  });
  const bare = loose(0);
  if (fits(bare)) return largestFitting(loose, fits);

  // Stage 2: successful outcomes before the state (ADR-0400). Thinned in one list with files modified and
  // failures, a run of successful commands took the place of a file the session changed.
  const succeeded = anchored.filter((outcome) => outcome.outcome === 'success');
  const withSucceeded = (share: number): StructuredSummary => {
    const keptSucceeded = new Set(thin(succeeded, Math.floor(succeeded.length * share)));
    return {
      ...bare,
      toolOutcomes: anchored.filter((outcome) => outcome.outcome !== 'success' || keptSucceeded.has(outcome)),
    };
  };
  const stateOnly = withSucceeded(0);
  if (fits(stateOnly)) return largestFitting(withSucceeded, fits);

  // Stage 3: everything but the pinned facts, thinned evenly (successful outcomes with the rest again, so
  // no section is emptied while another keeps lines).
  const plan = summary.currentPlan;
  const kept = (share: number): StructuredSummary => ({
    ...bare,
    toolOutcomes: thin(anchored, Math.floor(anchored.length * share)),
    filesModified: thin(summary.filesModified, Math.floor(summary.filesModified.length * share)),
    ...thinArtifacts(summary, Math.floor(summary.artifacts.length * share)),
    openItems: thin(bare.openItems, Math.floor(bare.openItems.length * share)),
    currentPlan: plan === null ? null : plan.slice(0, Math.floor(plan.length * share)),
    currentTask: summary.currentTask === null ? null : clipTo(summary.currentTask, share),
  });
  const minimal = kept(0);
  if (fits(minimal)) return largestFitting(kept, fits);

  // Stage 4: the oldest pinned facts behind one pointer, as few as fit.
  const already = summary.externalizedFacts ?? [];
  const externalize = (count: number): StructuredSummary => ({
    ...minimal,
    facts: pinnedFacts.slice(count),
    externalizedFacts: [...already, ...pinnedFacts.slice(0, count)],
  });
  let low = 1;
  let high = pinnedFacts.length;
  if (high === 0) return minimal;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (fits(externalize(middle))) high = middle;
    else low = middle + 1;
  }
  return externalize(low);
}

/** The artifacts listed kept to `count`; the rest stay the summary's, outside its text (ADR-0330). */
function thinArtifacts(
  summary: StructuredSummary,
  count: number,
): Pick<StructuredSummary, 'artifacts' | 'externalizedArtifacts'> {
  const artifacts = thin(summary.artifacts, count);
  if (artifacts.length === summary.artifacts.length) return { artifacts };
  const listed = new Set(artifacts.map((artifact) => artifact.artifactId));
  const moved = summary.artifacts.filter((artifact) => !listed.has(artifact.artifactId));
  return { artifacts, externalizedArtifacts: [...(summary.externalizedArtifacts ?? []), ...moved] };
}
