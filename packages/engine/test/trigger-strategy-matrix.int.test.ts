import {
  type CompactionPolicyInput,
  fixedClock,
  normalizePlan,
  type SummarizeRequest,
  type Summarizer,
  type TriggerConfig,
} from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/index.js';
import { type EmbeddedStores, withEmbeddedStores } from './support.js';

/**
 * ADR-0105: a trigger that fires runs the thread's mode, even when the prompt is far within the
 * planner's target (a 200k window leaves a target near 151k; these threads hold a few thousand
 * tokens). On main every pair below answered `not_needed`.
 */
const clock = fixedClock('2025-06-01T00:00:00.000Z');
const TENANT = 'tenant-1';
const TURNS = 25;

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

async function stores(): Promise<EmbeddedStores> {
  const { stores: created, cleanup } = await withEmbeddedStores();
  cleanups.push(cleanup);
  return created;
}

function recording(inner: Summarizer): Summarizer & { requests: SummarizeRequest[] } {
  const requests: SummarizeRequest[] = [];
  return {
    ...inner,
    requests,
    summarize(request) {
      requests.push(request);
      return inner.summarize(request);
    },
  };
}

/** 25 turns of two messages each, on a 200k window, under `policy`. */
async function conversation(threadId: string, policy: CompactionPolicyInput, turns = TURNS) {
  const store = await stores();
  let builder = threadBuilder(threadId, { contextWindow: 200_000, policy: policy as never });
  for (let turn = 1; turn <= turns; turn += 1) {
    builder = builder
      .user(`Turn ${turn}: please look at module ${turn} and tell me what changed in it since last week.`)
      .assistant(
        `Module ${turn} changed its retry policy to ${turn} attempts and renamed handler_${turn}. `.repeat(4),
      );
  }
  await store.events.append(TENANT, threadId, asInputs(builder.build().events));
  return store;
}

const TRIGGERS: Record<string, TriggerConfig> = {
  'turn count (turns > 20)': { kind: 'turns', maxTurns: 20 },
  'token count (>= 2,000)': { kind: 'tokens', threshold: 2_000 },
  'any-of (turns > 100 or tokens >= 2,000)': {
    kind: 'any',
    triggers: [
      { kind: 'turns', maxTurns: 100 },
      { kind: 'tokens', threshold: 2_000 },
    ],
  },
  'all-of (turns > 20 and tokens >= 2,000)': {
    kind: 'all',
    triggers: [
      { kind: 'turns', maxTurns: 20 },
      { kind: 'tokens', threshold: 2_000 },
    ],
  },
};

type Visible = { real: number; summaries: number };

const STRATEGIES: Record<
  string,
  { policy: CompactionPolicyInput; expect: (visible: Visible, tokensAfter: number) => void }
> = {
  'sliding window (10 events)': {
    policy: { mode: { kind: 'sliding-window', maxEvents: 10 } },
    expect: (visible) => expect(visible.real).toBe(10),
  },
  'turn window (5 turns)': {
    policy: { mode: { kind: 'turn-window', maxTurns: 5 } },
    expect: (visible) => expect(visible.real).toBe(10),
  },
  'token budget (1,000 tokens)': {
    policy: { mode: { kind: 'token-budget', maxTokens: 1_000 } },
    expect: (visible, tokensAfter) => {
      expect(tokensAfter).toBeLessThanOrEqual(1_000);
      expect(visible.real).toBeGreaterThan(0);
    },
  },
  'recursive summarization (keep 10, overlap 2)': {
    policy: { mode: { kind: 'recursive-summarization', maxEventsToKeep: 10, overlapSize: 2 } },
    expect: (visible) => {
      expect(visible.real).toBe(10);
      expect(visible.summaries).toBe(1);
    },
  },
  ladder: {
    policy: { mode: { kind: 'ladder' }, keepRecentTurns: 2, keepRecentTokens: 300, clearAtLeastTokens: 500 },
    expect: (visible) => expect(visible.summaries + (TURNS * 2 - visible.real)).toBeGreaterThan(0),
  },
};

describe('a firing trigger runs its strategy through engine.check (ADR-0105)', () => {
  for (const [triggerName, trigger] of Object.entries(TRIGGERS)) {
    for (const [strategyName, strategy] of Object.entries(STRATEGIES)) {
      it(`${triggerName} × ${strategyName}: compacts once, then not again without new events`, async () => {
        const threadId = 'matrix';
        const store = await conversation(threadId, { ...strategy.policy, trigger });
        const summarizer = recording(createExtractiveSummarizer());
        const engine = createCompactionEngine({ ...store, summarizer, clock });

        const first = await engine.check(TENANT, threadId);
        expect(first.trigger.fire).toBe(true);
        expect(first.planner!.tokensBefore).toBeLessThan(first.planner!.targetTokens);
        expect(first.commit).toEqual({ status: 'committed', version: 1 });
        expect(first.planner!.tokensAfter).toBeLessThan(first.planner!.tokensBefore);

        const { plan } = await store.plans.getCurrent(TENANT, threadId);
        const normalized = normalizePlan(plan!);
        const messages = (await store.events.readAll(TENANT, threadId)).filter(
          (event) => event.type === 'message.appended',
        );
        const visible = {
          real: messages.filter((event) => !normalized.actions.has(event.message.id)).length,
          summaries: normalized.records.filter((record) => record.kind === 'summarize').length,
        };
        strategy.expect(visible, first.planner!.tokensAfter);
        if (strategyName.startsWith('recursive')) {
          const request = summarizer.requests[0]!;
          // The archived span plus the first two events of the active window, as context.
          expect(request.messages.length).toBe(request.span.messageIds.length + 2);
        }

        const again = await engine.check(TENANT, threadId);
        expect(again.commit).toEqual({ status: 'not_needed' });
        expect((await store.plans.getCurrent(TENANT, threadId)).version).toBe(1);
      });
    }
  }
});

describe('no compaction loops when a trigger keeps firing', () => {
  it('a strategy that archives nothing commits nothing, check after check', async () => {
    const store = await conversation('idle', {
      trigger: { kind: 'tokens', threshold: 100 },
      mode: { kind: 'token-budget', maxTokens: 150_000 },
    });
    const engine = createCompactionEngine({ ...store, summarizer: createExtractiveSummarizer(), clock });
    for (let round = 0; round < 3; round += 1) {
      const result = await engine.check(TENANT, 'idle');
      expect(result.trigger.fire).toBe(true);
      expect(result.commit).toEqual({ status: 'not_needed' });
    }
    expect((await store.plans.getCurrent(TENANT, 'idle')).version).toBe(0);
  });

  it('a summary larger than what it replaces is not committed', async () => {
    const store = await conversation(
      'bloat',
      {
        trigger: { kind: 'turns', maxTurns: 1 },
        mode: { kind: 'recursive-summarization', maxEventsToKeep: 2, overlapSize: 0 },
      },
      3,
    );
    const extractive = createExtractiveSummarizer();
    const bloating: Summarizer = {
      ...extractive,
      async summarize(request) {
        const result = await extractive.summarize(request);
        const facts = Array.from({ length: 60 }, (_, index) => ({
          text: `fact ${index}: module ${index} keeps its retry policy and every handler it had before`,
          pinned: false,
        }));
        return { ...result, summary: { ...result.summary, facts: [...result.summary.facts, ...facts] } };
      },
    };
    const engine = createCompactionEngine({ ...store, summarizer: bloating, clock });
    const result = await engine.check(TENANT, 'bloat');
    expect(result.trigger.fire).toBe(true);
    expect(result.planner!.tokensAfter).toBeGreaterThanOrEqual(result.planner!.tokensBefore);
    expect(result.commit).toEqual({ status: 'not_needed' });
    expect((await store.plans.getCurrent(TENANT, 'bloat')).version).toBe(0);
  });

  it('the ladder under a firing token trigger compacts once per thread version, not on every check', async () => {
    const store = await conversation('erode', {
      trigger: { kind: 'tokens', threshold: 100 },
      keepRecentTurns: 1,
      keepRecentTokens: 100,
      clearAtLeastTokens: 200,
    });
    const engine = createCompactionEngine({ ...store, summarizer: createExtractiveSummarizer(), clock });
    expect((await engine.check(TENANT, 'erode')).commit).toEqual({ status: 'committed', version: 1 });
    for (let round = 0; round < 3; round += 1) {
      expect((await engine.check(TENANT, 'erode')).commit).toEqual({ status: 'not_needed' });
    }
    expect((await store.plans.getCurrent(TENANT, 'erode')).version).toBe(1);
  });
});
