import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_RETRY_AFTER_SECONDS } from '../src/errors/error-response.js';
import { directoryWriteProbe } from '../src/runtime/directory-write-probe.js';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  startTestIngest,
  type TestIngest,
} from './support.js';

/**
 * Real storage faults, not injected ones: the data directory is a 4 MiB tmpfs mounted for this
 * suite, filled to the last byte for "disk full" and remounted read-only for "read-only". Mounting
 * needs root (CAP_SYS_ADMIN); elsewhere the suite is skipped by name.
 */
const mountPoint = await mkdtemp(join(tmpdir(), 'compactor-tmpfs-'));
const mounted = tryMount(mountPoint);

function tryMount(directory: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', directory], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function remount(mode: 'ro' | 'rw'): void {
  execFileSync('mount', ['-o', `remount,${mode}`, mountPoint], { stdio: 'ignore' });
}

/**
 * The kernel refuses a read-only remount (EBUSY) while a file is open for writing: the store keeps
 * a thread's log open while it is in use and closes it once idle (ADR-0095), so retry until then.
 */
async function remountReadOnly(): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      remount('ro');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

let ingest: TestIngest;

beforeAll(async () => {
  if (!mounted) return;
  ingest = await startTestIngest({
    dataDir: join(mountPoint, 'data'),
    storageWriteProbe: directoryWriteProbe(join(mountPoint, 'data')),
  });
  expect(
    (await createThread(ingest.app, KEY_A, { threadId: 'disk', model: 'claude-sonnet-4-5' })).statusCode,
  ).toBe(201);
});

afterAll(async () => {
  if (mounted) {
    try {
      remount('rw');
    } catch {}
    await ingest?.cleanup();
    execFileSync('umount', [mountPoint], { stdio: 'ignore' });
  }
  await rmdir(mountPoint).catch(() => rm(mountPoint, { recursive: true, force: true }));
});

async function threadVersion(): Promise<number> {
  const response = await ingest.app.inject({
    method: 'GET',
    url: '/v1/threads/disk',
    headers: bearer(KEY_A),
  });
  return response.json().version;
}

async function readiness() {
  const response = await ingest.app.inject({ method: 'GET', url: '/readyz' });
  return { status: response.statusCode, body: response.json() };
}

/** An append of ~60 KB, more than any space a filled tmpfs has left. */
function bigAppend(tag: string) {
  return appendEvents(ingest.app, KEY_A, 'disk', [
    messageEvent('user', `${tag} ${'soil and roses '.repeat(4_000)}`),
  ]);
}

/** Write filler files until the filesystem refuses (ENOSPC), with ever smaller pieces. */
async function fillDisk(): Promise<string[]> {
  const files: string[] = [];
  for (let size = 1024 * 1024; size >= 512; size = Math.floor(size / 2)) {
    for (;;) {
      const path = join(mountPoint, `filler-${files.length}`);
      try {
        await writeFile(path, Buffer.alloc(size, 1));
        files.push(path);
      } catch (error) {
        await rm(path, { force: true });
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        break;
      }
    }
  }
  return files;
}

describe.skipIf(!mounted)('storage faults on a real tmpfs data directory (needs root to mount)', () => {
  it('disk full: the append answers 503 with Retry-After, /readyz is not ready, and both recover', async () => {
    expect((await bigAppend('before')).statusCode).toBe(201);
    const version = await threadVersion();
    const fillers = await fillDisk();

    const refused = await bigAppend('full');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe(String(STORAGE_RETRY_AFTER_SECONDS));
    expect(refused.json()).toEqual({
      error: { code: 'unavailable', message: 'storage is full; retry later' },
    });
    expect(refused.body).not.toContain(mountPoint);
    const notReady = await readiness();
    expect(notReady.status).toBe(503);
    expect(notReady.body.error.details.checks.storageWrites).toMatch(/ENOSPC/);
    expect(JSON.stringify(notReady.body)).not.toContain(mountPoint);
    expect(await threadVersion()).toBe(version);

    await Promise.all(fillers.map((path) => rm(path)));
    expect((await readiness()).status).toBe(200);
    expect((await bigAppend('after')).statusCode).toBe(201);
    expect(await threadVersion()).toBe(version + 1);
  });

  it('read-only: the append answers 503 with Retry-After, /readyz is not ready, and both recover', async () => {
    const version = await threadVersion();
    await remountReadOnly();
    try {
      const refused = await appendEvents(ingest.app, KEY_A, 'disk', [
        messageEvent('user', 'while read-only'),
      ]);
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe(String(STORAGE_RETRY_AFTER_SECONDS));
      expect(refused.json().error).toEqual({
        code: 'unavailable',
        message: 'storage is read-only; retry later',
      });
      const notReady = await readiness();
      expect(notReady.status).toBe(503);
      expect(notReady.body.error.details.checks.storageWrites).toMatch(/EROFS/);
    } finally {
      remount('rw');
    }
    expect((await readiness()).status).toBe(200);
    expect(
      (await appendEvents(ingest.app, KEY_A, 'disk', [messageEvent('user', 'writable again')])).statusCode,
    ).toBe(201);
    expect(await threadVersion()).toBe(version + 1);
  });
});
