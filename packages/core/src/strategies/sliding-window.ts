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
 * Keep the last `maxEvents` real messages (ADR-0011): the cut
 * snaps forward to a turn start; synthetic summaries are kept and do not count against N.
 *
 * @param thread - The folded thread.
 * @param settings - The most real messages kept.
 * @param options - Token counting, the plan to build on, and the time.
 * @returns The new plan with the ids archived, kept and always preserved, and the tokens saved.
 * @throws ValidationError when `maxEvents` is not a whole number of at least 0.
 */
export function slidingWindow(
  thread: Thread,
  settings: { maxEvents: number },
  options: DeterministicStrategyOptions,
): DeterministicStrategyResult {
  if (!Number.isInteger(settings.maxEvents) || settings.maxEvents < 0) {
    throw new ValidationError('maxEvents must be a whole number of at least 0', [
      { path: 'maxEvents', message: 'must be an integer >= 0' },
    ]);
  }
  const input = partitionForWindow(thread, options.basePlan);
  const rawCut = Math.max(0, input.real.length - settings.maxEvents);
  const cut = rawCut === 0 ? 0 : safeCut(input.real, rawCut, thread.messages, input.preserved);
  return buildWindowResult(
    thread,
    input,
    cut,
    `sliding window: kept the last ${settings.maxEvents} events`,
    options,
  );
}
