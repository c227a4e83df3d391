import { CompactorError, type ProviderName, tokenBudget } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import { RenderBudgetExceededError, renderCeiling, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { deploySession } from './support/fixtures.js';
import { drop, ids, planOf, summarize } from './support/plans.js';
import { renderInput, requestText, wireMessages } from './support/render-helpers.js';
import { independentCount, PROVIDERS } from './support/tokenizers.js';

/** The deploy session with a one-turn protected tail (turn 4: "Now run the tests." … "All 42 tests pass."). */
const { thread } = deploySession(undefined, { policy: { keepRecentTurns: 1, keepRecentTokens: 0 } });
const TAIL_TEXTS = ['Now run the tests.', 'npm test', 'Tests: 42 passed', 'All 42 tests pass.'];

function ceilingOf(maxInputTokens: number) {
  return tokenBudget({
    maxInputTokens,
    outputReserveTokens: 0,
    safetyBufferTokens: 0,
    rehydrationReserveTokens: 0,
  });
}

function renderUnder(
  provider: ProviderName,
  maxInputTokens: number,
  plan: ReturnType<typeof planOf> | null = null,
) {
  const result = renderPromptSync(renderInput(provider, thread, plan, { budget: ceilingOf(maxInputTokens) }));
  expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
  expect(result.tokens.total).toBeLessThanOrEqual(maxInputTokens);
  expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
  return result;
}

function fullTotal(provider: ProviderName, plan: ReturnType<typeof planOf> | null = null): number {
  return renderPromptSync(renderInput(provider, thread, plan, { budget: ceilingOf(1_000_000) })).tokens.total;
}

describe('the budget guarantee', () => {
  it('uses maxInputTokens − outputReserveTokens − safetyBufferTokens as the hard ceiling', () => {
    expect(
      renderCeiling(
        tokenBudget({ maxInputTokens: 10_000, outputReserveTokens: 2_000, safetyBufferTokens: 500 }),
      ),
    ).toBe(7_500);
    expect(renderCeiling(tokenBudget({ maxInputTokens: 1_000, outputReserveTokens: 2_000 }))).toBe(0);
  });

  it('changes nothing when the request fits, down to exactly the ceiling', () => {
    for (const provider of PROVIDERS) {
      const total = fullTotal(provider);
      const result = renderUnder(provider, total);
      expect(result.tokens.total).toBe(total);
      expect(result.report.emergencyFit).toBeNull();
      expect(result.report.needsCompaction).toBe(false);
    }
  });

  it('first clears the tool results core allows to be cleared, oldest first, outside the protected tail', () => {
    for (const provider of PROVIDERS) {
      const result = renderUnder(provider, fullTotal(provider) - 20);
      const fit = result.report.emergencyFit!;
      expect(fit.clearedResults.map((cleared) => cleared.toolCallId)).toEqual(['c1']);
      expect(fit.dropped).toEqual([]);
      expect(fit.tokensFreed).toBeGreaterThanOrEqual(fit.overBy);
      expect(result.report.needsCompaction).toBe(true);
      const text = requestText(result.request);
      expect(text).toContain('[bash: success]');
      expect(text).not.toContain('deploy step 3 ok');
      for (const kept of TAIL_TEXTS) expect(text).toContain(kept);
    }
  });

  /** Room for everything but turn 1's unpinned messages: clearing alone cannot make it fit. */
  const withoutTurnOne = (provider: ProviderName) =>
    fullTotal(provider, planOf(thread, [drop(thread, ['m3', 'm4', 'm5', 'm6', 'm7'])]));

  it('never clears results whose placeholder saves nothing, or the protected tail', () => {
    for (const provider of PROVIDERS) {
      const result = renderUnder(provider, withoutTurnOne(provider));
      const fit = result.report.emergencyFit!;
      // c2 is replayable and unverified; c3/c4 are shorter than their placeholders; c5 is in the tail.
      // c1 (m4) was cleared on the way, then went with turn 1: it is reported as dropped, not cleared.
      expect(fit.clearedResults.map((entry) => entry.toolCallId)).toEqual([]);
      expect(fit.dropped.length).toBeGreaterThan(0);
      expect(fit.dropped.flatMap((entry) => entry.resultMessageIds)).toContain('m4');
      const text = requestText(result.request);
      for (const kept of TAIL_TEXTS) expect(text).toContain(kept);
      expect(text).toContain('tickets.example.com/OPS-42');
    }
  });

  it('then drops the oldest whole turns, keeping pinned and system messages until nothing else is left', () => {
    for (const provider of PROVIDERS) {
      const result = renderUnder(provider, withoutTurnOne(provider));
      const fit = result.report.emergencyFit!;
      expect(fit.dropped.map((entry) => entry.messageId)).toEqual(['m3', 'm5', 'm7']);
      // Each drop reports the tokens it freed (a dropped summary's whole size shows in the eval).
      for (const entry of fit.dropped) expect(entry.tokens).toBeGreaterThan(0);
      expect(fit.dropped.reduce((sum, entry) => sum + entry.tokens, 0)).toBeLessThanOrEqual(fit.tokensFreed);
      const turns = fit.dropped.map((entry) => entry.turn);
      expect([...turns].sort((left, right) => left - right)).toEqual(turns);
      // Turn 1 goes first (turn 0 is only the system message, which is essential).
      expect(fit.dropped[0]).toMatchObject({
        messageId: 'm3',
        turn: 1,
        kind: 'message',
        resultMessageIds: ['m4'],
      });
      const text = requestText(result.request);
      expect(text).toContain('Never touch production data');
      expect(text).toContain('The repository is checked out at /srv/app.');
    }
  });

  it('drops even pinned and system messages (oldest first) before giving up on the ceiling', () => {
    for (const provider of PROVIDERS) {
      const tailOnly = fullTotal(provider, planOf(thread, [drop(thread, ids(1, 13))]));
      const result = renderUnder(provider, tailOnly);
      expect(wireMessages(result.request)).toEqual(
        wireMessages(
          renderPromptSync(
            renderInput(provider, thread, planOf(thread, [drop(thread, ids(1, 13))]), {
              budget: ceilingOf(tailOnly),
            }),
          ).request,
        ),
      );
      const text = requestText(result.request);
      for (const kept of TAIL_TEXTS) expect(text).toContain(kept);
      const droppedIds = result.report.emergencyFit!.dropped.map((entry) => entry.messageId);
      expect(droppedIds).toContain('m2');
      expect(droppedIds.indexOf('m1')).toBeLessThan(droppedIds.indexOf('m2'));
      expect(droppedIds.indexOf('m13')).toBeLessThan(droppedIds.indexOf('m1'));
    }
  });

  it('cuts a summary to its guaranteed items before it would drop it whole, and reports what went', () => {
    const facts = Array.from({ length: 30 }, (_, index) => ({
      text: `Loose fact number ${index} about the deploy.`,
    }));
    const plan = planOf(thread, [
      summarize(thread, ids(1, 13), {
        facts: [...facts, { text: 'Never touch production data', pinned: true }],
      }),
    ]);
    for (const provider of PROVIDERS) {
      const result = renderUnder(provider, fullTotal(provider, plan) - 60, plan);
      const fit = result.report.emergencyFit!;
      // Outside the tail only the summary (and the session's opening note) is left: the summary is
      // trimmed and kept, never dropped whole.
      expect(
        fit.dropped.filter((drop) => drop.kind === 'summary'),
        provider,
      ).toEqual([]);
      expect(fit.trimmedSummaries).toHaveLength(1);
      const [trimmed] = fit.trimmedSummaries;
      expect(trimmed!.itemsDropped).toBeGreaterThan(0);
      expect(trimmed!.toTokens).toBeLessThan(trimmed!.fromTokens);
      expect(fit.tokensFreed).toBeGreaterThanOrEqual(trimmed!.fromTokens - trimmed!.toTokens);
      const text = requestText(result.request);
      expect(text).toContain('Never touch production data');
      expect(text).toContain('[Context Summary');
      for (const kept of TAIL_TEXTS) expect(text).toContain(kept);
    }
  });

  it('cuts in chunks on a grid the next, longer render repeats until it is over the ceiling again', () => {
    // The session growing one message at a time past a plan made at m3 (nothing compacted yet).
    const planSeq = thread.messages.find((message) => message.id === 'm3')!.seq;
    const stale = planOf(thread, [], { basedOnSeq: planSeq });
    let fits = 0;
    for (const provider of PROVIDERS) {
      const ceiling = Math.floor(fullTotal(provider) * 0.7);
      let previousStep: number | null = null;
      let previousDropped: string[] = [];
      for (let end = 8; end <= thread.messages.length; end += 1) {
        const grown = { ...thread, messages: thread.messages.slice(0, end) };
        const result = renderPromptSync(
          renderInput(provider, grown, stale, { budget: ceilingOf(ceiling), promptCaching: false }),
        );
        const fit = result.report.emergencyFit;
        if (!fit) continue;
        fits += 1;
        const dropped = fit.dropped.map((drop) => drop.messageId);
        // Never undone, and a step at a time.
        for (const id of previousDropped) expect(dropped).toContain(id);
        if (previousStep !== null && fit.step !== null) expect(fit.step).toBeGreaterThanOrEqual(previousStep);
        previousStep = fit.step;
        previousDropped = dropped;
      }
    }
    expect(fits).toBeGreaterThan(0);
  });

  it('throws a typed error with the numbers when the system prompt, tools and protected tail cannot fit', () => {
    for (const provider of PROVIDERS) {
      let caught: unknown;
      try {
        renderPromptSync(renderInput(provider, thread, null, { budget: ceilingOf(50) }));
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(RenderBudgetExceededError);
      expect(CompactorError.hasCode(caught, 'budget_exceeded')).toBe(true);
      const numbers = (caught as RenderBudgetExceededError).numbers;
      expect(numbers.ceiling).toBe(50);
      expect(numbers.system).toBeGreaterThan(0);
      expect(numbers.tools).toBeGreaterThan(0);
      expect(numbers.protectedTail).toBeGreaterThan(0);
      expect(numbers.system + numbers.tools + numbers.formatting + numbers.protectedTail).toBeGreaterThan(50);
      expect((caught as CompactorError).details).toMatchObject({
        ceiling: 50,
        protectedTail: numbers.protectedTail,
      });
    }
  });

  it('fits a stale plan whose newer events push the prompt over, and says so', () => {
    const planSeq = thread.messages.find((message) => message.id === 'm11')!.seq;
    const stalePlan = planOf(thread, [summarize(thread, ids(2, 7), { facts: [{ text: 'turn one' }] })], {
      basedOnSeq: planSeq,
    });
    for (const provider of PROVIDERS) {
      const result = renderUnder(provider, fullTotal(provider, stalePlan) - 10, stalePlan);
      expect(result.report.stale).toBe(true);
      expect(result.report.messagesAfterPlan).toBe(6);
      expect(result.report.emergencyFit).not.toBeNull();
      expect(result.report.needsCompaction).toBe(true);
      expect(requestText(result.request)).toContain('turn one');
      expect(wireMessages(result.request).length).toBeGreaterThan(0);
    }
  });
});

describe('a single agent turn larger than the ceiling', () => {
  function longTurn() {
    const builder = threadBuilder('long', { policy: { keepRecentTurns: 3, keepRecentTokens: 600 } }).user(
      'Fix every failing test in the repository.',
    );
    for (let step = 1; step <= 40; step += 1) {
      builder.assistant(`Step ${step}: listing.`, {
        toolCalls: [{ id: `ls${step}`, name: 'ls', input: { step } }],
      });
      // Non-replayable: nothing may be cleared, so the fit has to drop the turn's oldest part.
      builder.toolResult(`ls${step}`, `file_${step}.ts `.repeat(60), { durability: 'non_replayable' });
    }
    return builder.build().thread;
  }

  it('renders the newest part of the turn within keepRecentTokens instead of giving up', () => {
    const long = longTurn();
    for (const provider of PROVIDERS) {
      const result = renderPromptSync(renderInput(provider, long, null, { budget: ceilingOf(3000) }));
      expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
      expect(result.tokens.total).toBeLessThanOrEqual(3000);
      expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
      const text = requestText(result.request);
      expect(text).toContain('Step 40: listing.');
      expect(text).not.toContain('Step 1: listing.');
      expect(result.report.emergencyFit?.dropped.length).toBeGreaterThan(0);
    }
  });

  it('cuts an oversized result of the newest exchange to head and tail rather than refusing', () => {
    const builder = threadBuilder('huge', { policy: { keepRecentTurns: 1, keepRecentTokens: 200 } });
    builder.user('Read the whole log.');
    builder.assistant('Reading it.', {
      toolCalls: [{ id: 'cat', name: 'read_file', input: { path: 'app.log' } }],
    });
    const lines = Array.from(
      { length: 400 },
      (_, index) => `line ${index}: request served in ${index % 97} ms`,
    );
    builder.toolResult('cat', lines.join('\n'), { durability: 'anchoring' });
    const huge = builder.build().thread;
    for (const provider of PROVIDERS) {
      const result = renderPromptSync(renderInput(provider, huge, null, { budget: ceilingOf(2500) }));
      expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
      expect(result.tokens.total).toBeLessThanOrEqual(2500);
      expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
      const text = requestText(result.request);
      expect(text).toContain('[Truncated Tool Result v1');
      expect(text).toContain('line 0: request served');
      expect(text).toContain('line 399: request served');
      expect(text).not.toContain('line 200: request served');
      expect(text).toContain('Read the whole log.');
      expect(result.report.emergencyFit?.truncatedResults).toEqual([
        expect.objectContaining({ toolCallId: 'cat', toolName: 'read_file' }),
      ]);
    }
  });

  it('cuts oversized harness output (a synthetic user message) the same way', () => {
    const lines = Array.from({ length: 400 }, (_, index) => `$ build step ${index} ok`);
    const { thread: shell } = threadBuilder('shell', {
      policy: { keepRecentTurns: 1, keepRecentTokens: 200 },
    })
      .user('Build it.')
      .assistant('Run the build yourself and paste the output.')
      .user(lines.join('\n'), { synthetic: true })
      .build();
    const result = renderPromptSync(renderInput('anthropic', shell, null, { budget: ceilingOf(2000) }));
    expect(validateProviderRequest('anthropic', result.request).errors).toEqual([]);
    expect(result.tokens.total).toBeLessThanOrEqual(2000);
    const text = requestText(result.request);
    expect(text).toContain('$ build step 0 ok');
    expect(text).toContain('$ build step 399 ok');
    expect(text).not.toContain('$ build step 200 ok');
    expect(result.report.emergencyFit?.truncatedResults).toEqual([
      expect.objectContaining({ kind: 'synthetic_message', messageId: 'm3' }),
    ]);
  });

  it('still throws when what cannot be cut (the newest user message) does not fit', () => {
    const { thread: wordy } = threadBuilder('wordy')
      .user(`Please read this: ${'very long request '.repeat(400)}`)
      .build();
    expect(() =>
      renderPromptSync(renderInput('anthropic', wordy, null, { budget: ceilingOf(1200) })),
    ).toThrow(RenderBudgetExceededError);
  });
});
