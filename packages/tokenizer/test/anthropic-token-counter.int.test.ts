import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompactorError } from '@compactor/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicTokenCounter } from '../src/index.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A loopback stand-in for `POST /v1/messages/count_tokens` that records what it receives. */
let server: Server;
let baseURL: string;
let received: Received[] = [];
let respond: (body: Record<string, unknown>) => { status: number; body: unknown } = () => ({
  status: 200,
  body: { input_tokens: 1 },
});

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const reply =
        request.method === 'POST' && request.url?.startsWith('/v1/messages/count_tokens')
          ? respond(body)
          : { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'no route' } } };
      response.writeHead(reply.status, { 'content-type': 'application/json', 'request-id': 'req_test' });
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message } };
}

async function failure(run: () => Promise<unknown>): Promise<CompactorError> {
  try {
    await run();
  } catch (error) {
    if (CompactorError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('createAnthropicTokenCounter against a loopback count_tokens server', () => {
  it('sends the rendered request and returns the input_tokens the server reports', async () => {
    respond = (body) => ({ status: 200, body: { input_tokens: 1000 + (body.messages as unknown[]).length } });
    const counter = createAnthropicTokenCounter({ apiKey: 'test-key', baseURL, maxRetries: 0 });
    const tools = [
      { name: 'bash', description: 'Run a command', input_schema: { type: 'object', properties: {} } },
    ];
    const count = await counter.countRequest({
      model: 'claude-sonnet-4-5',
      system: 'You are careful.',
      tools,
      tool_choice: { type: 'auto' },
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
        { role: 'user', content: 'count me' },
      ],
      max_tokens: 1024,
    } as never);
    expect(count).toBe(1003);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toMatch(/^\/v1\/messages\/count_tokens/);
    // SDK 1.x sends the key as a bearer token; older SDKs used x-api-key.
    const credential =
      request!.headers['x-api-key'] ?? request!.headers.authorization?.replace(/^Bearer /, '');
    expect(credential).toBe('test-key');
    expect(request!.headers['anthropic-version']).toBeTruthy();
    expect(request!.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      system: 'You are careful.',
      tools,
      tool_choice: { type: 'auto' },
    });
    expect(request!.body).not.toHaveProperty('max_tokens');
  });

  it('uses the default model when the request names none, and requires one', async () => {
    respond = () => ({ status: 200, body: { input_tokens: 7 } });
    const withDefault = createAnthropicTokenCounter({
      apiKey: 'k',
      baseURL,
      maxRetries: 0,
      model: 'claude-haiku-4-5',
    });
    expect(await withDefault.countRequest({ messages: [{ role: 'user', content: 'x' }] })).toBe(7);
    expect(received[0]!.body.model).toBe('claude-haiku-4-5');
    const without = createAnthropicTokenCounter({ apiKey: 'k', baseURL, maxRetries: 0 });
    expect((await failure(() => without.countRequest({ messages: [] }))).code).toBe('validation');
  });

  it.each([
    [429, 'rate_limit_error', 'unavailable', true],
    [500, 'api_error', 'unavailable', true],
    [529, 'overloaded_error', 'unavailable', true],
    [400, 'invalid_request_error', 'validation', false],
    [401, 'authentication_error', 'access_denied', false],
    [404, 'not_found_error', 'not_found', false],
  ])('maps HTTP %i to a %s error (%s), retryable: %s', async (status, type, code, retryable) => {
    respond = () => ({ status, body: errorBody(type, `simulated ${status}`) });
    const counter = createAnthropicTokenCounter({ apiKey: 'k', baseURL, maxRetries: 0 });
    const error = await failure(() =>
      counter.countRequest({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(error.code).toBe(code);
    expect(error.isRetryable).toBe(retryable);
  });

  it('lets the SDK retry a 429 before succeeding', async () => {
    let calls = 0;
    respond = () => {
      calls++;
      return calls === 1
        ? { status: 429, body: errorBody('rate_limit_error', 'slow down') }
        : { status: 200, body: { input_tokens: 42 } };
    };
    const counter = createAnthropicTokenCounter({ apiKey: 'k', baseURL, maxRetries: 1 });
    expect(
      await counter.countRequest({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }] }),
    ).toBe(42);
    expect(calls).toBe(2);
  });

  it('maps an unreachable server to a retryable unavailable error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const counter = createAnthropicTokenCounter({
      apiKey: 'k',
      baseURL: `http://127.0.0.1:${port}`,
      maxRetries: 0,
      timeoutMs: 2_000,
    });
    const error = await failure(() => counter.countRequest({ model: 'claude-sonnet-4-5', messages: [] }));
    expect(error.code).toBe('unavailable');
    expect(error.isRetryable).toBe(true);
  });
});
