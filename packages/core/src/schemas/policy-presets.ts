import { z } from 'zod';
import { availableForMessages, budgetFromRemainderThreshold } from '../budget/token-budget.js';
import type { CompactionPolicyInput } from './policy.js';

/**
 * Named policies reproducing the compaction systems Compactor was designed from (ADR-0106), so a
 * thread, a replay or an evaluation can run one by name. Each is a partial policy: the fields it
 * fixes, over the defaults; explicit fields given beside `preset` override it.
 */
export const POLICY_PRESET_NAMES = [
  'seed-000',
  'pi',
  'seed-003',
  'seed-004-sliding',
  'seed-004-recursive',
] as const;
export const policyPresetNameSchema = z.enum(POLICY_PRESET_NAMES);
export type PolicyPresetName = z.infer<typeof policyPresetNameSchema>;

/** pi's `reserveTokens`: room kept for the answer; compaction starts when the context passes window − reserve. */
const PI_RESERVE_TOKENS = 16_384;

/** The AI SDK compaction layer's threshold for its defaults: (128,000 − 2,000 − 4,000 − 5,000) × 0.80 = 93,600. */
export const SEED_003_REMAINDER = {
  systemReserve: 2_000,
  outputReserve: 4_000,
  safetyBuffer: 5_000,
  thresholdPercent: 0.8,
} as const;
/** The `seed-003` preset's threshold on its 128,000-token default window. */
export const SEED_003_THRESHOLD_TOKENS = availableForMessages(
  budgetFromRemainderThreshold({ modelContextLimit: 128_000, ...SEED_003_REMAINDER }),
);

export const POLICY_PRESETS: Readonly<Record<PolicyPresetName, Partial<CompactionPolicyInput>>> = {
  // The multi-agent assistant: at 80,000 tokens, checkpoint what is older than the last 10 messages;
  // at most 5 checkpoints per session, then merge the oldest.
  'seed-000': {
    trigger: { kind: 'tokens', threshold: 80_000 },
    mode: { kind: 'recursive-summarization', maxEventsToKeep: 10, overlapSize: 0 },
    maxSummaryBlocks: 5,
    summaryBlockMerge: 'oldest',
  },
  // pi: compact when the context passes window − reserveTokens; keep keepRecentTokens; summarize only,
  // the summary within 0.8 × reserveTokens.
  pi: {
    trigger: { kind: 'target' },
    // Everything older than the newest keepRecentTokens (cut at a turn start) becomes one rolling summary.
    mode: { kind: 'recursive-summarization', maxEventsToKeep: 1, overlapSize: 0, maxTokensToKeep: 20_000 },
    softThresholdPercent: 1,
    outputReserveTokens: PI_RESERVE_TOKENS,
    safetyBufferTokens: 0,
    rehydrationReserveTokens: 0,
    keepRecentTurns: 0,
    keepRecentTokens: 20_000,
    strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
    summaryBudgetTokens: Math.floor(0.8 * PI_RESERVE_TOKENS),
    // …and the summarizer call's max_tokens is the same 0.8 × reserveTokens.
    summarizerMaxOutputTokens: Math.floor(0.8 * PI_RESERVE_TOKENS),
    // The summary is a user message opened by pi's prefix.
    summaryStyle: { format: 'structured', message: 'user-prefixed' },
    // pi summarizes the prefix of a turn its cut splits.
    splitTurnSummaries: true,
  },
  // The AI SDK compaction layer: compact at 93,600 message tokens, keep the last 10 messages, summarize the rest.
  'seed-003': {
    // Recomputed for the thread's window by the same arithmetic (ADR-0184): 93,600 at 128k.
    trigger: { kind: 'tokens', remainder: { ...SEED_003_REMAINDER } },
    mode: { kind: 'recursive-summarization', maxEventsToKeep: 10, overlapSize: 0 },
    // A failed summary continues without compaction (no extractive or truncated stand-in).
    onSummaryFailure: 'leave-unchanged',
    // The "## Session Summary (Compaction Round N)" template: one summary rewritten each round, saying
    // how many rounds it incorporates (so rolling, not the default append-only blocks of ADR-0150).
    summaryStyle: { format: 'session-summary', message: 'assistant' },
    summaryComposition: 'rolling',
  },
  // The session service: TurnCountTrigger(20) with a sliding window of 10 events.
  'seed-004-sliding': {
    trigger: { kind: 'turns', maxTurns: 20 },
    mode: { kind: 'sliding-window', maxEvents: 10 },
  },
  // The session service: TurnCountTrigger(20) with recursive summarization, 10 events kept, overlapSize 2.
  'seed-004-recursive': {
    trigger: { kind: 'turns', maxTurns: 20 },
    mode: { kind: 'recursive-summarization', maxEventsToKeep: 10, overlapSize: 2 },
    // A null or blank summary skips compaction; the failure callback hears of it.
    onSummaryFailure: 'leave-unchanged',
    // Stored and sent as the [user shadow, assistant summary] pair.
    summaryStyle: { format: 'structured', message: 'shadow-pair' },
  },
};

/**
 * A policy input with its `preset` expanded: the preset's fields, then every field given explicitly
 * (a field given as undefined does not override). Anything else passes through for the schema to judge.
 */
export function expandPolicyPreset(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || !('preset' in input)) return input;
  const parsed = policyPresetNameSchema.safeParse(input.preset);
  if (!parsed.success) return input;
  const explicit = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  return { ...POLICY_PRESETS[parsed.data], ...explicit };
}
