import { z } from 'zod';
import { ValidationError } from '../errors.js';

/**
 * Everything that competes for a model's context window (ADR-0009).
 *
 * `thresholdAppliesTo` lets both published threshold rules be written down:
 * - `window` (the production design's rule, ADR-0009): floor(maxInputTokens × soft) − all overheads − reserves
 * - `remainder` (the AI SDK layer's rule, ADR-0009): floor((maxInputTokens − system − output − safety − tools − formatting) × soft) − rehydration
 */
export const tokenBudgetSchema = z.object({
  /** The model's context window: everything sent plus the answer must fit in it. */
  maxInputTokens: z.number().int().positive(),
  softThresholdPercent: z.number().gt(0).max(1).default(0.85),
  thresholdAppliesTo: z.enum(['window', 'remainder']).default('window'),
  systemPromptTokens: z.number().int().min(0).default(0),
  toolSchemaTokens: z.number().int().min(0).default(0),
  formattingOverheadTokens: z.number().int().min(0).default(0),
  safetyBufferTokens: z.number().int().min(0).default(500),
  outputReserveTokens: z.number().int().min(0).default(0),
  rehydrationReserveTokens: z.number().int().min(0).default(2000),
});
/** A parsed token budget: every field filled in. */
export type TokenBudget = z.infer<typeof tokenBudgetSchema>;
/**
 * A token budget as written: only `maxInputTokens` is required. Defaults: soft threshold 0.85 of
 * the window (`thresholdAppliesTo: 'window'`), safety buffer 500, rehydration reserve 2,000, every
 * other overhead and reserve 0.
 */
export type TokenBudgetInput = z.input<typeof tokenBudgetSchema>;

/**
 * Parse a token budget, filling in the defaults.
 *
 * @param input - The budget as written.
 * @returns The complete budget.
 * @throws ZodError when a field is missing or out of range.
 */
export function tokenBudget(input: TokenBudgetInput): TokenBudget {
  return tokenBudgetSchema.parse(input);
}

function fixedOverhead(budget: TokenBudget): number {
  return (
    budget.systemPromptTokens +
    budget.toolSchemaTokens +
    budget.formattingOverheadTokens +
    budget.safetyBufferTokens +
    budget.outputReserveTokens
  );
}

/**
 * Tokens the conversation messages may use before compaction should bring them down.
 *
 * @param budget - The budget.
 * @returns The target under the budget's threshold rule, at least 0.
 */
export function availableForMessages(budget: TokenBudget): number {
  const available =
    budget.thresholdAppliesTo === 'window'
      ? Math.floor(budget.maxInputTokens * budget.softThresholdPercent) -
        fixedOverhead(budget) -
        budget.rehydrationReserveTokens
      : Math.floor((budget.maxInputTokens - fixedOverhead(budget)) * budget.softThresholdPercent) -
        budget.rehydrationReserveTokens;
  return Math.max(0, available);
}

/**
 * The hard ceiling for messages: the window minus overheads, ignoring the soft threshold.
 *
 * @param budget - The budget.
 * @returns The ceiling, at least 0.
 */
export function hardLimitForMessages(budget: TokenBudget): number {
  return Math.max(0, budget.maxInputTokens - fixedOverhead(budget) - budget.rehydrationReserveTokens);
}

/**
 * Tokens rehydrated artifacts may use.
 *
 * @param budget - The budget.
 * @returns Its rehydration reserve.
 */
export function availableForRehydration(budget: TokenBudget): number {
  return budget.rehydrationReserveTokens;
}

/**
 * The remainder rule's configuration (ADR-0009; its defaults give 93,600):
 * (limit − systemReserve − outputReserve − safetyBuffer) × threshold%.
 *
 * @param config - The window, the three reserves and the threshold fraction.
 * @returns The equivalent budget (no rehydration reserve).
 * @throws ZodError when a figure is out of range.
 */
export function budgetFromRemainderThreshold(config: {
  modelContextLimit: number;
  systemReserve: number;
  outputReserve: number;
  safetyBuffer: number;
  thresholdPercent: number;
}): TokenBudget {
  return tokenBudget({
    maxInputTokens: config.modelContextLimit,
    softThresholdPercent: config.thresholdPercent,
    thresholdAppliesTo: 'remainder',
    systemPromptTokens: config.systemReserve,
    outputReserveTokens: config.outputReserve,
    safetyBufferTokens: config.safetyBuffer,
    rehydrationReserveTokens: 0,
  });
}

/**
 * pi's settings (ADR-0009): compact when context > contextWindow − reserveTokens.
 * `keepRecentTokens` is a policy setting (the protected tail) and is returned alongside.
 *
 * @param config - pi's `contextWindow`, `reserveTokens` and `keepRecentTokens`.
 * @returns The equivalent budget, and `keepRecentTokens` for the policy.
 * @throws ValidationError when `reserveTokens` is not smaller than the window.
 */
export function budgetFromReserveTokens(config: {
  contextWindow: number;
  reserveTokens: number;
  keepRecentTokens: number;
}): { budget: TokenBudget; keepRecentTokens: number } {
  if (config.reserveTokens >= config.contextWindow) {
    throw new ValidationError('reserveTokens must be smaller than the context window', [
      { path: 'reserveTokens', message: `must be < ${config.contextWindow}` },
    ]);
  }
  return {
    budget: tokenBudget({
      maxInputTokens: config.contextWindow,
      softThresholdPercent: 1,
      outputReserveTokens: config.reserveTokens,
      safetyBufferTokens: 0,
      rehydrationReserveTokens: 0,
    }),
    keepRecentTokens: config.keepRecentTokens,
  };
}
