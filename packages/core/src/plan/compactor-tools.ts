import type { CompactionPolicy } from '../schemas/policy.js';

/** Compactor's own tools, in the fixed order they follow the caller's tools in every request. */
export const COMPACTOR_TOOL_NAMES = ['read_artifact', 'search_history'] as const;
/** One of Compactor's own tools. */
export type CompactorToolName = (typeof COMPACTOR_TOOL_NAMES)[number];

/** What decides Compactor's tools for one request besides the policy. */
export interface CompactorToolsInput {
  policy: CompactionPolicy;
  /** The plan has an externalization (its pointers tell the model to call `read_artifact`). */
  planExternalizes: boolean;
  /** The plan compacts anything (search_history has something to search). */
  planCompacts: boolean;
  /** The caller offers `search_history` (it answers its calls). */
  offerSearchHistory: boolean;
  /**
   * The caller allows `read_artifact` to be added.
   * @defaultValue true
   */
  offerReadArtifact?: boolean;
}

/**
 * Compactor's tools for a request of a thread (ADR-0141), the one rule render, the planner's target
 * and the eval use. Under the default `compactorTools: 'stable'` they depend on the thread's policy
 * and the caller's offer only, never on the plan, so committing a plan that externalizes or compacts
 * never changes the first bytes of the request (tools come first in every provider format):
 * `read_artifact` whenever the policy may externalize (the ladder with its externalize rung on), and
 * `search_history` whenever the caller offers it. Under `'on-demand'` each appears only once the
 * plan needs it (fewer tokens before the first compaction, one cache break when it appears). Either
 * way a plan that externalizes always gets `read_artifact` (its pointers name it).
 *
 * @param input - The policy, what the plan holds and what the caller offers.
 * @returns The tool names in {@link COMPACTOR_TOOL_NAMES} order.
 */
export function compactorToolNames(input: CompactorToolsInput): CompactorToolName[] {
  const stable = input.policy.compactorTools !== 'on-demand';
  const names: CompactorToolName[] = [];
  if (input.offerReadArtifact !== false) {
    const mayExternalize = input.policy.mode.kind === 'ladder' && input.policy.strategies.externalize;
    if (input.planExternalizes || (stable && mayExternalize)) names.push('read_artifact');
  }
  if (input.offerSearchHistory && (stable || input.planCompacts)) names.push('search_history');
  return names;
}
