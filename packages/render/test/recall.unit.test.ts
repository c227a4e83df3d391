import { foldThread, type ProviderName, type Thread, tokenBudget } from '@compactor/core';
import { arbitraryCompactionPlan, arbitraryThread } from '@compactor/testkit/arbitraries';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRenderCache, RenderBudgetExceededError, renderPromptSync } from '../src/index.js';
import { validateProviderRequest } from '../src/validate/index.js';
import { drop, externalize, ids, planOf, summarize } from './support/plans.js';
import { renderInput, requestText, wireMessages } from './support/render-helpers.js';
import { independentCount, PROVIDERS } from './support/tokenizers.js';

const MARKER = '[Recalled from earlier in this conversation';

/** Early turns about a locker code and a puppy, compacted; the newest turn asks about the locker. */
function thread(policy: Record<string, unknown> = {}, newest = 'What was my locker code again?') {
  const builder = threadBuilder('recall', { tenantId: 'tenant-1', policy });
  builder.user('My locker code is 5433, gym on the second floor.').assistant('Noted.');
  builder.user('We adopted a puppy named Biscuit last week.').assistant('Lovely.');
  builder.user('The build failed on the lint step.').assistant('I will look.');
  builder.user(newest);
  return builder.build().thread;
}

function compacted(base: Thread) {
  return planOf(base, [
    summarize(base, ids(1, 4), { facts: [{ text: 'small talk' }] }),
    drop(base, ids(5, 6)),
  ]);
}

describe('render-time recall (ADR-0111)', () => {
  for (const provider of PROVIDERS) {
    it(`brings the matching compacted turn back as one block after the cache-stable prefix (${provider})`, () => {
      const base = thread();
      const result = renderPromptSync(renderInput(provider, base, compacted(base)));
      const wire = wireMessages(result.request);
      const index = wire.findIndex((message) => JSON.stringify(message).includes(MARKER));
      expect(index).toBe(wire.length - 1);
      expect(index).toBeGreaterThanOrEqual(
        result.report.stablePrefixMessages - (provider === 'openai-chat' ? 1 : 0),
      );
      expect(JSON.stringify(wire[index])).toContain('5433');
      expect(result.report.recall.recalled.map((hit) => hit.messageId)).toEqual(['m1']);
      expect(result.report.recall.recalled[0]!.compactedBy).toBe('summarize');
      expect(result.tokens.recall).toBe(result.report.recall.tokens);
      expect(result.tokens.recall).toBeGreaterThan(0);
      expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
    });
  }

  it('is off with the policy switch, and without a plan', () => {
    const off = thread({ recall: { enabled: false } });
    const result = renderPromptSync(renderInput('anthropic', off, compacted(off)));
    expect(requestText(result.request)).not.toContain(MARKER);
    expect(result.report.recall.attempted).toBe(false);
    const noPlan = renderPromptSync(renderInput('anthropic', thread(), null));
    expect(noPlan.report.recall.tokens).toBe(0);
  });

  it('takes an explicit query, and leaves out hits under the minimum score', () => {
    const base = thread();
    const plan = compacted(base);
    const puppy = renderPromptSync(
      renderInput('anthropic', base, plan, { query: 'What was the puppy name?' }),
    );
    expect(puppy.report.recall.recalled.map((hit) => hit.messageId)).toEqual(['m3']);
    const strict = { ...base, policy: { ...base.policy, recall: { ...base.policy.recall, minScore: 1000 } } };
    expect(renderPromptSync(renderInput('anthropic', strict, plan)).report.recall.tokens).toBe(0);
  });

  it('writes no block on a dialogue turn that asks nothing, and says why (ADR-0320)', () => {
    const base = thread({}, 'My gym has a locker code too.');
    const plan = compacted(base);
    const said = renderPromptSync(renderInput('anthropic', base, plan));
    expect(requestText(said.request)).not.toContain(MARKER);
    expect(said.report.recall).toMatchObject({
      attempted: false,
      skipped: 'not-asked',
      tokens: 0,
      recalled: [],
    });
    expect(said.tokens.recall).toBe(0);
    // The same turn as a question, or with the gate open, brings the locker code back.
    const asked = renderPromptSync(renderInput('anthropic', base, plan, { query: 'Your locker code?' }));
    expect(asked.report.recall.recalled.map((hit) => hit.messageId)).toEqual(['m1']);
    expect(asked.report.recall.skipped).toBeUndefined();
    const always = {
      ...base,
      policy: { ...base.policy, recall: { ...base.policy.recall, gate: 'always' as const } },
    };
    const open = renderPromptSync(renderInput('anthropic', always, plan));
    expect(open.report.recall.recalled.map((hit) => hit.messageId)).toEqual(['m1']);
    // A caller's own query is the asking: the gate reads only the thread's newest turn.
    const called = renderPromptSync(
      renderInput('anthropic', base, plan, { query: 'My gym has a locker code too.' }),
    );
    expect(called.report.recall.recalled.map((hit) => hit.messageId)).toEqual(['m1']);
  });

  it('says the gate held the search back under the append placement too', () => {
    const policy = { recall: { placement: 'append', gate: 'question' } };
    const base = thread(policy, 'My gym has a locker code too.');
    const plan = compacted(base);
    const said = renderPromptSync(renderInput('anthropic', base, plan));
    expect(said.report.recall).toMatchObject({ skipped: 'not-asked', tokens: 0, recalled: [] });
    const questioned = thread(policy);
    const asked = renderPromptSync(renderInput('anthropic', questioned, compacted(questioned)));
    expect(asked.report.recall.recalled.map((hit) => hit.messageId)).toEqual(['m1']);
    expect(asked.report.recall.skipped).toBeUndefined();
  });

  it('never recalls an externalized span whose sensitivity is not auto-rehydratable', () => {
    const base = thread();
    const plan = planOf(base, [
      externalize(base, ids(1, 2), 'art_secret', { facts: [] }, '', 'confidential'),
    ]);
    const result = renderPromptSync(renderInput('anthropic', base, plan));
    expect(result.report.recall.indexed).toBe(0);
    expect(requestText(result.request)).not.toContain(MARKER);
  });

  it('stays within the rehydration reserve and the ceiling', () => {
    const base = thread();
    const plan = compacted(base);
    const roomy = renderPromptSync(renderInput('anthropic', base, plan));
    const tight = tokenBudget({
      maxInputTokens: roomy.tokens.total - roomy.tokens.recall + 5,
      outputReserveTokens: 0,
      safetyBufferTokens: 0,
      rehydrationReserveTokens: 5,
    });
    const result = renderPromptSync(renderInput('anthropic', base, plan, { budget: tight }));
    expect(result.report.recall.allowance).toBeLessThanOrEqual(5);
    expect(result.tokens.recall).toBe(0);
    expect(result.tokens.total).toBeLessThanOrEqual(tight.maxInputTokens);
  });
});

describe('recall fills the free room under the ceiling (ADR-0162)', () => {
  /** Many compacted turns that each match the query, so the reserve alone cannot hold them all. */
  function many(policy: Record<string, unknown> = {}) {
    const builder = threadBuilder('room', { tenantId: 'tenant-1', policy });
    for (let index = 0; index < 16; index += 1)
      builder
        .user(`Locker note ${index}: locker ${index} is on floor ${index % 4}, code ${4000 + index}.`)
        .assistant('Noted.');
    builder.user('Which locker codes did I give you?');
    return builder.build().thread;
  }
  const budget = tokenBudget({
    maxInputTokens: 3000,
    outputReserveTokens: 0,
    safetyBufferTokens: 0,
    rehydrationReserveTokens: 60,
  });

  it('brings more back than the reserve holds when the request leaves room, and reports it', () => {
    const base = many();
    const plan = planOf(base, [summarize(base, ids(1, 32), { facts: [{ text: 'lockers' }] })]);
    const filled = renderPromptSync(renderInput('anthropic', base, plan, { budget }));
    const off = {
      ...base,
      policy: { ...base.policy, recall: { ...base.policy.recall, fillFreeRoom: false } },
    };
    const reserveOnly = renderPromptSync(renderInput('anthropic', off, plan, { budget }));
    expect(reserveOnly.tokens.recall).toBeLessThanOrEqual(60);
    expect(reserveOnly.report.recall.freeRoomTokens).toBe(0);
    expect(filled.tokens.recall).toBeGreaterThan(reserveOnly.tokens.recall);
    expect(filled.report.recall.recalled.length).toBeGreaterThan(reserveOnly.report.recall.recalled.length);
    expect(filled.report.recall.recalled.length).toBeLessThanOrEqual(base.policy.recall.freeRoomTopK);
    expect(filled.report.recall.freeRoomTokens).toBe(
      filled.tokens.recall - filled.report.recall.reserveAllowance,
    );
    expect(filled.tokens.total).toBeLessThanOrEqual(3000);
    // The plan's part of the request is the same: only the ephemeral block grew.
    expect(filled.tokens.messages).toBe(reserveOnly.tokens.messages);
    expect(filled.report.stablePrefixTokens).toBe(reserveOnly.report.stablePrefixTokens);
    // A measurement render asks for none, whatever the room.
    const measured = renderPromptSync(renderInput('anthropic', base, plan, { budget, recall: false }));
    expect(measured.tokens.recall).toBe(0);
    expect(measured.report.recall.attempted).toBe(false);
    expect(measured.tokens.messages).toBe(filled.tokens.messages);
  });
});

describe('the render memo keys plans by content, not by object (ADR-0120)', () => {
  it('reuses the recall index and the resolution when the plan store hands out a fresh copy per read', () => {
    const base = thread();
    const committed = compacted(base);
    const cache = createRenderCache();
    const first = renderPromptSync(renderInput('anthropic', base, structuredClone(committed), { cache }));
    expect(first.report.recall.recalled.length).toBeGreaterThan(0);
    expect(cache.stats.recallIndexBuilds).toBe(1);
    expect(cache.stats.resolutionBuilds).toBe(1);
    for (let read = 0; read < 3; read += 1) {
      // What the embedded plan store's getCurrent returns: a structuredClone on every call.
      const again = renderPromptSync(renderInput('anthropic', base, structuredClone(committed), { cache }));
      expect(again).toEqual(first);
    }
    expect(cache.stats.recallIndexBuilds).toBe(1);
    expect(cache.stats.resolutionBuilds).toBe(1);
  });

  it('never serves a candidate plan from the committed plan’s memo when they differ, even with the same stamp', () => {
    const base = thread();
    const committed = compacted(base);
    // Same threadId, version, basedOnSeq and createdAt: only the records differ.
    const candidate = {
      ...committed,
      drops: [],
      summarizations: [summarize(base, ids(1, 6), { facts: [] })],
    };
    const cache = createRenderCache();
    const query = 'The puppy named Biscuit?';
    renderPromptSync(renderInput('anthropic', base, committed, { cache, query }));
    const cached = renderPromptSync(renderInput('anthropic', base, candidate, { cache, query }));
    const cold = renderPromptSync(renderInput('anthropic', base, candidate, { query }));
    expect(cached).toEqual(cold);
    expect(cache.stats.recallIndexBuilds).toBe(2);
    // Back to the committed plan, as a copy: its memo entries are still there.
    renderPromptSync(renderInput('anthropic', base, structuredClone(committed), { cache, query }));
    expect(cache.stats.recallIndexBuilds).toBe(2);
  });
});

/* Random threads and plans, recall on with a query drawn from the thread's own words. */
const scenario = arbitraryThread({ maxTurns: 5 }).chain(({ events }) =>
  fc.integer({ min: 1, max: events.length }).chain((cut) => {
    const planned = foldThread(events.slice(0, cut));
    const thread = foldThread(events);
    const words = thread.messages
      .flatMap((message) => message.content)
      .flatMap((part) =>
        part.type === 'text' ? part.text.split(/\s+/).filter((word) => word.length > 3) : [],
      );
    return fc.record({
      thread: fc.constant(thread),
      plan: arbitraryCompactionPlan(planned, { maxRecords: 6 }),
      provider: fc.constantFrom<ProviderName>(...PROVIDERS),
      query:
        words.length > 0
          ? fc
              .subarray(words, { minLength: 1, maxLength: Math.min(4, words.length) })
              .map((some) => some.join(' '))
          : fc.constant('x'),
      reserve: fc.integer({ min: 0, max: 400 }),
      fraction: fc.double({ min: 0.3, max: 1.5, noNaN: true }),
    });
  }),
);

describe('render properties with recall on (fast-check)', () => {
  it('stays valid, within budget, honestly counted, with the recall block last and after the stable prefix', {
    timeout: 60_000,
  }, () => {
    let recalled = 0;
    fc.assert(
      fc.property(scenario, ({ thread: base, plan, provider, query, reserve, fraction }) => {
        // ADR-0111's placement (after the newest message); the anchored one: recall-anchor.unit.test.ts.
        const thread = {
          ...base,
          policy: {
            ...base.policy,
            recall: { ...base.policy.recall, minScore: 0, placement: 'end' as const },
          },
        };
        const roomy = renderPromptSync(
          renderInput(provider, thread, plan, { budget: tokenBudget({ maxInputTokens: 10_000_000 }), query }),
        );
        const maxInputTokens = Math.max(1, Math.floor(roomy.tokens.total * fraction));
        const budget = tokenBudget({
          maxInputTokens,
          outputReserveTokens: 0,
          safetyBufferTokens: 0,
          rehydrationReserveTokens: Math.min(reserve, maxInputTokens),
        });
        let result: ReturnType<typeof renderPromptSync>;
        try {
          result = renderPromptSync(renderInput(provider, thread, plan, { budget, query }));
        } catch (error) {
          expect(error).toBeInstanceOf(RenderBudgetExceededError);
          return;
        }
        expect(validateProviderRequest(provider, result.request).errors).toEqual([]);
        expect(result.tokens.total).toBeLessThanOrEqual(maxInputTokens);
        // Beyond the reserve only into free room under the ceiling, and reported as such (ADR-0162).
        expect(result.tokens.recall - result.report.recall.freeRoomTokens).toBeLessThanOrEqual(
          budget.rehydrationReserveTokens,
        );
        expect(result.report.recall.freeRoomTokens).toBeGreaterThanOrEqual(0);
        expect(independentCount(provider, result.request)).toBeLessThanOrEqual(result.tokens.total);
        const wire = wireMessages(result.request);
        const at = wire.findIndex((message) => JSON.stringify(message).includes(MARKER));
        if (result.tokens.recall > 0) {
          recalled += 1;
          expect(at).toBe(wire.length - 1);
          expect(at).toBeGreaterThanOrEqual(
            result.report.stablePrefixMessages - (provider === 'openai-chat' ? 1 : 0),
          );
        }
        expect(renderPromptSync(renderInput(provider, thread, plan, { budget, query }))).toEqual(result);
      }),
      { numRuns: 150 },
    );
    expect(recalled).toBeGreaterThan(10);
  });
});

describe('recall documents of a dialogue between named people', () => {
  it("finds a speaker's turn by the speaker's name and a reply by the question before it", () => {
    const builder = threadBuilder('dialogue', { tenantId: 'tenant-1' });
    const caroline = { metadata: { speaker: 'Caroline' } };
    const melanie = { metadata: { speaker: 'Melanie' } };
    builder.user('Thanks, Melanie! What did you take away from Becoming Nicole?', caroline);
    builder.assistant('It taught me self-acceptance and how to find support.', melanie);
    builder.user('So glad to hear it. I went hiking with friends yesterday.', caroline);
    builder.assistant('We love painting together lately, nature-inspired ones.', melanie);
    builder.user('What did Melanie take from the book Becoming Nicole?', caroline);
    const base = builder.build().thread;
    const plan = planOf(base, [summarize(base, ids(1, 4), { facts: [{ text: 'books' }] })]);
    const result = renderPromptSync(renderInput('anthropic', base, plan));
    const recalled = result.report.recall.recalled.map((hit) => hit.messageId);
    // Melanie's reply names neither her nor the book; her name and the question before it find it.
    expect(recalled).toContain('m2');
    expect(requestText(result.request)).toContain('Melanie: It taught me self-acceptance');
  });
});

describe('hits a summary block quotes whole (ADR-0366)', () => {
  const QUOTED = 'My locker code is 5433, gym on the second floor by the pool.';
  /** Two compacted turns about the locker; the summary quotes the first whole, the second not. */
  function lockerThread(quotedHits: 'show' | 'skip' | 'replace', extra: Record<string, unknown> = {}) {
    const builder = threadBuilder('quoted', {
      tenantId: 'tenant-1',
      // Every matching turn is a hit in an index of a few documents (BM25 scores are small there).
      policy: { recall: { quotedHits, minScore: 0, ...extra } } as Record<string, unknown>,
    });
    builder.user(QUOTED).assistant('Noted.');
    builder.user('The locker room at the gym was being painted last week.').assistant('Ugh.');
    builder.user('What was my locker code again?');
    const base = builder.build().thread;
    const plan = planOf(base, [
      summarize(base, ids(1, 4), {
        facts: [{ text: `user: ${QUOTED}` }, { text: 'the locker room was painted' }],
      }),
    ]);
    return { base, plan };
  }
  const recalled = (quotedHits: 'show' | 'skip' | 'replace', extra: Record<string, unknown> = {}) => {
    const { base, plan } = lockerThread(quotedHits, extra);
    const result = renderPromptSync(renderInput('anthropic', base, plan));
    return { ids: result.report.recall.recalled.map((hit) => hit.messageId), result };
  };

  it('brings a quoted message again under `show`, and leaves it out under `skip`, its words still in the request', () => {
    const shown = recalled('show');
    expect(shown.ids).toEqual(['m1', 'm3']);
    const skipped = recalled('skip');
    expect(skipped.ids).toEqual(['m3']);
    expect(skipped.result.report.recall.tokens).toBeLessThan(shown.result.report.recall.tokens);
    // Strict evidence of the quoted turn holds either way: its whole text is in the summary.
    expect(requestText(skipped.result.request)).toContain(QUOTED);
  });

  it('lets another hit take the quoted one’s place under `replace`, and not under `skip`', () => {
    const one = { topK: 1, fillFreeRoom: false };
    expect(recalled('show', one).ids).toEqual(['m1']);
    expect(recalled('skip', one).ids).toEqual([]);
    expect(recalled('replace', one).ids).toEqual(['m3']);
  });

  it('never takes a short reply as quoted: it may occur inside any summary line', () => {
    const builder = threadBuilder('short', {
      tenantId: 'tenant-1',
      policy: { recall: { quotedHits: 'skip', minScore: 0 } } as Record<string, unknown>,
    });
    builder.user('Locker 12 it is.').assistant('Noted.');
    builder.user('What locker was it?');
    const base = builder.build().thread;
    const plan = planOf(base, [summarize(base, ids(1, 2), { facts: [{ text: 'user: Locker 12 it is.' }] })]);
    const result = renderPromptSync(renderInput('anthropic', base, plan));
    expect(result.report.recall.recalled.map((hit) => hit.messageId)).toEqual(['m1']);
  });
});

describe('quoted hits, property (ADR-0366)', () => {
  const WORDS = ['locker', 'puppy', 'garden', 'concert', 'painting', 'hiking', 'recipe', 'museum'];
  it('under `skip` the block shows what `show` shows less the quoted messages, and their words stay in the request', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...WORDS), fc.boolean()), {
          minLength: 2,
          maxLength: 8,
        }),
        fc.constantFrom(...WORDS),
        (turns, asked) => {
          const build = (quotedHits: 'show' | 'skip') => {
            const builder = threadBuilder('quoted-property', {
              tenantId: 'tenant-1',
              policy: { recall: { quotedHits, minScore: 0 } } as Record<string, unknown>,
            });
            for (const [index, [first, second]] of turns.entries()) {
              builder
                .user(`Turn ${index}: we talked about the ${first} and then the ${second} for a long while.`)
                .assistant('Noted.');
            }
            builder.user(`What about the ${asked}?`);
            const base = builder.build().thread;
            const compactedIds = ids(1, turns.length * 2);
            const quoted = base.messages.filter(
              (message, index) => index < turns.length * 2 && message.role === 'user' && turns[index / 2]![2],
            );
            const plan = planOf(base, [
              summarize(base, compactedIds, {
                facts: [
                  { text: 'what was said' },
                  ...quoted.map((message) => ({
                    text: `user: ${message.content[0]!.type === 'text' ? message.content[0]!.text : ''}`,
                  })),
                ],
              }),
            ]);
            const result = renderPromptSync(renderInput('anthropic', base, plan));
            return { result, quoted: new Set(quoted.map((message) => message.id)), base };
          };
          const shown = build('show');
          const skipped = build('skip');
          const shownIds = shown.result.report.recall.recalled.map((hit) => hit.messageId);
          expect(skipped.result.report.recall.recalled.map((hit) => hit.messageId)).toEqual(
            shownIds.filter((id) => !skipped.quoted.has(id)),
          );
          const text = requestText(skipped.result.request);
          for (const message of skipped.base.messages) {
            if (!skipped.quoted.has(message.id)) continue;
            const said = message.content[0]!.type === 'text' ? message.content[0]!.text : '';
            expect(text).toContain(said);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
