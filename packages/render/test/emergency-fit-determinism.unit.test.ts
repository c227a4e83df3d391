/**
 * The emergency fit clears a replayable result only when the runtime's capture_determinism hooks
 * proved its source unchanged (ADR-0193); unverified, it keeps it and drops whole old turns instead.
 */
import { currentDeterminismFrom, tokenBudget } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it, vi } from 'vitest';
import { renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { tokenizerFor } from './support/tokenizers.js';

// Real tokenizers on two shared cores: allow for load, never assert on time.
vi.setConfig({ testTimeout: 60_000 });

function replayableThread() {
  const builder = threadBuilder('replay', { policy: { keepRecentTurns: 1, keepRecentTokens: 0 } });
  for (let turn = 1; turn <= 8; turn += 1) {
    builder.user(`Read file ${turn}.`);
    builder.assistant(undefined, {
      toolCalls: [{ id: `read${turn}`, name: 'read_file', input: { path: `src/f${turn}.ts` } }],
    });
    builder.toolResult(`read${turn}`, `export const f${turn} = ${turn};\n`.repeat(60), {
      durability: 'replayable',
      determinism: { contentHash: `hash-${turn}` },
    });
    builder.assistant(`File ${turn} read.`);
  }
  return builder.build().thread;
}

function render(currentDeterminism?: ReturnType<typeof currentDeterminismFrom>) {
  const thread = replayableThread();
  const result = renderPromptSync({
    thread,
    plan: null,
    system: '',
    tools: [],
    budget: tokenBudget({
      maxInputTokens: 2500,
      outputReserveTokens: 0,
      safetyBufferTokens: 0,
      rehydrationReserveTokens: 0,
    }),
    provider: 'anthropic',
    tokenizer: tokenizerFor('anthropic'),
    ...(currentDeterminism ? { currentDeterminism } : {}),
  });
  expect(validateProviderRequest('anthropic', result.request).errors).toEqual([]);
  expect(result.tokens.total).toBeLessThanOrEqual(2500);
  return result.report.emergencyFit!;
}

describe('emergency fit and replayable results (ADR-0193)', () => {
  it('unverified: clears none, drops old turns; verified unchanged: clears them and drops less', () => {
    const unverified = render();
    expect(unverified.clearedResults).toEqual([]);
    expect(unverified.dropped.length).toBeGreaterThan(0);

    const unchanged = new Map(
      Array.from({ length: 8 }, (_, index) => [`read${index + 1}`, { contentHash: `hash-${index + 1}` }]),
    );
    const verified = render(currentDeterminismFrom(unchanged));
    // The monotone fit (ADR-0142) clears within its band and drops older bands whole.
    const cleared = verified.clearedResults.map((result) => result.toolCallId);
    expect(cleared.length).toBeGreaterThan(0);
    expect(verified.dropped.length).toBeLessThan(unverified.dropped.length);

    // A source that changed stays: only the unchanged ones are cleared.
    const changedId = cleared[0]!;
    const oneChanged = new Map(unchanged);
    oneChanged.set(changedId, { contentHash: 'edited' });
    const partly = render(currentDeterminismFrom(oneChanged));
    expect(partly.clearedResults.map((result) => result.toolCallId)).not.toContain(changedId);
  });
});
