import { ValidationError } from '../errors.js';
import type { Thread } from '../thread/thread.js';
import {
  buildWindowResult,
  type DeterministicStrategyOptions,
  type DeterministicStrategyResult,
  partitionForWindow,
  safeCut,
} from './window-result.js';

/**
 * Keep the newest contiguous suffix that fits in `maxTokens` (ADR-0011).
 * Always-kept messages are paid for first; the walk stops at the
 * first message that does not fit (no gaps), then the suffix is trimmed to start at a turn.
 *
 * @param thread - The folded thread.
 * @param settings - The most tokens the kept messages may take.
 * @param options - Token counting, the plan to build on, and the time.
 * @returns The new plan with the ids archived, kept and always preserved, and the tokens saved.
 * @throws ValidationError when `maxTokens` is not a whole number of at least 0.
 */
export function tokenBudgetSuffix(
  thread: Thread,
  settings: { maxTokens: number },
  options: DeterministicStrategyOptions,
): DeterministicStrategyResult {
  if (!Number.isInteger(settings.maxTokens) || settings.maxTokens < 0) {
    throw new ValidationError('maxTokens must be a whole number of at least 0', [
      { path: 'maxTokens', message: 'must be an integer >= 0' },
    ]);
  }
  const input = partitionForWindow(thread, options.basePlan);
  let remaining =
    settings.maxTokens - input.preserved.reduce((total, message) => total + options.countTokens(message), 0);
  let rawCut = input.real.length;
  while (rawCut > 0) {
    const cost = options.countTokens(input.real[rawCut - 1]!);
    if (cost > remaining) break;
    remaining -= cost;
    rawCut -= 1;
  }
  const cut = rawCut === 0 ? 0 : safeCut(input.real, rawCut, thread.messages, input.preserved);
  return buildWindowResult(
    thread,
    input,
    cut,
    `token budget: kept a suffix within ${settings.maxTokens} tokens`,
    options,
  );
}
