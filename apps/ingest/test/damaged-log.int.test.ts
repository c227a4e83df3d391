import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  startTestIngest,
  type TestIngest,
} from './support.js';

let dataDir: string;
let ingest: TestIngest;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'compactor-damaged-'));
  const writer = await startTestIngest({ dataDir });
  expect(
    (await createThread(writer.app, KEY_A, { threadId: 'damaged', model: 'claude-sonnet-4-5' })).statusCode,
  ).toBe(201);
  for (const text of ['first', 'second', 'third']) {
    expect((await appendEvents(writer.app, KEY_A, 'damaged', [messageEvent('user', text)])).statusCode).toBe(
      201,
    );
  }
  await writer.cleanup();
  // Damage the first record of the thread's log, before intact records: not a crash tail, so the
  // store refuses the log (IntegrityError naming the file) instead of cutting it.
  const directory = join(dataDir, 'events');
  const [tenant] = await readdir(directory);
  const log = join(directory, tenant!, 'damaged.log');
  const bytes = await readFile(log);
  bytes.fill('#'.charCodeAt(0), 10, 40);
  await writeFile(log, bytes);
  ingest = await startTestIngest({ dataDir });
});
afterAll(async () => {
  await ingest?.cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

describe('a damaged log', () => {
  it.each(['/v1/threads/damaged', '/v1/threads/damaged/events', '/v1/threads/damaged/prompt'])(
    '%s answers 500 integrity without any server file path',
    async (url) => {
      const response = await ingest.app.inject({ method: 'GET', url, headers: bearer(KEY_A) });
      expect(response.statusCode).toBe(500);
      expect(response.json().error.code).toBe('integrity');
      expect(response.body).not.toContain(dataDir);
      expect(response.body).not.toMatch(/\/[\w.-]+\/[\w.-]+/);
      expect(response.json().error.message).toContain('<path>');
    },
  );
});
