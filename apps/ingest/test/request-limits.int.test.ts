import { validateProviderRequest } from '@compactor/render/validate';
import { createTokenizer } from '@compactor/tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../src/http/json-depth.js';
import { SYSTEM_PROMPT_MAX_LENGTH, THREAD_ID_MAX_LENGTH } from '../src/schemas/request-schemas.js';
import {
  appendEvents,
  bearer,
  createThread,
  KEY_A,
  messageEvent,
  startTestIngest,
  type TestIngest,
} from './support.js';

const MODEL = 'claude-sonnet-4-5';
let ingest: TestIngest;

beforeAll(async () => {
  // Room for a 100,000-character system prompt in one body.
  ingest = await startTestIngest({ limits: { maxBodyBytes: 1024 * 1024 } });
  expect((await createThread(ingest.app, KEY_A, { threadId: 'limits', model: MODEL })).statusCode).toBe(201);
  const events = [
    messageEvent('user', 'What soil do roses like?'),
    messageEvent('assistant', 'Well drained.'),
  ];
  expect((await appendEvents(ingest.app, KEY_A, 'limits', events)).statusCode).toBe(201);
});
afterAll(async () => {
  await ingest.cleanup();
});

function get(url: string) {
  return ingest.app.inject({ method: 'GET', url, headers: bearer(KEY_A) });
}

function post(url: string, payload: unknown) {
  return ingest.app.inject({ method: 'POST', url, headers: bearer(KEY_A), payload: payload as object });
}

function issuePaths(response: { json(): unknown }): string[] {
  const body = response.json() as { error: { issues?: Array<{ path: string }> } };
  return (body.error.issues ?? []).map((issue) => issue.path).sort();
}

describe('one id limit', () => {
  it('a thread id of the longest length is created and then answers on every route', async () => {
    const threadId = 't'.repeat(THREAD_ID_MAX_LENGTH);
    expect((await createThread(ingest.app, KEY_A, { threadId, model: MODEL })).statusCode).toBe(201);
    for (const path of ['', '/events', '/plan', '/prompt']) {
      expect((await get(`/v1/threads/${threadId}${path}`)).statusCode).toBe(200);
    }
    expect((await appendEvents(ingest.app, KEY_A, threadId, [messageEvent('user', 'hi')])).statusCode).toBe(
      201,
    );
  });

  it('a longer thread id is refused at create (400), and over the router as a 414 in our envelope', async () => {
    const threadId = 't'.repeat(THREAD_ID_MAX_LENGTH + 1);
    const created = await createThread(ingest.app, KEY_A, { threadId, model: MODEL });
    expect(created.statusCode).toBe(400);
    expect(issuePaths(created)).toEqual(['threadId']);
    const read = await get(`/v1/threads/${threadId}`);
    expect(read.statusCode).toBe(414);
    expect(read.json()).toEqual({ error: { code: 'uri_too_long', message: expect.any(String) } });
  });

  it('refuses message, tool call and event ids over 200 characters, and stores nothing', async () => {
    const long = 'x'.repeat(201);
    const message = messageEvent('user', 'hello', { messageId: long });
    const call = {
      eventId: long,
      type: 'message.appended',
      message: {
        id: 'call-message',
        role: 'assistant',
        content: [{ type: 'tool_call', id: long, name: 'read', input: {} }],
      },
    };
    const response = await appendEvents(ingest.app, KEY_A, 'limits', [message, call]);
    expect(response.statusCode).toBe(400);
    expect(issuePaths(response)).toEqual([
      'events.0.message.id',
      'events.1.eventId',
      'events.1.message.content.0.id',
    ]);
    expect((await get('/v1/threads/limits')).json().version).toBe(3);
  });

  it('refuses a 3 MB message id with 413 (body limit) or 400, never storing it', async () => {
    const response = await appendEvents(ingest.app, KEY_A, 'limits', [
      messageEvent('user', 'hi', { messageId: 'm'.repeat(3 * 1024 * 1024) }),
    ]);
    expect([400, 413]).toContain(response.statusCode);
    expect(response.json().error.code).toMatch(/^(validation|payload_too_large)$/);
  });
});

describe('strict integers and budgets', () => {
  it.each(['1e3', '0x10', '12.0', ' 12', '+5', '١٢'])('refuses %j as limit and as fromSeq', async (value) => {
    const response = await get(
      `/v1/threads/limits/events?limit=${encodeURIComponent(value)}&fromSeq=${encodeURIComponent(value)}`,
    );
    expect(response.statusCode).toBe(400);
    expect(issuePaths(response)).toEqual(['query.fromSeq', 'query.limit']);
  });

  it('still takes plain decimal integers', async () => {
    const response = await get('/v1/threads/limits/events?limit=1000&fromSeq=2');
    expect(response.statusCode).toBe(200);
    expect(response.json().events.map((event: { seq: number }) => event.seq)).toEqual([2, 3]);
  });

  it('refuses a budget above the thread window, in the query and in the body', async () => {
    const window = (await get('/v1/threads/limits')).json().contextWindow as number;
    const byQuery = await get(`/v1/threads/limits/prompt?budget=${window + 1}`);
    expect(byQuery.statusCode).toBe(400);
    expect(byQuery.json().error.message).toContain(`context window of ${window}`);
    const byBody = await post('/v1/threads/limits/prompt', { budget: 99_999_999_999 });
    expect(byBody.statusCode).toBe(400);
    expect(issuePaths(byBody)).toEqual(['budget']);
    expect((await get(`/v1/threads/limits/prompt?budget=${window}`)).statusCode).toBe(200);
  });

  it('refuses at create a window with no room for input after the output reserve', async () => {
    const tiny = await createThread(ingest.app, KEY_A, {
      model: 'house-model',
      contextWindow: 1,
      maxOutputTokens: 1,
      tokenizerFamily: 'o200k_base',
    });
    expect(tiny.statusCode).toBe(400);
    expect(issuePaths(tiny)).toEqual(['contextWindow']);
    const reserveTooLarge = await createThread(ingest.app, KEY_A, {
      model: MODEL,
      contextWindow: 8_000,
      policy: { outputReserveTokens: 9_000 },
    });
    expect(reserveTooLarge.statusCode).toBe(400);
    const small = await createThread(ingest.app, KEY_A, { model: MODEL, contextWindow: 8_000 });
    expect(small.statusCode).toBe(201);
  });
});

describe('deeply nested JSON', () => {
  /** JSON text nesting `depth` objects (built as text: a recursive stringify could overflow itself). */
  function nested(depth: number): string {
    return `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;
  }

  function toolCallBody(eventId: string, depth: number): string {
    return (
      `{"events":[{"eventId":"${eventId}","type":"message.appended","message":{"id":"${eventId}",` +
      `"role":"assistant","content":[{"type":"tool_call","id":"${eventId}","name":"x","input":${nested(depth)}}]}}]}`
    );
  }

  function appendText(body: string) {
    return ingest.app.inject({
      method: 'POST',
      url: '/v1/threads/limits/events',
      headers: { ...bearer(KEY_A), 'content-type': 'application/json' },
      payload: body,
    });
  }

  it('a 5,000-deep tool-call input is a 400 in our envelope, and nothing is stored', async () => {
    const before = (await get('/v1/threads/limits')).json().version;
    const response = await appendText(toolCallBody('deep', 5_000));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'validation',
      message: expect.stringContaining(`${MAX_JSON_DEPTH}`),
    });
    expect((await get('/v1/threads/limits')).json().version).toBe(before);
  });

  it('an input nested within the limit is stored', async () => {
    expect((await appendText(toolCallBody('shallow', MAX_JSON_DEPTH - 8))).statusCode).toBe(201);
    expect((await appendText(toolCallBody('too-deep', MAX_JSON_DEPTH))).statusCode).toBe(400);
  });
});

describe('POST /v1/threads/:id/prompt', () => {
  const tokenizer = createTokenizer({ model: MODEL });
  const tools = [
    {
      name: 'read_file',
      description: 'Read a file of the repository',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  ];

  it('renders the system prompt and tools from the body, both counted within the budget', async () => {
    const response = await post('/v1/threads/limits/prompt', {
      provider: 'anthropic',
      system: 'Be brief.',
      tools,
      budget: 4_000,
    });
    expect(response.statusCode).toBe(200);
    const { request, tokens } = response.json();
    expect(validateProviderRequest('anthropic', request)).toEqual({ valid: true, errors: [] });
    expect(request.tools.map((tool: { name: string }) => tool.name)).toContain('read_file');
    expect(tokens.tools).toBeGreaterThan(0);
    expect(tokens.total).toBeLessThanOrEqual(4_000);
    expect(tokenizer.countRequest(request, 'anthropic')).toBeLessThanOrEqual(4_000);
  });

  it('takes the documented 100,000-character system prompt', async () => {
    const system = 'Follow the house style. '
      .repeat(SYSTEM_PROMPT_MAX_LENGTH / 25)
      .padEnd(SYSTEM_PROMPT_MAX_LENGTH, '.');
    expect(system).toHaveLength(SYSTEM_PROMPT_MAX_LENGTH);
    const response = await post('/v1/threads/limits/prompt', { system, tools });
    expect(response.statusCode).toBe(200);
    expect(response.json().tokens.system).toBeGreaterThan(10_000);
    const longer = await post('/v1/threads/limits/prompt', { system: `${system}.` });
    expect(longer.statusCode).toBe(400);
    expect(issuePaths(longer)).toEqual(['system']);
  });

  it('answers 422 with the numbers when the tools alone leave no room', async () => {
    const manyTools = Array.from({ length: 40 }, (_, index) => ({
      ...tools[0],
      name: `tool_${index}`,
      description: 'A tool with a long description. '.repeat(20),
    }));
    const response = await post('/v1/threads/limits/prompt', { tools: manyTools, budget: 2_000 });
    expect(response.statusCode).toBe(422);
    expect(response.json().error.details.tools).toBeGreaterThan(2_000);
  });

  it('refuses malformed tools with field issues', async () => {
    const response = await post('/v1/threads/limits/prompt', { tools: [{ description: 'no name' }] });
    expect(response.statusCode).toBe(400);
    expect(issuePaths(response)).toEqual(['tools.0.inputSchema', 'tools.0.name']);
  });
});
