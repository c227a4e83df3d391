import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cliDirectory = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('the compactor bin', () => {
  it('runs the built bundle with plain Node (no tsx), building it when it is missing or stale', async () => {
    const { stdout } = await run(process.execPath, [join(cliDirectory, 'bin/compactor.js'), '--help']);
    for (const name of ['serve', 'replay', 'inspect', 'eval', 'bench']) expect(stdout).toContain(name);
    expect(existsSync(join(cliDirectory, 'dist/compactor.js'))).toBe(true);
    const { stdout: replayHelp } = await run(process.execPath, [
      join(cliDirectory, 'bin/compactor.js'),
      'replay',
      '--help',
    ]);
    expect(replayHelp).toContain('--conversation <n>');
  }, 120_000);

  // Linux: a process's threads are listed under /proc/<pid>/task.
  it.skipIf(!existsSync('/proc/self/task'))(
    'starts libuv with a 16-thread pool unless UV_THREADPOOL_SIZE says otherwise',
    async () => {
      // Two `compactor serve` processes alike but for the pool size asked for: libuv starts every
      // pool thread at once, so their thread counts differ by the pool sizes' difference.
      const threadsOf = async (environment: NodeJS.ProcessEnv) => {
        const dataDir = await mkdtemp(join(tmpdir(), 'compactor-bin-'));
        const { UV_THREADPOOL_SIZE: _, ...inherited } = process.env;
        const child = spawn(
          process.execPath,
          [join(cliDirectory, 'bin/compactor.js'), 'serve', '--port', '0', '--data-dir', dataDir],
          { env: { ...inherited, LOG_LEVEL: 'warn', ...environment }, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        try {
          let output = '';
          await new Promise<void>((resolve, reject) => {
            child.stdout!.on('data', (chunk: Buffer) => {
              output += chunk.toString();
              if (output.includes('listening on')) resolve();
            });
            child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
          });
          return readdirSync(`/proc/${child.pid}/task`).length;
        } finally {
          child.kill('SIGKILL');
          await rm(dataDir, { recursive: true, force: true });
        }
      };
      const byDefault = await threadsOf({});
      const withFour = await threadsOf({ UV_THREADPOOL_SIZE: '4' });
      expect(byDefault - withFour).toBe(12);
    },
    120_000,
  );
});
