import { threadBuilder } from '@compactor/testkit/thread-builder';
import { describe, expect, it } from 'vitest';
import {
  type ArtifactMetadata,
  type ArtifactStore,
  type CompactionPlan,
  type LifecycleEvent,
  type Message,
  normalizePlan,
  type PlannerInput,
  planCompaction,
  renderSummary,
  type Summarizer,
  structuredSummarySchema,
  type Thread,
  type ThreadMessage,
} from '../src/index.js';
import {
  callsBeforeNextCompaction,
  chooseCompactionDepth,
  costPerCall,
  stepPays,
} from '../src/planner/cache-cost.js';

/** A deterministic stand-in tokenizer: one token per four characters. */
const countText = (text: string) => Math.ceil(text.length / 4);
const countMessage = (message: Pick<Message, 'content'>) =>
  4 +
  message.content.reduce((total, part) => {
    if (part.type === 'text' || part.type === 'reasoning') return total + countText(part.text);
    if (part.type === 'tool_call') return total + countText(part.name + JSON.stringify(part.input));
    if (part.type === 'tool_result')
      return (
        total + countText(typeof part.content === 'string' ? part.content : JSON.stringify(part.content))
      );
    return total + 100;
  }, 0);

/**
 * What the prompt costs under a plan, applying ADR-0018's replacement rules: one synthetic
 * message per summarized or externalized span, a placeholder per cleared result, nothing for drops.
 */
function measureFor(thread: Thread) {
  return (plan: CompactionPlan) => {
    const normalized = normalizePlan(plan);
    const seen = new Set<unknown>();
    let total = 0;
    for (const message of thread.messages) {
      const planned = normalized.actions.get(message.id);
      if (!planned) total += countMessage(message);
      else if (planned.record.kind === 'clear') total += 4 + 10;
      else if (planned.record.kind === 'drop' || planned.record.kind === 'abridge') continue;
      else if (!seen.has(planned.record)) {
        seen.add(planned.record);
        total += 4 + countText(renderSummary(planned.record.summary)) + 20;
      }
    }
    return total;
  };
}

function recordingSummarizer(): Summarizer & { calls: number; fail: boolean } {
  const summarizer = {
    id: 'test-summarizer',
    modelId: 'test',
    promptVersion: '1',
    calls: 0,
    fail: false,
    async summarize(request: { messages: readonly ThreadMessage[]; previousSummary?: unknown }) {
      summarizer.calls += 1;
      if (summarizer.fail) throw new Error('summarizer is down');
      const firstUser = request.messages.find((message) => message.role === 'user');
      const text = firstUser?.content[0]?.type === 'text' ? firstUser.content[0].text : 'nothing';
      return {
        summary: structuredSummarySchema.parse({ facts: [{ text: `asked: ${text.slice(0, 40)}` }] }),
        summarizerId: 'test-summarizer',
        modelId: 'test',
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0.001,
        via: 'llm' as const,
      };
    },
  };
  return summarizer;
}

function memoryArtifacts(): ArtifactStore & { contents: Map<string, string> } {
  const contents = new Map<string, string>();
  return {
    contents,
    async put(content, metadata) {
      const artifactId = `art_${contents.size.toString(16).padStart(8, '0')}`;
      contents.set(artifactId, content);
      const stored: ArtifactMetadata = {
        ...metadata,
        artifactId,
        sha256: '0'.repeat(64),
        sizeBytes: content.length,
        createdAt: '2025-01-01T00:00:00.000Z',
        expiresAt: undefined,
      };
      return stored;
    },
    async getMetadata() {
      return null;
    },
    async retrieve() {
      return { status: 'not_found' };
    },
    async listAudit() {
      return [];
    },
  };
}

/** A coding-agent-like thread: each turn reads a big file and runs a command. */
function longThread(turns: number, policy: Record<string, unknown> = {}) {
  const builder = threadBuilder('t1', {
    policy: { keepRecentTurns: 2, keepRecentTokens: 0, clearAtLeastTokens: 100, ...policy },
  });
  builder.user('Never delete production data. Port the parser, turn 1.', { pinned: false });
  for (let turn = 1; turn <= turns; turn += 1) {
    if (turn > 1) builder.user(`Continue with step ${turn}.`);
    builder.assistant(`Reading file ${turn}.`, {
      toolCalls: [{ id: `read${turn}`, name: 'read', input: { path: `src/f${turn}.ts` } }],
    });
    builder.toolResult(`read${turn}`, `export const v${turn} = 1;\n`.repeat(80), {
      durability: 'replayable',
    });
    builder.assistant(undefined, {
      toolCalls: [{ id: `search${turn}`, name: 'web_search', input: { q: `q${turn}` } }],
    });
    builder.toolResult(`search${turn}`, `result ${turn} `.repeat(600), {
      durability: 'non_replayable',
      keyFields: { query: `q${turn}` },
    });
    builder.assistant(`Done with step ${turn}.`);
  }
  return builder.build().thread;
}

function inputFor(thread: Thread, overrides: Partial<PlannerInput> = {}): PlannerInput {
  return {
    thread,
    currentPlan: null,
    targetTokens: 3000,
    measure: measureFor(thread),
    countMessage,
    countText,
    summarizer: recordingSummarizer(),
    now: '2025-01-02T00:00:00.000Z',
    ...overrides,
  };
}

describe('planCompaction', () => {
  it('leaves a thread under its target unchanged', async () => {
    const thread = longThread(2);
    const outcome = await planCompaction(inputFor(thread, { targetTokens: 1_000_000 }));
    expect(outcome.status).toBe('unchanged');
    expect(outcome.added).toEqual([]);
  });

  it('does nothing when auto-compaction is off, but compacts on a manual request', async () => {
    const thread = longThread(8, { autoCompact: false });
    expect((await planCompaction(inputFor(thread))).status).toBe('disabled');
    const manual = await planCompaction(
      inputFor(thread, { manual: { instructions: 'focus on the parser' } }),
    );
    expect(manual.status).toBe('compacted');
  });

  it('climbs the ladder in order and stops once the target is met', async () => {
    const thread = longThread(8);
    const artifacts = memoryArtifacts();
    const outcome = await planCompaction(inputFor(thread, { artifactStore: artifacts }));
    expect(outcome.status).toBe('compacted');
    expect(outcome.tokensAfter).toBeLessThanOrEqual(3000);
    expect(outcome.rungsUsed[0]).toBe('externalize');
    // Externalize runs before summarize: the web results went to the store first.
    expect(artifacts.contents.size).toBeGreaterThan(0);
    expect(measureFor(thread)(outcome.plan)).toBe(outcome.tokensAfter);
  });

  it('never touches the protected tail or pinned messages, and never orphans a tool call', async () => {
    const builder = threadBuilder('t2', {
      policy: { keepRecentTurns: 2, keepRecentTokens: 0, clearAtLeastTokens: 0 },
    });
    builder.user('Always answer in French.', { pinned: true });
    for (let turn = 1; turn <= 10; turn += 1) {
      builder.user(`step ${turn}`);
      builder.assistant('x', { toolCalls: [{ id: `c${turn}`, name: 'ls', input: {} }] });
      builder.toolResult(`c${turn}`, 'file '.repeat(300), { durability: 'ephemeral' });
    }
    const { thread } = builder.build();
    const outcome = await planCompaction(inputFor(thread, { targetTokens: 2000 }));
    expect(outcome.status).toBe('compacted');
    const touched = new Set(normalizePlan(outcome.plan).actions.keys());
    expect(touched.has('m1')).toBe(false);
    const tail = thread.messages.filter((message) => message.turn >= thread.messages.at(-1)!.turn - 1);
    for (const message of tail) expect(touched.has(message.id)).toBe(false);
    for (const record of normalizePlan(outcome.plan).records) {
      if (record.kind !== 'summarize' && record.kind !== 'drop') continue;
      const ids = new Set(record.span.messageIds);
      for (const message of thread.messages) {
        for (const part of message.content) {
          if (part.type !== 'tool_result') continue;
          const call = thread.messages.find((candidate) =>
            candidate.content.some(
              (callPart) => callPart.type === 'tool_call' && callPart.id === part.toolCallId,
            ),
          )!;
          expect(ids.has(message.id)).toBe(ids.has(call.id));
        }
      }
    }
  });

  it.each([
    // Split-turn summaries (ADR-0152): the older part of the turn becomes a summary block.
    { splitTurnSummaries: true, rungs: ['summarize'] },
    // Without them, only the tool results can go.
    { splitTurnSummaries: false, rungs: ['clear'] },
  ])(
    'lets a long running turn shed its older part while keeping its most recent tokens (%o)',
    async ({ splitTurnSummaries, rungs }) => {
      const builder = threadBuilder('t4', {
        policy: { keepRecentTurns: 3, keepRecentTokens: 800, clearAtLeastTokens: 0, splitTurnSummaries },
      });
      builder.user('Fix every failing test.');
      for (let step = 1; step <= 30; step += 1) {
        builder.assistant(undefined, { toolCalls: [{ id: `ls${step}`, name: 'ls', input: { step } }] });
        builder.toolResult(`ls${step}`, 'entry '.repeat(100), { durability: 'ephemeral' });
      }
      const { thread } = builder.build();
      const outcome = await planCompaction(inputFor(thread, { targetTokens: 2500 }));
      expect(outcome.status).toBe('compacted');
      expect(outcome.rungsUsed).toEqual(rungs);
      const touched = new Set(normalizePlan(outcome.plan).actions.keys());
      // The protected tail is the longest suffix within keepRecentTokens (core's protectedTail).
      let recent = 0;
      let untouchedSuffix = 0;
      for (const message of [...thread.messages].reverse()) {
        if (recent + countMessage(message) > 800) break;
        recent += countMessage(message);
        expect(touched.has(message.id)).toBe(false);
        untouchedSuffix += 1;
      }
      expect(untouchedSuffix).toBeGreaterThanOrEqual(8);
      expect(touched.has(thread.messages[0]!.id)).toBe(false);
    },
  );

  it('chains summaries (rolling composition): the second round replaces the first and keeps its facts', async () => {
    const thread = longThread(10, { summaryComposition: 'rolling', cacheCostModel: false });
    const first = await planCompaction(
      inputFor(thread, {
        targetTokens: 6000,
        policy: {
          ...thread.policy,
          strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
        },
      }),
    );
    expect(first.plan.summarizations).toHaveLength(1);
    const second = await planCompaction(
      inputFor(thread, {
        currentPlan: first.plan,
        targetTokens: 2500,
        policy: {
          ...thread.policy,
          strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
        },
      }),
    );
    expect(second.plan.summarizations).toHaveLength(1);
    const [chained] = second.plan.summarizations;
    expect(chained!.round).toBe(2);
    for (const fact of first.plan.summarizations[0]!.summary.facts)
      expect(chained!.summary.facts).toContainEqual(fact);
    expect(chained!.span.messageIds.slice(0, first.plan.summarizations[0]!.span.messageIds.length)).toEqual(
      first.plan.summarizations[0]!.span.messageIds,
    );
  });

  it('escalates past a failing summarizer instead of retrying it', async () => {
    const thread = longThread(8);
    const summarizer = recordingSummarizer();
    summarizer.fail = true;
    const events: LifecycleEvent[] = [];
    const outcome = await planCompaction(
      inputFor(thread, {
        summarizer,
        lifecycle: { append: async (event) => void events.push(event), list: async () => events },
      }),
    );
    expect(summarizer.calls).toBe(1);
    expect(outcome.rungsUsed).not.toContain('summarize');
    expect(outcome.status).toBe('compacted');
    expect(events.map((event) => event.name)).toContain('compaction_failed');
    expect(events[0]!.name).toBe('compaction_check_started');
    expect(events.at(-1)!.name).toBe('compaction_completed');
  });

  it('frees at least clearAtLeastTokens so a thread at its threshold is not compacted on every append', async () => {
    const thread = longThread(8, { clearAtLeastTokens: 2000 });
    const measure = measureFor(thread);
    const before = measure({ ...(await planCompaction(inputFor(thread, { targetTokens: 1e9 }))).plan });
    const outcome = await planCompaction(inputFor(thread, { targetTokens: before - 1 }));
    expect(outcome.tokensBefore - outcome.tokensAfter).toBeGreaterThanOrEqual(2000);
  });

  it('reports a target it cannot reach instead of looping', async () => {
    const thread = longThread(3);
    const outcome = await planCompaction(inputFor(thread, { targetTokens: 10 }));
    expect(outcome.status).toBe('target_unreachable');
    expect(outcome.tokensAfter).toBeGreaterThan(10);
  });

  it('skips externalize and drop in a turn where rehydration happened', async () => {
    const thread = longThread(8);
    const outcome = await planCompaction(
      inputFor(thread, { artifactStore: memoryArtifacts(), rehydrationHappened: true, targetTokens: 500 }),
    );
    expect(outcome.rungsUsed).not.toContain('externalize');
    expect(outcome.rungsUsed).not.toContain('drop');
  });

  it('clears replayable results only when the source provably has not changed', async () => {
    const builder = threadBuilder('t3', {
      policy: {
        keepRecentTurns: 1,
        keepRecentTokens: 0,
        clearAtLeastTokens: 0,
        strategies: { abridge: false, externalize: false, summarize: false, clear: true, drop: false },
      },
    });
    builder.user('go');
    builder.assistant('x', {
      toolCalls: [
        { id: 'a', name: 'read', input: {} },
        { id: 'b', name: 'read', input: {} },
      ],
    });
    builder.toolResult('a', 'A'.repeat(2000), {
      durability: 'replayable',
      determinism: { contentHash: 'h1' },
    });
    builder.toolResult('b', 'B'.repeat(2000), {
      durability: 'replayable',
      determinism: { contentHash: 'h2' },
    });
    builder.user('next');
    builder.assistant('ok');
    const { thread } = builder.build();
    const outcome = await planCompaction(
      inputFor(thread, {
        targetTokens: 50,
        currentDeterminism: (envelope) =>
          envelope.toolCallId === 'a' ? { contentHash: 'h1' } : { contentHash: 'changed' },
      }),
    );
    const cleared = outcome.plan.clearings.flatMap((record) =>
      record.preserved.map((entry) => entry.toolCallId),
    );
    expect(cleared).toEqual(['a']);
    const unknown = await planCompaction(inputFor(thread, { targetTokens: 50 }));
    expect(unknown.plan.clearings).toEqual([]);
  });
});

describe("the user's own words (ADR-0110)", () => {
  const instructions = [
    'Reply in Swedish from here on.',
    'Keep your answers under 80 words.',
    'Call me Oswin.',
    'Our staging server is called basalt-42.',
  ];

  /** A thread of `turns` turns; the instructions are said early, inside otherwise ordinary requests. */
  function chattyThread(turns: number, policy: Record<string, unknown>) {
    const builder = threadBuilder('t-user', {
      policy: { keepRecentTurns: 2, keepRecentTokens: 0, clearAtLeastTokens: 100, ...policy },
    });
    for (let turn = 1; turn <= turns; turn += 1) {
      const said = instructions[turn - 1];
      builder.user(
        said ? `Look at module ${turn}. ${said}` : `Look at module ${turn} and tell me what it does.`,
      );
      builder.assistant(`Reading module ${turn}.`, {
        toolCalls: [{ id: `read${turn}`, name: 'read', input: { path: `src/m${turn}.ts` } }],
      });
      builder.toolResult(`read${turn}`, `export const m${turn} = 1;\n`.repeat(120), {
        durability: 'replayable',
      });
      builder.assistant(`Module ${turn} exports a constant. `.repeat(20));
    }
    return builder.build().thread;
  }

  it('keeps every instruction-carrying user message out of every record over 10 chained compactions', async () => {
    let plan: CompactionPlan | null = null;
    let compactions = 0;
    for (let round = 1; round <= 10; round += 1) {
      // keepUserTokens 0: only the instruction recogniser keeps anything, so this tests it, not the share.
      const thread = chattyThread(6 + round * 4, { keepUserTokens: 0 });
      const outcome = await planCompaction(inputFor(thread, { currentPlan: plan, targetTokens: 2500 }));
      if (outcome.plan) {
        plan = outcome.plan;
        compactions += 1;
      }
      const touched = new Set(plan ? normalizePlan(plan).actions.keys() : []);
      for (const message of thread.messages) {
        const text = message.content[0]?.type === 'text' ? message.content[0].text : '';
        const carries = instructions.some((instruction) => text.includes(instruction));
        if (message.role === 'user' && carries) expect(touched.has(message.id)).toBe(false);
      }
    }
    expect(compactions).toBeGreaterThanOrEqual(5);
    // The plan did compact plain requests: the recogniser, not a blanket rule, kept the others.
    const touched = new Set(normalizePlan(plan!).actions.keys());
    const thread = chattyThread(46, { keepUserTokens: 0 });
    const plain = thread.messages.filter(
      (message) => message.role === 'user' && message.turn > instructions.length && touched.has(message.id),
    );
    expect(plain.length).toBeGreaterThan(0);
  });

  it('keeps the newest user messages within keepUserTokens, newest first, and compacts older ones', async () => {
    const thread = chattyThread(20, { keepUserTokens: 60 });
    const outcome = await planCompaction(inputFor(thread, { targetTokens: 2500 }));
    const touched = new Set(normalizePlan(outcome.plan!).actions.keys());
    const users = thread.messages.filter((message) => message.role === 'user');
    const plainOld = users.filter(
      (message) => !instructions.some((instruction) => JSON.stringify(message.content).includes(instruction)),
    );
    // Each plain request costs 4 + ~12 tokens: the newest few fit 60 tokens and stay, the oldest plain ones go.
    expect(touched.has(users.at(-1)!.id)).toBe(false);
    expect(touched.has(users.at(-4)!.id)).toBe(false);
    expect(touched.has(plainOld[0]!.id)).toBe(true);
  });

  it('is off with keepUserMessages false: instructions are compacted like anything else', async () => {
    const thread = chattyThread(20, { keepUserMessages: false });
    const outcome = await planCompaction(inputFor(thread, { targetTokens: 2500 }));
    const touched = new Set(normalizePlan(outcome.plan!).actions.keys());
    expect(touched.has(thread.messages.find((message) => message.role === 'user')!.id)).toBe(true);
  });
});

describe('the cache cost model (ADR-0151)', () => {
  const summarizeOnly = { externalize: false, summarize: true, clear: false, drop: false };

  it('compacts down to the low-water mark when the model prices it cheaper, and only to the target when off', async () => {
    const thread = longThread(12, { strategies: summarizeOnly, clearAtLeastTokens: 0 });
    const events: LifecycleEvent[] = [];
    const lifecycle = {
      append: async (event: LifecycleEvent) => {
        events.push(event);
      },
      list: async () => [],
    };
    const deep = await planCompaction(
      inputFor(thread, { targetTokens: 8000, lifecycle: lifecycle as never }),
    );
    expect(deep.status).toBe('compacted');
    expect(deep.tokensAfter).toBeLessThanOrEqual(Math.floor(8000 * 0.7));
    const completed = events.find((event) => event.name === 'compaction_completed')!;
    const model = completed.details!.cacheCostModel as {
      stopAt: number;
      candidates: { stopAt: number; costPerCall: number }[];
    };
    expect(model.stopAt).toBe(5600);
    expect(model.candidates[1]!.costPerCall).toBeLessThan(model.candidates[0]!.costPerCall);
    const shallow = await planCompaction(
      inputFor(thread, { targetTokens: 8000, policy: { ...thread.policy, cacheCostModel: false } }),
    );
    expect(shallow.tokensAfter).toBeLessThanOrEqual(8000);
    expect(shallow.tokensAfter).toBeGreaterThan(deep.tokensAfter);
  });

  it('never drops content to go below the target', async () => {
    const thread = longThread(12, {
      strategies: { abridge: false, externalize: false, summarize: false, clear: false, drop: true },
      clearAtLeastTokens: 0,
    });
    const outcome = await planCompaction(inputFor(thread, { targetTokens: 8000 }));
    expect(outcome.status).toBe('compacted');
    const without = await planCompaction(
      inputFor(thread, { targetTokens: 8000, policy: { ...thread.policy, cacheCostModel: false } }),
    );
    // The drop rung stops where it would without the model: the target reached, nothing more dropped.
    expect(outcome.plan.drops).toEqual(without.plan.drops);
  });

  it('prices steps: a clear that rewrites a long cached stretch for a few tokens does not pay', () => {
    expect(stepPays({ tokensFreed: 2000, extraRewrittenTokens: 0, calls: 1 })).toBe(true);
    expect(stepPays({ tokensFreed: 100, extraRewrittenTokens: 20_000, calls: 5 })).toBe(false);
    expect(stepPays({ tokensFreed: 4000, extraRewrittenTokens: 20_000, calls: 60 })).toBe(true);
    // Deeper costs the same rewrite and buys more calls before the next compaction.
    const cycle = { highWater: 60_000, growthPerCall: 1500, stablePrefix: 2000 };
    expect(costPerCall({ ...cycle, low: 42_000 })).toBeLessThan(costPerCall({ ...cycle, low: 58_000 }));
    expect(callsBeforeNextCompaction({ ...cycle, low: 42_000 })).toBe(12);
    expect(chooseCompactionDepth([58_000, 42_000], cycle).stopAt).toBe(42_000);
    // Equal prices keep the shallower stop.
    expect(chooseCompactionDepth([50_000, 50_000], cycle).candidates).toHaveLength(2);
  });
});

describe('split-turn summaries (ADR-0152)', () => {
  function longRunningTurn(calls: number, policy: Record<string, unknown> = {}) {
    const builder = threadBuilder('t-long', {
      policy: {
        keepRecentTurns: 1,
        keepRecentTokens: 1500,
        clearAtLeastTokens: 0,
        strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
        splitTurnSummaries: true,
        ...policy,
      },
    });
    builder.user('Migrate every module to the new logger.');
    for (let call = 1; call <= calls; call += 1) {
      builder.assistant(`Step ${call}.`, {
        toolCalls: [{ id: `c${call}`, name: 'edit', input: { path: `src/m${call}.ts` } }],
      });
      builder.toolResult(`c${call}`, `patched m${call} `.repeat(60), { durability: 'replayable' });
    }
    return builder.build().thread;
  }

  it('summarizes the older part of one long running turn, never splitting a call from its result', async () => {
    const thread = longRunningTurn(60);
    const outcome = await planCompaction(inputFor(thread, { targetTokens: 6000 }));
    expect(outcome.status).toBe('compacted');
    expect(outcome.tokensAfter).toBeLessThanOrEqual(6000);
    const [block] = outcome.plan.summarizations;
    expect(block).toBeDefined();
    const summarized = new Set(block!.span.messageIds);
    // The request itself is the person's own words: kept; the newest exchanges are the tail.
    expect(summarized.has(thread.messages[0]!.id)).toBe(false);
    expect(summarized.has(thread.messages.at(-1)!.id)).toBe(false);
    // Every call and its result are on the same side.
    for (let call = 1; call <= 60; call += 1) {
      const callMessage = thread.messages.find((message) =>
        message.content.some((part) => part.type === 'tool_call' && part.id === `c${call}`),
      )!;
      const resultMessage = thread.messages.find((message) =>
        message.content.some((part) => part.type === 'tool_result' && part.toolCallId === `c${call}`),
      )!;
      expect(summarized.has(callMessage.id)).toBe(summarized.has(resultMessage.id));
    }
  });

  it('without split-turn summaries the same turn cannot be brought under the target', async () => {
    const thread = longRunningTurn(60, { splitTurnSummaries: false });
    const outcome = await planCompaction(inputFor(thread, { targetTokens: 6000 }));
    expect(outcome.status).toBe('target_unreachable');
  });

  it('a later round appends a block after the first inside the same turn', async () => {
    const first = await planCompaction(inputFor(longRunningTurn(60), { targetTokens: 6000 }));
    const thread = longRunningTurn(90);
    const second = await planCompaction(inputFor(thread, { currentPlan: first.plan, targetTokens: 6000 }));
    expect(second.status).toBe('compacted');
    expect(second.plan.summarizations[0]).toEqual(first.plan.summarizations[0]);
    expect(second.plan.summarizations).toHaveLength(2);
  });
});
