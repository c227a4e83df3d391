import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, KEY_A, messageEvent, startTestIngest, type TestIngest } from './support.js';

/**
 * Token counting must never stall the ingest: while one client appends a megabyte of text that
 * byte-pair encoding handles worst (one repeated letter, base64, CJK without punctuation), another
 * keeps asking `/healthz` over a real socket, and every answer must come back within 200 ms.
 * Before counting was bounded, the base64 append held the event loop for 3.5 s and the repeated
 * letter for many minutes.
 */

const healthBoundMs = 200;
const megabyte = 1024 * 1024;

/** Pseudo-random CJK ideographs (U+4E00–U+9FFF), no punctuation: one pre-tokenizer piece. */
function cjkText(bytes: number): string {
  const codes: number[] = [];
  let state = 20_250_601;
  for (let i = 0; i < bytes / 3; i++) {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    codes.push(0x4e00 + (state % 0x5200));
  }
  let text = '';
  for (let i = 0; i < codes.length; i += 8192) text += String.fromCharCode(...codes.slice(i, i + 8192));
  return text;
}

const adversarialTexts: ReadonlyArray<readonly [string, () => string]> = [
  ['base64 ×1 MB', () => randomBytes((megabyte * 3) / 4).toString('base64')],
  ['one repeated letter ×1 MB', () => 'a'.repeat(megabyte)],
  ['CJK without punctuation ×1 MB', () => cjkText(megabyte)],
];

let ingest: TestIngest;
let baseUrl: string;

beforeAll(async () => {
  ingest = await startTestIngest({ limits: { maxBodyBytes: 8 * megabyte } });
  baseUrl = await ingest.app.listen({ port: 0, host: '127.0.0.1' });
  const created = await fetch(`${baseUrl}/v1/threads`, {
    method: 'POST',
    headers: { ...bearer(KEY_A), 'content-type': 'application/json' },
    body: JSON.stringify({ threadId: 'adversarial', model: 'claude-sonnet-4-5' }),
  });
  expect(created.status).toBe(201);
  // The first count in a process loads the encoder's rank table (a few hundred ms, once); that
  // start-up cost is not what this test is about, so an ordinary message pays it first.
  const warmUp = await fetch(`${baseUrl}/v1/threads/adversarial/events`, {
    method: 'POST',
    headers: { ...bearer(KEY_A), 'content-type': 'application/json' },
    body: JSON.stringify({ events: [messageEvent('user', 'Hello there, how are you today?')] }),
  });
  expect(warmUp.status).toBe(201);
});
afterAll(async () => {
  await ingest.cleanup();
});

/**
 * Polls `/healthz` from a separate process while `run` runs (a poller on the server's own event loop would be held
 * up by the same stall it is meant to see), one request at a time with 10 ms between them. Returns
 * `run`'s result and each answer's latency in ms.
 */
async function pollHealthDuring<T>(run: () => Promise<T>): Promise<{ result: T; latencies: number[] }> {
  const poller = spawn(process.execPath, ['--input-type=module', '-e', pollerScript, `${baseUrl}/healthz`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let buffered = '';
  poller.stdout.setEncoding('utf8');
  poller.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    lines.push(...complete.filter((line) => line.length > 0));
  });
  const exited = new Promise((resolve) => poller.once('exit', resolve));
  // Wait for the poller's first answer, so polls are in flight before the append starts.
  while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  // Answers that came back before `run` started measure the poller's own warm-up, not the server.
  const before = lines.length;
  try {
    const result = await run();
    // Stopping lets the poll in flight finish and print, so the stalled one is never lost.
    poller.stdin.end('stop\n');
    await exited;
    return { result, latencies: latenciesOf(lines.slice(before)) };
  } finally {
    if (poller.exitCode === null) poller.kill();
  }
}

function latenciesOf(lines: readonly string[]): number[] {
  return lines.map((line) => {
    const { ms, status } = JSON.parse(line) as { ms: number; status: number };
    expect(status).toBe(200);
    return ms;
  });
}

/** The poller: GET the URL in a loop, print `{ms,status}` per answer, stop when stdin closes. */
const pollerScript = `
const url = process.argv[1];
let stopped = false;
process.stdin.on('data', () => { stopped = true; });
process.stdin.on('end', () => { stopped = true; });
while (!stopped) {
  const started = performance.now();
  const response = await fetch(url);
  await response.text();
  process.stdout.write(JSON.stringify({ ms: performance.now() - started, status: response.status }) + '\\n');
  await new Promise((resolve) => setTimeout(resolve, 10));
}
`;

describe('/healthz while a client appends adversarial text', () => {
  let sequence = 0;
  for (const [name, makeText] of adversarialTexts) {
    it(`answers within ${healthBoundMs} ms during an append of ${name}`, { timeout: 120_000 }, async () => {
      sequence += 1;
      const text = makeText();
      const body = JSON.stringify({
        events: [
          {
            eventId: `adversarial-${sequence}`,
            type: 'message.appended',
            message: { id: `m-${sequence}`, role: 'user', content: [{ type: 'text', text }] },
          },
        ],
      });
      const { result: response, latencies } = await pollHealthDuring(() =>
        fetch(`${baseUrl}/v1/threads/adversarial/events`, {
          method: 'POST',
          headers: { ...bearer(KEY_A), 'content-type': 'application/json' },
          body,
        }),
      );

      expect(response.status).toBe(201);
      expect(latencies.length).toBeGreaterThanOrEqual(2);
      expect(Math.max(...latencies)).toBeLessThan(healthBoundMs);

      const thread = await fetch(`${baseUrl}/v1/threads/adversarial`, { headers: bearer(KEY_A) });
      const stored = (await thread.json()) as { tokens: { messages: number } };
      // Every character of these texts costs at least a fraction of a token; a count of zero
      // or a tiny one would mean the text was skipped rather than counted.
      expect(stored.tokens.messages).toBeGreaterThan(sequence * 10_000);
    });
  }
});
