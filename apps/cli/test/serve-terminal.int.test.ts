import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DEV_API_KEY_FILE, loadOrCreateDevApiKey } from '../src/commands/dev-api-key.js';
import { formatLogLine, terminalLogDestination } from '../src/commands/terminal-log.js';

describe('serve on a developer machine', () => {
  it('keeps the development API key in the data directory across restarts', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'compactor-devkey-')), 'data');
    try {
      const first = await loadOrCreateDevApiKey(dataDir);
      expect(first).toMatch(/^dev-[0-9a-f]{24}$/);
      expect(await loadOrCreateDevApiKey(dataDir)).toBe(first);
      expect((await readFile(join(dataDir, DEV_API_KEY_FILE), 'utf8')).trim()).toBe(first);
      expect((await stat(join(dataDir, DEV_API_KEY_FILE))).mode & 0o077).toBe(0);
      const other = join(dataDir, '..', 'other');
      expect(await loadOrCreateDevApiKey(other)).not.toBe(first);
    } finally {
      await rm(join(dataDir, '..'), { recursive: true, force: true });
    }
  });

  it('prints short log lines on a terminal and leaves out per-request lines below warn', async () => {
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
    });
    const logger = pino({ level: 'info', name: 'compactor' }, terminalLogDestination(output));
    logger.info({ store: 'embedded' }, 'runtime ready');
    logger.info({ req: { url: '/v1/threads' } }, 'incoming request');
    logger.info({ res: { statusCode: 200 } }, 'request completed');
    logger.warn({ threadId: 't1' }, 'compaction freed too little to commit');
    await new Promise((resolve) => setImmediate(resolve));
    const lines = printed.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d info {2}runtime ready store=embedded$/);
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d warn {2}compaction freed too little to commit threadId=t1$/);
    expect(formatLogLine('{"level":50,"msg":"request completed","time":0}')).toBe(
      '00:00:00 error request completed',
    );
    expect(formatLogLine('not json')).toBe('not json');
  });
});
