import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
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
});
