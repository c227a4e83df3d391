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
 * Keep the last `maxTurns` whole turns (ADR-0011). The preamble
 * before the first user message is kept, as are synthetic summaries.
 *
 * @param thread - The folded thread.
 * @param settings - The most whole turns kept.
 * @param options - Token counting, the plan to build on, and the time.
 * @returns The new plan with the ids archived, kept and always preserved, and the tokens saved.
 * @throws ValidationError when `maxTurns` is not a whole number of at least 0.
 */
export function turnWindow(
  thread: Thread,
  settings: { maxTurns: number },
  options: DeterministicStrategyOptions,
): DeterministicStrategyResult {
  if (!Number.isInteger(settings.maxTurns) || settings.maxTurns < 0) {
    throw new ValidationError('maxTurns must be a whole number of at least 0', [
      { path: 'maxTurns', message: 'must be an integer >= 0' },
    ]);
  }
  const input = partitionForWindow(thread, options.basePlan);
  const preamble = input.real.filter((message) => message.turn === 0);
  const windowed = input.real.filter((message) => message.turn > 0);
  const turns = [...new Set(windowed.map((message) => message.turn))];
  const firstKeptTurn = turns[Math.max(0, turns.length - settings.maxTurns)];
  const rawCut =
    settings.maxTurns === 0
      ? windowed.length
      : firstKeptTurn === undefined
        ? 0
        : windowed.findIndex((message) => message.turn === firstKeptTurn);
  const preserved = [...preamble, ...input.preserved];
  const cut = rawCut === 0 ? 0 : safeCut(windowed, rawCut, thread.messages, preserved);
  return buildWindowResult(
    thread,
    { real: windowed, preserved },
    cut,
    `turn window: kept the last ${settings.maxTurns} turns`,
    options,
  );
}
