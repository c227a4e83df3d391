import { fixedClock, parseSnapshotId, ValidationError } from '@compactor/core';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { asInputs } from '@compactor/testkit/sessions';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine, createCompactor } from '../src/index.js';
import { withEmbeddedStores } from './support.js';

/** The `seed-000` preset's delegated agents (ADR-0180): one snapshot, the same bytes across a concurrent commit. */
const clock = fixedClock('2025-06-01T00:00:00.000Z');
const TENANT = 'local';
const SYSTEM = 'You are a delegated sub-agent. Answer from the conversation only.';
let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

/** The thread's creation event and 50 turns' messages. */
const ALL = (() => {
  const builder = threadBuilder('parent', { policy: { preset: 'seed-004-sliding' } as never });
  for (let turn = 1; turn <= 50; turn += 1) {
    builder
      .user(`Turn ${turn}: check module ${turn}.`)
      .assistant(`Module ${turn} is fine; ${turn} tests pass.`);
  }
  return asInputs(builder.build().events);
})();

/** The creation event with turns 1..to (from 1), or turns from..to alone. */
function turns(from: number, to: number) {
  const messages = ALL.filter((event) => event.type === 'message.appended').slice((from - 1) * 2, to * 2);
  return from === 1 ? [ALL[0]!, ...messages] : messages;
}

async function setUp() {
  const { stores, cleanup } = await withEmbeddedStores();
  cleanups.push(cleanup);
  const summarizer = createExtractiveSummarizer();
  const compactor = createCompactor({ stores, summarizer, clock, compaction: 'background' });
  const engine = createCompactionEngine({ ...stores, summarizer, clock });
  return { stores, compactor, engine };
}

describe('snapshots for delegated agents, in process', () => {
  it('three delegated renders across a concurrent append and commit are byte-identical', async () => {
    const { stores, compactor, engine } = await setUp();
    await stores.events.append(TENANT, 'parent', turns(1, 22));
    expect((await engine.check(TENANT, 'parent')).commit).toEqual({ status: 'committed', version: 1 });
    const snapshot = await compactor.snapshot('parent');
    expect(snapshot).toMatchObject({ planVersion: 1 });
    expect(parseSnapshotId(snapshot.snapshotId)).toEqual({
      threadVersion: snapshot.threadVersion,
      planVersion: 1,
    });
    const delegated = () =>
      compactor.prepare('parent', { provider: 'anthropic', system: SYSTEM, snapshot: snapshot.snapshotId });
    const first = await delegated();
    // The parent goes on: more turns arrive and a worker commits plan version 2 while agents render.
    await stores.events.append(TENANT, 'parent', turns(23, 45));
    const [second, committed] = await Promise.all([delegated(), engine.check(TENANT, 'parent')]);
    expect(committed.commit).toEqual({ status: 'committed', version: 2 });
    const third = await delegated();
    const bytes = (prepared: typeof first) => JSON.stringify(prepared.request);
    expect(bytes(second)).toBe(bytes(first));
    expect(bytes(third)).toBe(bytes(first));
    expect(first.compaction).toBeNull();
    // The parent's own render moved on, so the snapshot is what kept the three equal.
    const live = await compactor.prepare('parent', { provider: 'anthropic', system: SYSTEM });
    expect(bytes(live)).not.toBe(bytes(first));
    expect(bytes(live)).toContain('Turn 45:');
    expect(bytes(first)).not.toContain('Turn 45:');
  });

  it('a snapshot of a thread with no plan pins plan version 0', async () => {
    const { stores, compactor } = await setUp();
    await stores.events.append(TENANT, 'parent', turns(1, 3));
    const snapshot = await compactor.snapshot('parent');
    expect(snapshot.planVersion).toBe(0);
    const pinned = await compactor.prepare('parent', { provider: 'openai-chat', snapshot });
    await stores.events.append(TENANT, 'parent', turns(4, 4));
    const again = await compactor.prepare('parent', {
      provider: 'openai-chat',
      snapshot: snapshot.snapshotId,
    });
    expect(JSON.stringify(again.request)).toBe(JSON.stringify(pinned.request));
  });

  it('rejects a malformed id, a thread version not reached and a plan version never committed', async () => {
    const { stores, compactor } = await setUp();
    await stores.events.append(TENANT, 'parent', turns(1, 3));
    const { threadVersion } = await compactor.snapshot('parent');
    await expect(compactor.prepare('parent', { provider: 'anthropic', snapshot: 'snap_x' })).rejects.toThrow(
      ValidationError,
    );
    await expect(
      compactor.prepare('parent', {
        provider: 'anthropic',
        snapshot: { threadVersion: threadVersion + 5, planVersion: 0 },
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      compactor.prepare('parent', { provider: 'anthropic', snapshot: { threadVersion, planVersion: 3 } }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
