/**
 * The default policy wired through the engine (ADR-0190–0192): plan commits in the thread's log (the log alone
 * rebuilds the plan store), the summary cache keyed by the thread's policy version, the registered
 * system prompt and tools in the worker's target, and rehydration reported through the lifecycle log.
 */
import {
  availableForMessages,
  type EventInput,
  type EventStore,
  fixedClock,
  foldThread,
  plansFromLog,
  type SummarizeRequest,
  type Summarizer,
} from '@compactor/core';
import { createCachedSummarizer, createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs, codingSession } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCompactionEngine, threadBudget } from '../src/index.js';
import { type EmbeddedStores, withEmbeddedStores } from './support.js';

// Real stores and the real tokenizer on two shared cores: allow for load, never assert on time.
vi.setConfig({ testTimeout: 60_000 });

const TENANT = 'tenant-1';
const clock = fixedClock('2025-06-01T00:00:00.000Z');
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

function barrierSummarizer(inner: Summarizer, parties: number): Summarizer {
  let waiting = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    ...inner,
    async summarize(request: SummarizeRequest) {
      waiting += 1;
      if (waiting >= parties) release();
      await gate;
      return inner.summarize(request);
    },
  };
}

/** A summarizer that counts the calls that reach it. */
function countingSummarizer(inner: Summarizer): Summarizer & { calls: number } {
  const counted = {
    ...inner,
    calls: 0,
    async summarize(request: SummarizeRequest) {
      counted.calls += 1;
      return inner.summarize(request);
    },
  };
  return counted;
}

/** More turns of the coding session, so the next check has something new to compact. */
function moreTurns(from: number, count: number): EventInput[] {
  const events: EventInput[] = [];
  for (let turn = from; turn < from + count; turn += 1) {
    const message = (role: 'user' | 'assistant' | 'tool', content: unknown[]): EventInput => ({
      eventId: `more-${turn}-${role}-${events.length}`,
      type: 'message.appended',
      message: { id: `more-${turn}-${events.length}`, role, content: content as never },
    });
    events.push(message('user', [{ type: 'text', text: `Step ${turn}: continue with module ${turn}.` }]));
    events.push(
      message('assistant', [
        { type: 'text', text: `Reading module ${turn}.` },
        { type: 'tool_call', id: `more-read${turn}`, name: 'read', input: { path: `src/m${turn}.ts` } },
      ]),
    );
    events.push(
      message('tool', [
        {
          type: 'tool_result',
          toolName: 'read',
          toolCallId: `more-read${turn}`,
          outcome: 'success',
          content: `export function g${turn}(value: number) { return value + ${turn}; }\n`.repeat(60),
        },
      ]),
    );
    events.push(message('assistant', [{ type: 'text', text: `Module ${turn} is done.` }]));
  }
  return events;
}

describe('plan commits are event-sourced (ADR-0190)', () => {
  it('appends plan.committed on every commit, and the log alone rebuilds every plan version', async () => {
    const store = await stores();
    await store.events.append(TENANT, 't1', asInputs(codingSession('t1').events));
    const engine = createCompactionEngine({
      ...store,
      summarizer: createExtractiveSummarizer(),
      clock,
    });
    const statuses: string[] = [];
    statuses.push((await engine.check(TENANT, 't1')).commit.status);
    for (let round = 0; round < 3; round += 1) {
      await store.events.append(TENANT, 't1', moreTurns(100 + round * 20, 20));
      statuses.push((await engine.check(TENANT, 't1')).commit.status);
    }
    const versions = await store.plans.listVersions(TENANT, 't1');
    expect(versions.length).toBeGreaterThanOrEqual(2);
    expect(statuses.filter((status) => status === 'committed')).toHaveLength(versions.length);

    // Rebuild from the log alone: a fresh plan store would hold exactly these plans.
    const log = await store.events.readAll(TENANT, 't1');
    const rebuilt = plansFromLog(log);
    expect([...rebuilt.keys()].sort((a, b) => a - b)).toEqual(versions.map((version) => version.version));
    for (const { version } of versions) {
      expect(rebuilt.get(version)).toEqual(await store.plans.getVersion(TENANT, 't1', version));
    }
    // The conversation is unchanged by the records (fold ignores them), and a check with nothing new
    // appended neither commits nor logs again: the logged commit is not news (no compaction loop).
    const thread = foldThread(log);
    expect(thread.messages.every((message) => !message.id.startsWith('plan'))).toBe(true);
    const again = await engine.check(TENANT, 't1');
    expect(again.commit.status).toBe('not_needed');
    expect(await store.events.readAll(TENANT, 't1')).toHaveLength(log.length);
  });

  it('a lost race appends nothing: one commit, one plan.committed event', async () => {
    const store = await stores();
    await store.events.append(TENANT, 't1', asInputs(codingSession('t1').events));
    const summarizer = barrierSummarizer(createExtractiveSummarizer(), 2);
    const make = () =>
      createCompactionEngine({ events: store.events, plans: store.plans, summarizer, clock });
    const results = await Promise.all([make().check(TENANT, 't1'), make().check(TENANT, 't1')]);
    expect(results.map((result) => result.commit.status).sort()).toEqual(['committed', 'lost_race']);
    const logged = (await store.events.readAll(TENANT, 't1')).filter(
      (event) => event.type === 'plan.committed',
    );
    expect(logged.map((event) => event.type === 'plan.committed' && event.planVersion)).toEqual([1]);
  });

  it('is idempotent, and a commit whose log append failed is logged by the next check', async () => {
    const store = await stores();
    await store.events.append(TENANT, 't1', asInputs(codingSession('t1').events));
    let failPlanAppends = true;
    const flaky: EventStore = Object.create(store.events, {
      append: {
        value: (tenantId: string, threadId: string, events: EventInput[], options?: object) => {
          if (failPlanAppends && events.some((event) => event.type === 'plan.committed')) {
            return Promise.reject(new Error('disk full'));
          }
          return store.events.append(tenantId, threadId, events, options);
        },
      },
    });
    const engine = createCompactionEngine({
      events: flaky,
      plans: store.plans,
      summarizer: createExtractiveSummarizer(),
      clock,
    });
    expect((await engine.check(TENANT, 't1')).commit.status).toBe('committed');
    const before = await store.events.readAll(TENANT, 't1');
    expect(before.some((event) => event.type === 'plan.committed')).toBe(false);
    failPlanAppends = false;
    expect((await engine.check(TENANT, 't1')).commit.status).toBe('not_needed');
    const after = await store.events.readAll(TENANT, 't1');
    expect(after).toHaveLength(before.length + 1);
    expect(plansFromLog(after).get(1)).toEqual(await store.plans.getVersion(TENANT, 't1', 1));
    // Appending the same version again stores nothing new.
    const retry = await store.events.append(TENANT, 't1', [
      { ...(after.at(-1) as EventInput), timestamp: '2030-01-01T00:00:00.000Z' },
    ]);
    expect(retry.duplicates).toBe(1);
    expect(await store.events.readAll(TENANT, 't1')).toHaveLength(after.length);
  });
});

describe("the summary cache is keyed by the thread's policy version (ADR-0014)", () => {
  it('a thread with a bumped policy version re-summarizes; the same version is a hit', async () => {
    const store = await stores();
    const inner = countingSummarizer(createExtractiveSummarizer());
    const summarizer = createCachedSummarizer(inner, { cache: store.summaries, policyVersion: 'process' });
    const engine = createCompactionEngine({ ...store, summarizer, clock });
    const policy = {
      strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
      keepRecentTurns: 2,
      keepRecentTokens: 500,
      keepUserMessages: false,
    };
    const build = (threadId: string, version: string) => {
      const builder = threadBuilder(threadId, { contextWindow: 8000, policy: { ...policy, version } });
      for (let turn = 1; turn <= 30; turn += 1) {
        builder.user(`Question ${turn}: what does module ${turn} do with the ledger totals?`);
        builder.assistant(`Module ${turn} reconciles ledger totals for region ${turn}. `.repeat(12));
      }
      return builder.build();
    };
    // Same messages (same ids, same content) in three threads.
    await store.events.append(TENANT, 'a', asInputs(build('a', '1').events));
    await store.events.append(TENANT, 'b', asInputs(build('b', '1').events));
    await store.events.append(TENANT, 'c', asInputs(build('c', '2').events));
    const first = await engine.check(TENANT, 'a');
    expect(first.planner?.summarizerCalls).toBeGreaterThan(0);
    const callsAfterFirst = inner.calls;
    expect(callsAfterFirst).toBeGreaterThan(0);
    await engine.check(TENANT, 'b');
    expect(inner.calls).toBe(callsAfterFirst);
    await engine.check(TENANT, 'c');
    expect(inner.calls).toBeGreaterThan(callsAfterFirst);
    const plan = (await store.plans.getCurrent(TENANT, 'c')).plan;
    expect(plan?.policyVersion).toBe('2');
    // Bumping a live thread's policy version (PATCH /policy appends policy.updated) re-summarizes:
    // thread e starts as a and b did (a cache hit), then its version is bumped before its check.
    const callsBeforeBump = inner.calls;
    await store.events.append(TENANT, 'e', asInputs(build('e', '1').events));
    await store.events.append(TENANT, 'e', [
      { eventId: 'bump', type: 'policy.updated', patch: { version: '3' } },
    ]);
    const bumped = await engine.check(TENANT, 'e');
    expect(bumped.planner?.summarizerCalls).toBeGreaterThan(0);
    expect(inner.calls).toBeGreaterThan(callsBeforeBump);
    expect((await store.plans.getCurrent(TENANT, 'e')).plan?.policyVersion).toBe('3');
  });
});

describe('the registered system prompt and tools count in the target (ADR-0192)', () => {
  it('a thread under target without them fires once a large system prompt is registered', async () => {
    const store = await stores();
    const engine = createCompactionEngine({ ...store, summarizer: createExtractiveSummarizer(), clock });
    const builder = threadBuilder('r', { contextWindow: 20_000, policy: { outputReserveTokens: 2000 } });
    for (let turn = 1; turn <= 12; turn += 1) {
      builder.user(`Turn ${turn}: summarize the incident timeline for service ${turn}.`);
      builder.assistant(`Service ${turn} degraded at 10:${turn} and recovered after a restart. `.repeat(20));
    }
    await store.events.append(TENANT, 'r', asInputs(builder.build().events));
    const without = await engine.check(TENANT, 'r');
    expect(without.trigger.fire).toBe(false);
    const system = 'You are the incident commander. Follow the runbook to the letter. '.repeat(600);
    const tools = [{ name: 'page_oncall', description: 'Page', inputSchema: { type: 'object' } }];
    await store.events.append(TENANT, 'r', [{ eventId: 'ctx-1', type: 'context.registered', system, tools }]);
    const withContext = await engine.check(TENANT, 'r');
    expect(withContext.trigger.fire).toBe(true);
    // The target lost what the registered system prompt and tools take (thousands of tokens).
    const thread = foldThread(await store.events.readAll(TENANT, 'r'));
    const unregistered = availableForMessages(threadBudget(thread));
    expect(unregistered - withContext.planner!.targetTokens).toBeGreaterThan(5000);
  });
});

describe('rehydration reported to the worker through the lifecycle log (ADR-0191)', () => {
  it("a compaction_rehydrated event in the thread's current turn makes the check skip externalize and drop", async () => {
    const make = async (threadId: string, rehydratedInTurn: boolean) => {
      const store = await stores();
      const built = codingSession(threadId);
      await store.events.append(TENANT, threadId, asInputs(built.events));
      const turn = foldThread(await store.events.readAll(TENANT, threadId)).messages.at(-1)!.turn;
      if (rehydratedInTurn) {
        await store.lifecycle.append({
          tenantId: TENANT,
          threadId,
          name: 'compaction_rehydrated',
          at: clock.now().toISOString(),
          details: { artifactId: 'art_x', turn, trigger: 'message' },
        });
      }
      const engine = createCompactionEngine({ ...store, summarizer: createExtractiveSummarizer(), clock });
      return engine.check(TENANT, threadId);
    };
    const plain = await make('plain', false);
    expect(plain.planner!.rungsUsed).toContain('externalize');
    const rehydrated = await make('rehydrated', true);
    expect(rehydrated.trigger.fire).toBe(true);
    expect(rehydrated.planner!.rungsUsed).not.toContain('externalize');
    expect(rehydrated.planner!.rungsUsed).not.toContain('drop');
  });
});

describe('capture_determinism hooks (ADR-0193)', () => {
  /** Ten turns that each read a file whose result is replayable, with the hash captured at read time. */
  function replayableSession(threadId: string) {
    const builder = threadBuilder(threadId, {
      contextWindow: 12_000,
      policy: {
        outputReserveTokens: 1000,
        keepRecentTurns: 1,
        keepRecentTokens: 0,
        clearAtLeastTokens: 200,
        keepUserMessages: false,
        strategies: { abridge: false, externalize: false, summarize: false, clear: true, drop: false },
      },
    });
    for (let turn = 1; turn <= 10; turn += 1) {
      builder.user(`Read file ${turn}.`);
      builder.assistant(undefined, {
        toolCalls: [{ id: `read${turn}`, name: 'read_file', input: { path: `src/f${turn}.ts` } }],
      });
      builder.toolResult(`read${turn}`, `export const f${turn} = ${turn};\n`.repeat(80), {
        durability: 'replayable',
        determinism: { contentHash: `hash-${turn}` },
      });
      builder.assistant(`File ${turn} read.`);
    }
    return builder.build();
  }

  it('without hooks nothing replayable is cleared; with them, exactly the results proven unchanged are', async () => {
    const store = await stores();
    await store.events.append(TENANT, 'none', asInputs(replayableSession('none').events));
    await store.events.append(TENANT, 'hooked', asInputs(replayableSession('hooked').events));
    const unhooked = createCompactionEngine({ ...store, summarizer: createExtractiveSummarizer(), clock });
    const without = await unhooked.check(TENANT, 'none');
    expect(without.trigger.fire).toBe(true);
    expect(without.planner!.added.filter((record) => record.kind === 'clear')).toEqual([]);
    expect(without.determinism).toBeUndefined();

    // Odd files changed on disk since they were read; file 4's hook fails.
    const calls: string[] = [];
    const hooked = createCompactionEngine({
      ...store,
      summarizer: createExtractiveSummarizer(),
      clock,
      determinismHooks: {
        read_file: (envelope) => {
          calls.push(envelope.toolCallId);
          const turn = Number(envelope.toolCallId.slice('read'.length));
          if (turn === 4) throw new Error('stat failed');
          return { contentHash: turn % 2 === 0 ? `hash-${turn}` : `hash-${turn}-edited` };
        },
      },
    });
    const result = await hooked.check(TENANT, 'hooked');
    expect(calls).toHaveLength(10);
    expect(result.determinism).toEqual({ checked: 10, unchanged: 4, changed: 5, failed: 1 });
    const cleared = result
      .planner!.added.flatMap((record) => (record.kind === 'clear' ? record.preserved : []))
      .map((preserved) => preserved.toolCallId)
      .sort();
    expect(cleared.length).toBeGreaterThan(0);
    // Only even files other than 4, and never the protected last turn.
    for (const toolCallId of cleared) expect(['read2', 'read6', 'read8']).toContain(toolCallId);
    expect(result.commit.status).toBe('committed');
  });
});
