import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../e2e/serve-process.js';

const run = promisify(execFile);

/** Allocates short-lived objects (scavenges), keeps some of them, then forces one full collection. */
const CHURN = `
const kept = [];
for (let round = 0; round < 40; round += 1) {
  const batch = Array.from({ length: 20000 }, (_, index) => ({ index, text: 'x'.repeat(20) + index }));
  if (round % 10 === 0) kept.push(batch);
}
globalThis.gc();
setTimeout(() => { if (kept.length === 0) process.exit(1); }, 100);
`;

/**
 * The ingest-heap bench's recorder (ADR-0475): full collections one line each with the old space
 * and the young generation's committed bytes, scavenges counted with their pauses.
 */
describe('gc-recorder.mjs', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function record(v8Flags: string[]): Promise<Array<Record<string, unknown>>> {
    const directory = await mkdtemp(join(tmpdir(), 'compactor-gc-recorder-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    const log = join(directory, 'gc.jsonl');
    await run(
      process.execPath,
      [
        ...v8Flags,
        '--expose-gc',
        '--import',
        resolve(repositoryRoot, 'test/bench/gc-recorder.mjs'),
        '-e',
        CHURN,
      ],
      { env: { PATH: process.env.PATH ?? '', COMPACTOR_BENCH_GC_LOG: log } },
    );
    return (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('logs each full collection and counts the scavenges with their pauses', async () => {
    const lines = await record([]);
    const full = lines.filter((line) => line.kind === 'full');
    const scavenges = lines.filter((line) => line.kind === 'scavenges');
    expect(full.length).toBeGreaterThanOrEqual(1);
    expect(Number(full.at(-1)?.oldSpaceCommittedMiB)).toBeGreaterThan(0);
    expect(Number(full.at(-1)?.newSpaceCommittedMiB)).toBeGreaterThan(0);
    const count = scavenges.reduce((sum, line) => sum + Number(line.count), 0);
    expect(count).toBeGreaterThanOrEqual(2);
    expect(scavenges.every((line) => Number(line.durationMs) > 0)).toBe(true);
    expect(
      scavenges.every((line) => Number(line.longestMs) <= Number(line.durationMs) + Number.EPSILON),
    ).toBe(true);
  });

  it('reads the young generation the process runs with (both semi-spaces)', async () => {
    const lines = await record(['--max-semi-space-size=4', '--min-semi-space-size=4']);
    const youngMiB = lines.map((line) => Number(line.newSpaceCommittedMiB));
    expect(youngMiB.length).toBeGreaterThan(0);
    expect(youngMiB.every((mib) => mib === 8)).toBe(true);
  });
});
