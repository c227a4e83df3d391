import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BadRequest, badRequests } from './fuzz/bad-requests.js';
import { snapshotFiles } from './fuzz/data-snapshot.js';
import { rawRequest } from './raw-http.js';
import {
  appendEvents,
  createThread,
  KEY_A,
  listenOnLoopback,
  messageEvent,
  startTestIngest,
  type TestIngest,
} from './support.js';

/**
 * Fuzzing over real HTTP: at least 10,000 generated bad requests per run against a listening
 * ingest, each of which must be a 4xx in our envelope, and the stored logs and plans must be
 * byte-identical afterwards (bad input changes nothing). FUZZ_RUNS scales it; FUZZ_SEED replays a run.
 */
const REQUESTS_PER_RUN = 50;
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const THREAD = 'fuzz-target';
const STORED_DIRECTORIES = ['events', 'plans', 'lifecycle', 'artifacts', 'compaction-pending'];

let ingest: TestIngest;
let port: number;

beforeAll(async () => {
  ingest = await startTestIngest();
  expect(
    (await createThread(ingest.app, KEY_A, { threadId: THREAD, model: 'claude-sonnet-4-5' })).statusCode,
  ).toBe(201);
  const events = ['m1', 'm2', 'm3'].map((id) =>
    messageEvent('user', `message ${id}`, { eventId: id, messageId: id }),
  );
  expect((await appendEvents(ingest.app, KEY_A, THREAD, events)).statusCode).toBe(201);
  ({ port } = await listenOnLoopback(ingest.app));
});
afterAll(async () => {
  await ingest.cleanup();
});

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

async function send(request: BadRequest): Promise<Answer> {
  if (request.raw !== undefined) {
    const response = await rawRequest(port, request.raw);
    return {
      status: response.status,
      contentType: response.headers['content-type'] ?? '',
      body: response.body,
    };
  }
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: await response.text(),
  };
}

/** A 4xx whose body is exactly `{ error: { code, message, issues?, details? } }`. */
function refusalProblem(answer: Answer): string | undefined {
  if (answer.status < 400 || answer.status > 499) return `status ${answer.status}`;
  if (!answer.contentType.startsWith('application/json')) return `content-type ${answer.contentType}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return 'body is not JSON';
  }
  const error = (body as { error?: Record<string, unknown> }).error;
  if (Object.keys(body as object).join() !== 'error' || typeof error !== 'object' || error === null)
    return 'not an envelope';
  if (typeof error.code !== 'string' || typeof error.message !== 'string') return 'no code or message';
  const extra = Object.keys(error).filter((key) => !['code', 'message', 'issues', 'details'].includes(key));
  return extra.length > 0 ? `extra fields ${extra.join()}` : undefined;
}

describe('HTTP fuzzing with bad requests', () => {
  it(`refuses ${RUNS * REQUESTS_PER_RUN} generated bad requests with a 4xx in our envelope and changes no stored byte`, async () => {
    const before = await snapshotFiles(ingest.dataDir, STORED_DIRECTORIES);
    expect(Object.keys(before).length).toBeGreaterThan(0);
    const statuses = new Map<number, number>();
    let sent = 0;
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(
        fc.array(badRequests({ threadId: THREAD, key: KEY_A }), {
          minLength: REQUESTS_PER_RUN,
          maxLength: REQUESTS_PER_RUN,
        }),
        async (batch) => {
          const answers = await Promise.all(batch.map(send));
          sent += batch.length;
          answers.forEach((answer, index) => {
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            const problem = refusalProblem(answer);
            if (problem) {
              const request = batch[index]!;
              throw new Error(
                `${request.kind}: ${problem}\n${request.method} ${request.path}\n${(request.body ?? request.raw ?? '').slice(0, 300)}\n→ ${answer.body.slice(0, 300)}`,
              );
            }
          });
        },
      ),
      { numRuns: RUNS, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(
      `http fuzz: ${sent} bad requests in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}\n`,
    );
    expect(sent).toBeGreaterThanOrEqual(RUNS * REQUESTS_PER_RUN);
    expect(await snapshotFiles(ingest.dataDir, STORED_DIRECTORIES)).toEqual(before);
  }, 120_000);
});
