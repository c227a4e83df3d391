import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { noopLogger } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores, DataLayout, type EmbeddedStores, encodePathSegment } from '../src/index.js';
import type { ChildArguments, ChildJob } from './support/shared-mode-child.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'support', 'shared-mode-child.ts');
const TSX = createRequire(import.meta.url).resolve('tsx');
const LOCK_STALE_MS = 2_000;
const tenantId = 'tenant-a';
const threadId = 'Thread.1';

interface RunningChild {
  process: ChildProcess;
  /** The next JSON line the child reports. */
  next(): Promise<unknown>;
  exited: Promise<number | null>;
}

function startChild(dataDir: string, job: ChildJob): RunningChild {
  const args: ChildArguments = { dataDir, tenantId, threadId, lockStaleMs: LOCK_STALE_MS, job };
  const child = spawn(process.execPath, ['--import', TSX, CHILD, JSON.stringify(args)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    process: child,
    exited,
    async next() {
      const line = await lines.next();
      if (line.done) throw new Error(`child ended without reporting: ${stderr}`);
      return JSON.parse(line.value);
    },
  };
}

async function finish(child: RunningChild): Promise<unknown> {
  const result = await child.next();
  expect(await child.exited).toBe(0);
  return result;
}

function threadCreated() {
  return {
    eventId: 'created',
    type: 'thread.created' as const,
    model: 'claude-sonnet-4-5',
    contextWindow: 200_000,
  };
}

describe('shared mode across processes', () => {
  let dataDir: string;
  let remove: () => Promise<void>;
  let stores: EmbeddedStores;
  const children: RunningChild[] = [];

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
    stores = await createEmbeddedStores({
      dataDir,
      sharing: 'shared',
      lockStaleMs: LOCK_STALE_MS,
      logger: noopLogger,
    });
  });

  afterEach(async () => {
    for (const child of children.splice(0))
      if (child.process.exitCode === null) child.process.kill('SIGKILL');
    await stores.close();
    await remove();
  });

  function start(job: ChildJob): RunningChild {
    const child = startChild(dataDir, job);
    children.push(child);
    return child;
  }

  it('lands every append of three processes once, seqs contiguous', async () => {
    await stores.events.append(tenantId, threadId, [threadCreated()]);
    const results = (await Promise.all(
      ['p1', 'p2', 'p3'].map((prefix) => finish(start({ kind: 'append', prefix, batches: 30 }))),
    )) as Array<{ eventIds: string[] }>;
    const sent = results.flatMap((result) => result.eventIds);
    const stored = await stores.events.readAll(tenantId, threadId);
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
    expect(stored.map((event) => event.eventId).sort()).toEqual(['created', ...sent].sort());
    expect(new Set(sent).size).toBe(sent.length);
    expect((await stores.events.getThread(tenantId, threadId))?.version).toBe(1 + sent.length);
  });

  it('lets exactly one process win each expected version', async () => {
    await stores.events.append(tenantId, threadId, [threadCreated()]);
    const results = (await Promise.all(
      ['p1', 'p2', 'p3'].map((prefix) => finish(start({ kind: 'append-expecting', prefix, wins: 15 }))),
    )) as Array<{ wonAt: number[]; conflicts: number }>;
    const wonAt = results.flatMap((result) => result.wonAt).sort((left, right) => left - right);
    // Each version from 1 (after thread.created) to 45 was won by exactly one process.
    expect(wonAt).toEqual(Array.from({ length: 45 }, (_, index) => index + 1));
    const stored = await stores.events.readAll(tenantId, threadId);
    expect(stored).toHaveLength(46);
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
  });

  it('lets exactly one of several processes commit each plan version', async () => {
    const rounds = 8;
    const results = (await Promise.all(
      [1, 2, 3].map(() => finish(start({ kind: 'commit-rounds', rounds }))),
    )) as Array<{ won: number[] }>;
    const won = results.flatMap((result) => result.won).sort((left, right) => left - right);
    expect(won).toEqual(Array.from({ length: rounds }, (_, index) => index + 1));
    const versions = await stores.plans.listVersions(tenantId, threadId);
    expect(versions.map((version) => version.basedOnSeq)).toEqual(won);
  });

  it('shows a reader process every batch as soon as the writer process acknowledges it', async () => {
    await stores.events.append(tenantId, threadId, [threadCreated()]);
    expect((await stores.plans.getCurrent(tenantId, threadId)).version).toBe(0); // cache both stores first
    const writer = start({ kind: 'append-on-request', prefix: 'w' });
    for (let round = 1; round <= 10; round += 1) {
      writer.process.stdin!.write('go\n');
      const { eventId, version } = (await writer.next()) as { eventId: string; version: number };
      expect(version).toBe(round + 1);
      expect((await stores.events.getThread(tenantId, threadId))?.version).toBe(version);
      const page = await stores.events.read(tenantId, threadId, { fromSeq: version });
      expect(page.events.map((event) => event.eventId)).toEqual([eventId]);
    }
    writer.process.stdin!.end();
    expect(await writer.exited).toBe(0);
  });

  it('recovers a lock left by a process killed mid-append, keeping every whole batch', async () => {
    await stores.events.append(tenantId, threadId, [threadCreated()]);
    const before = await stores.events.readAll(tenantId, threadId);
    const dying = start({ kind: 'die-holding-lock', prefix: 'd' });
    expect(await dying.next()).toEqual({ locked: true });
    // While the lock is held (and refreshed), a reader still sees only whole batches.
    expect(await stores.events.readAll(tenantId, threadId)).toEqual(before);
    const lockDirectory = join(dataDir, 'locks', 'events', encodePathSegment(tenantId, 'tenantId'));
    expect(await readdir(lockDirectory)).toEqual([`${encodePathSegment(threadId, 'threadId')}.lock`]);
    dying.process.kill('SIGKILL');
    await dying.exited;
    const startedAt = Date.now();
    const result = await stores.events.append(tenantId, threadId, [
      {
        eventId: 'after',
        type: 'message.appended',
        message: { id: 'm-after', role: 'user', content: [{ type: 'text', text: 'x' }] },
      },
    ]);
    expect(result.version).toBe(2);
    // The lock was taken over once it had gone stale, not before, and not much later.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(LOCK_STALE_MS - 1_100);
    expect(Date.now() - startedAt).toBeLessThan(LOCK_STALE_MS * 3);
    const after = await stores.events.readAll(tenantId, threadId);
    expect(after.slice(0, 1)).toEqual(before);
    expect(after.map((event) => event.eventId)).toEqual(['created', 'after']);
    // The torn half-batch is gone from the file: every line is a whole record.
    const layout = new DataLayout(dataDir);
    const log = await readFile(
      layout.eventLog(encodePathSegment(tenantId, 'tenantId'), encodePathSegment(threadId, 'threadId')),
      'utf8',
    );
    expect(log.endsWith('\n')).toBe(true);
    expect(log.split('\n').filter(Boolean)).toHaveLength(2);
    expect(log).not.toContain('"half"');
  });
});
