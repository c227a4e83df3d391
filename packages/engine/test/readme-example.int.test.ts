import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactAThread } from '../examples/compact-a-thread.js';

describe("the README's example", () => {
  let dataDir = '';
  let result: Awaited<ReturnType<typeof compactAThread>>;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-engine-example-'));
    result = await compactAThread(dataDir);
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('fires the default trigger and commits plan version 1', () => {
    expect(result.triggerFired).toBe(true);
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect(result.compressionRatio).toBeGreaterThan(1);
  });

  it('renders within the 8k window, with the pinned rule kept verbatim', () => {
    expect(result.renderedTokens).toBeLessThanOrEqual(8_000);
    expect(result.renderedText).toContain('Reply in English.');
  });

  it('records what it did as lifecycle events', () => {
    expect(result.lifecycleNames).toContain('compaction_check_started');
    expect(result.lifecycleNames).toContain('compaction_completed');
  });
});
