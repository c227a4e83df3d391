import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, writeChatTranscript } from './support.js';

/** `compactor replay --policy NAME|FILE` (ADR-0106). 31 user turns fit the model's window whole. */
describe('compactor replay --policy', () => {
  it('runs a preset by name: seed-004-sliding compacts a conversation the default policy leaves alone', async () => {
    const file = await writeChatTranscript();
    const plain = JSON.parse((await runCli(['replay', file, '--json'])).stdout);
    expect(plain.compactions).toBe(0);
    const result = await runCli(['replay', file, '--policy', 'seed-004-sliding', '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.compactions).toBeGreaterThan(0);
    expect(report.recordsAddedByStrategy.drop).toBeGreaterThan(0);
    expect(report.recordsAddedByStrategy.summarize).toBe(0);
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore);
  });

  it('reads a policy file that names a preset and overrides its mode', async () => {
    const file = await writeChatTranscript();
    const policyFile = join(await mkdtemp(join(tmpdir(), 'compactor-policy-')), 'policy.json');
    await writeFile(
      policyFile,
      JSON.stringify({
        preset: 'seed-004-sliding',
        mode: { kind: 'recursive-summarization', maxEventsToKeep: 6 },
      }),
    );
    const report = JSON.parse((await runCli(['replay', file, '--policy', policyFile, '--json'])).stdout);
    expect(report.compactions).toBeGreaterThan(0);
    expect(report.recordsAddedByStrategy.summarize).toBeGreaterThan(0);
  });

  it('rejects a name that is neither a preset nor a file', async () => {
    const file = await writeChatTranscript(2);
    const result = await runCli(['replay', file, '--policy', 'seed-999']);
    expect(result.code).not.toBe(0);
  });
});
