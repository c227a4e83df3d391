/**
 * Fixtures shared by the engine, runtime and worker tests: stored events as a client's inputs, and
 * two threads sized so compaction is needed (one needing only externalization, one needing the summarizer).
 */
import type { EventInput, StoredEvent } from '@compactor/core';
import { threadBuilder } from './thread-builder.js';

/**
 * A fixture's stored events as the inputs a client would append.
 *
 * @param events - Stored events.
 * @returns The inputs (seq, tenant and thread removed).
 */
export function asInputs(events: readonly StoredEvent[]): EventInput[] {
  return events.map(
    ({ seq: _seq, tenantId: _tenantId, threadId: _threadId, ...input }) => input as EventInput,
  );
}

/**
 * A coding session in a small window, so compaction is needed: 24 turns, each with a 2k-token
 * tool result. Externalizing the old results is enough (no summarizer call).
 *
 * @param threadId - The thread's id.
 * @returns The built thread.
 */
export function codingSession(threadId: string) {
  const builder = threadBuilder(threadId, {
    contextWindow: 40_000,
    policy: {
      outputReserveTokens: 2000,
      keepRecentTurns: 2,
      keepRecentTokens: 2000,
      clearAtLeastTokens: 1000,
    },
  });
  builder.user('Refactor the importer. Never change the public API.');
  for (let turn = 1; turn <= 24; turn += 1) {
    if (turn > 1) builder.user(`Step ${turn}: continue with module ${turn}.`);
    builder.assistant(`Reading module ${turn}.`, {
      toolCalls: [{ id: `read${turn}`, name: 'read', input: { path: `src/m${turn}.ts` } }],
    });
    builder.toolResult(
      `read${turn}`,
      `export function f${turn}(value: number) { return value * ${turn}; }\n`.repeat(60),
    );
    builder.assistant(`Module ${turn} is done.`);
  }
  return builder.build();
}

/**
 * A long conversation without tool results, in a small window, with externalization off: only
 * summarization can bring it under target, so compacting it calls the summarizer.
 *
 * @param threadId - The thread's id.
 * @returns The built thread.
 */
export function longConversation(threadId: string) {
  const builder = threadBuilder(threadId, {
    contextWindow: 20_000,
    policy: {
      outputReserveTokens: 2000,
      keepRecentTurns: 2,
      keepRecentTokens: 1500,
      clearAtLeastTokens: 500,
      strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
      // Sized to be just over the target: the trigger fires there, not at the cost model's high-water
      // mark (ADR-0151), so one check always compacts.
      highWaterPercent: 0.85,
    },
  });
  builder.user('Plan the billing migration. Never run migrations against production.');
  for (let turn = 1; turn <= 30; turn += 1) {
    builder.user(
      `Question ${turn}: what about step ${turn} of the plan? ${'Please give details. '.repeat(20)}`,
    );
    builder.assistant(
      `Step ${turn}: ${`we move table t${turn} in batches and verify row counts. `.repeat(25)}`,
    );
  }
  return builder.build();
}
