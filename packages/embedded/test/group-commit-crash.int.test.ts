import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { noopLogger } from '@compactor/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'support', 'append-burst-child.ts');
const TSX = createRequire(import.meta.url).resolve('tsx');
const THREADS = 16;

/**
 * Group commit acknowledges many appends per round of syncs. If it ever answered an append before
 * its batch was written (or lost a batch of a round, or tore one), a process killed mid-burst
 * would leave an acknowledged event missing, a gap in seqs, or a thread that does not reopen.
 * (SIGKILL keeps the page cache, so this proves write-before-acknowledge and batch atomicity;
 * sync-before-acknowledge is proven by group-commit.int.test.ts.)
 */
describe('group commit under SIGKILL', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('keeps every acknowledged event of a concurrent burst over 16 threads', async () => {
    const { dataDir, remove } = await makeTemporaryDirectory();
    cleanups.push(remove);
    const child = spawn(
      process.execPath,
      ['--import', TSX, CHILD, JSON.stringify({ dataDir, threads: THREADS, inFlightPerThread: 2 })],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const acknowledged: string[] = [];
    let ready = false;
    // Kill at a point that varies with the machine's timing, well inside the burst.
    const killAfter = 400 + Math.floor(Math.random() * 400);
    for await (const line of createInterface({ input: child.stdout! })) {
      if (line === 'ready') {
        ready = true;
        continue;
      }
      acknowledged.push(line);
      if (acknowledged.length === killAfter) child.kill('SIGKILL');
    }
    await exited;
    expect(ready, stderr).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(killAfter);

    const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    cleanups.unshift(() => stores.close());
    const storedIds = new Set<string>();
    for (let index = 0; index < THREADS; index += 1) {
      const events = await stores.events.readAll('tenant-a', `burst-${index}`);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, position) => position + 1));
      expect(new Set(events.map((event) => event.eventId)).size).toBe(events.length);
      for (const event of events) storedIds.add(`burst-${index}:${event.eventId}`);
    }
    const missing = acknowledged.filter((line) => {
      const [threadId] = line.split(':');
      return !storedIds.has(`${threadId}:${line}`);
    });
    expect(missing).toEqual([]);
    // Appends still work after the restart, on every thread.
    const after = await stores.events.append('tenant-a', 'burst-0', [
      {
        eventId: 'after-restart',
        type: 'message.appended',
        message: { id: 'm-after-restart', role: 'user', content: [{ type: 'text', text: 'x' }] },
      },
    ]);
    expect(after.events[0]!.seq).toBe(after.version);
  });
});
