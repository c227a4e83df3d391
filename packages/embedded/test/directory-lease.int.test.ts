import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { noopLogger } from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores } from '../src/index.js';
import type { LeaseHolderArguments } from './support/lease-holder-child.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'support', 'lease-holder-child.ts');
const TSX = createRequire(import.meta.url).resolve('tsx');
const TENANT = 'tenant-lease';
const THREAD = 'thread-lease';
const SHORT_LEASE_MS = 1_000;

interface LeaseHolder {
  process: ChildProcess;
  /** Every JSON line the child reported so far. */
  reports: Array<{ ready?: boolean; version?: number; error?: string }>;
  ready: Promise<void>;
}

function startHolder(dataDir: string, leaseMs: number): LeaseHolder {
  const args: LeaseHolderArguments = { dataDir, leaseMs, tenantId: TENANT, threadId: THREAD };
  const child = spawn(process.execPath, ['--import', TSX, CHILD, JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const reports: LeaseHolder['reports'] = [];
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      reports.push(JSON.parse(line));
      if (reports.length === 1) resolve();
    });
    child.once('exit', (code) => reject(new Error(`lease holder exited with ${code}: ${stderr}`)));
  });
  return { process: child, reports, ready };
}

function latestVersion(holder: LeaseHolder): number {
  return Math.max(0, ...holder.reports.map((report) => report.version ?? 0));
}

/** A lease record as a process on another host (another container on the same volume) leaves it. */
function otherHostLease(renewedAt: Date, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    pid: process.pid,
    hostname: `not-${hostname()}`,
    since: renewedAt.toISOString(),
    leaseId: 'other-host-lease',
    renewedAt: renewedAt.toISOString(),
    leaseMs: SHORT_LEASE_MS,
    renewals: 3,
    ...extra,
  });
}

describe('the data directory lease', () => {
  let dataDir: string;
  let remove: () => Promise<void>;
  const holders: LeaseHolder[] = [];

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
  });

  afterEach(async () => {
    for (const holder of holders.splice(0)) {
      if (holder.process.exitCode === null && holder.process.signalCode === null) {
        const exited = new Promise((resolve) => holder.process.once('exit', resolve));
        holder.process.kill('SIGKILL');
        await exited;
      }
    }
    await remove();
  });

  async function timeToOpen(leaseMs: number): Promise<number> {
    const started = Date.now();
    const stores = await createEmbeddedStores({ dataDir, leaseMs, logger: noopLogger });
    const elapsed = Date.now() - started;
    await stores.close();
    return elapsed;
  }

  it('takes over at once a lease of another host that expired long ago', async () => {
    await writeFile(join(dataDir, 'LOCK'), otherHostLease(new Date(Date.now() - 60 * 60_000)));
    // The default lease is 10 s; not waiting for it shows the expiry was read from the record.
    expect(await timeToOpen(10_000)).toBeLessThan(5_000);
  });

  it('takes over a lease of another host after one lease without a renewal', async () => {
    await writeFile(join(dataDir, 'LOCK'), otherHostLease(new Date()));
    const elapsed = await timeToOpen(SHORT_LEASE_MS);
    expect(elapsed).toBeGreaterThanOrEqual(SHORT_LEASE_MS * 0.9);
    expect(elapsed).toBeLessThan(SHORT_LEASE_MS * 5);
  });

  it('takes over a lock of another host written before leases (no renewal fields), after one lease', async () => {
    await writeFile(
      join(dataDir, 'LOCK'),
      JSON.stringify({ pid: 4242, hostname: `not-${hostname()}`, since: new Date().toISOString() }),
    );
    expect(await timeToOpen(SHORT_LEASE_MS)).toBeGreaterThanOrEqual(SHORT_LEASE_MS * 0.9);
  });

  it('lets an exclusive open take over shared openers of another host that stopped renewing', async () => {
    await mkdir(join(dataDir, 'SHARERS'), { recursive: true });
    await writeFile(join(dataDir, 'SHARERS', 'other.1.abcd.json'), otherHostLease(new Date()));
    await writeFile(join(dataDir, 'SHARERS', 'other.2.abcd.json'), otherHostLease(new Date()));
    // Both are watched at once: one lease, not two.
    const elapsed = await timeToOpen(SHORT_LEASE_MS);
    expect(elapsed).toBeGreaterThanOrEqual(SHORT_LEASE_MS * 0.9);
    expect(elapsed).toBeLessThan(SHORT_LEASE_MS * 1.9);
  });

  it('reopens at once on this host after the holder is killed with SIGKILL, keeping its data', async () => {
    const leaseMs = 30_000;
    const holder = startHolder(dataDir, leaseMs);
    holders.push(holder);
    await holder.ready;
    while (latestVersion(holder) < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    holder.process.kill('SIGKILL');
    // No wait for the exit: the restart comes right after the kill (the pid may still be a zombie).
    const started = Date.now();
    const stores = await createEmbeddedStores({ dataDir, leaseMs, logger: noopLogger });
    try {
      // The dead holder's pid is recognised as gone: no waiting out its 30 s lease.
      expect(Date.now() - started).toBeLessThan(5_000);
      const version = (await stores.events.getThread(TENANT, THREAD))!.version;
      expect(version).toBeGreaterThanOrEqual(latestVersion(holder));
      const appended = await stores.events.append(TENANT, THREAD, [
        {
          eventId: 'after-restart',
          type: 'message.appended',
          message: { id: 'm-after', role: 'user', content: [{ type: 'text', text: 'back' }] },
        },
      ]);
      expect(appended.events[0]!.seq).toBe(version + 1);
    } finally {
      await stores.close();
    }
  });

  it('stops serving from the directory once another process has taken its lease over', async () => {
    const stores = await createEmbeddedStores({ dataDir, leaseMs: SHORT_LEASE_MS, logger: noopLogger });
    try {
      await stores.events.append(TENANT, THREAD, [
        { eventId: 'created', type: 'thread.created', model: 'm', contextWindow: 10_000 },
      ]);
      // What a process that found this one stalled for a whole lease writes when it takes over.
      await writeFile(join(dataDir, 'LOCK'), otherHostLease(new Date(), { leaseId: 'the-new-owner' }));
      // The next renewal (every quarter lease) finds the lease gone and closes the stores.
      await new Promise((resolve) => setTimeout(resolve, SHORT_LEASE_MS));
      await expect(stores.events.getThread(TENANT, THREAD)).rejects.toMatchObject({ code: 'unavailable' });
    } finally {
      await stores.close();
    }
    // The new owner's lease is left in place.
    expect(JSON.parse(await readFile(join(dataDir, 'LOCK'), 'utf8'))).toMatchObject({
      leaseId: 'the-new-owner',
    });
  });

  it('never takes over a live holder, which keeps writing throughout', async () => {
    const holder = startHolder(dataDir, SHORT_LEASE_MS);
    holders.push(holder);
    await holder.ready;
    const started = Date.now();
    const versionBefore = latestVersion(holder);
    // Three leases' worth of attempts: each watches the lease and sees it renewed.
    while (Date.now() - started < 3 * SHORT_LEASE_MS) {
      await expect(
        createEmbeddedStores({ dataDir, leaseMs: SHORT_LEASE_MS, logger: noopLogger }),
      ).rejects.toMatchObject({
        code: 'unavailable',
        message: expect.stringContaining(String(holder.process.pid)),
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(holder.process.exitCode).toBeNull();
    expect(holder.reports.filter((report) => report.error !== undefined)).toEqual([]);
    expect(latestVersion(holder)).toBeGreaterThan(versionBefore + 20);
  });
});
