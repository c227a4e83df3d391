import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/files/group-commit.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

/** A logical clock: every step of the timeline gets the next number. */
let tick = 0;

interface SyncSpan {
  file: number;
  startedAt: number;
  endedAt: number;
}

/** Real files whose `datasync` calls are recorded on the timeline. */
async function recordedFiles(directory: string, count: number, spans: SyncSpan[]): Promise<FileHandle[]> {
  const handles: FileHandle[] = [];
  for (let file = 0; file < count; file += 1) {
    const handle = await open(join(directory, `log-${file}`), 'w+');
    const datasync = handle.datasync.bind(handle);
    handle.datasync = async () => {
      const startedAt = ++tick;
      await datasync();
      spans.push({ file, startedAt, endedAt: ++tick });
    };
    handles.push(handle);
  }
  return handles;
}

describe('GroupCommit', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('answers every request only after a sync of its file that began after the request', async () => {
    const { dataDir, remove } = await makeTemporaryDirectory();
    cleanups.push(remove);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ file: fc.nat({ max: 4 }), waitTurns: fc.nat({ max: 3 }) }), {
          minLength: 1,
          maxLength: 40,
        }),
        async (requests) => {
          const spans: SyncSpan[] = [];
          const handles = await recordedFiles(dataDir, 5, spans);
          const groupCommit = new GroupCommit();
          try {
            const answered = requests.map(async ({ file, waitTurns }, index) => {
              for (let turn = 0; turn < waitTurns + (index % 3); turn += 1) {
                await new Promise((resolve) => setImmediate(resolve));
              }
              await handles[file]!.write(`request ${index}\n`);
              const requestedAt = ++tick;
              await groupCommit.sync(handles[file]!);
              return { file, requestedAt, answeredAt: ++tick };
            });
            for (const { file, requestedAt, answeredAt } of await Promise.all(answered)) {
              const covering = spans.find(
                (span) => span.file === file && span.startedAt > requestedAt && span.endedAt < answeredAt,
              );
              expect(covering, `request on file ${file} at ${requestedAt}`).toBeDefined();
            }
            // Batching happened: never more syncs than requests, one per touched file per round.
            expect(groupCommit.fileSyncs).toBeLessThanOrEqual(groupCommit.requests);
            expect(spans).toHaveLength(groupCommit.fileSyncs);
          } finally {
            await Promise.all(handles.map((handle) => handle.close()));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('syncs a file written by many requests of one round once', async () => {
    const { dataDir, remove } = await makeTemporaryDirectory();
    cleanups.push(remove);
    const spans: SyncSpan[] = [];
    const [handle] = await recordedFiles(dataDir, 1, spans);
    cleanups.push(() => handle!.close());
    const groupCommit = new GroupCommit();
    await Promise.all(Array.from({ length: 10 }, () => groupCommit.sync(handle!)));
    expect(groupCommit.requests).toBe(10);
    expect(spans).toHaveLength(1);
  });

  it('fails every request of a round whose sync fails, and keeps serving later rounds', async () => {
    const { dataDir, remove } = await makeTemporaryDirectory();
    cleanups.push(remove);
    const [good, bad] = await recordedFiles(dataDir, 2, []);
    cleanups.push(() => good!.close());
    await bad!.close();
    const groupCommit = new GroupCommit();
    const results = await Promise.allSettled([
      groupCommit.sync(bad!),
      groupCommit.sync(bad!),
      groupCommit.sync(good!),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    await expect(groupCommit.sync(good!)).resolves.toBeUndefined();
  });
});
