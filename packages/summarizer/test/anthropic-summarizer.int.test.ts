import {
  errorResponse,
  type FakeMessagesApi,
  startFakeMessagesApi,
  textResponse,
  toolUseResponse,
} from '@compactor/testkit/fake-messages-api';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createAnthropicSummarizer,
  createResilientSummarizer,
  SUMMARY_TOOL_NAME,
  SummarizerOutputError,
} from '../src/index.js';

const { thread } = threadBuilder('t1')
  .user('Migrate the billing service. Never run migrations against production.')
  .assistant('Reading the schema.', {
    toolCalls: [{ id: 'c1', name: 'read', input: { path: 'db/schema.sql' } }],
  })
  .toolResult('c1', 'CREATE TABLE invoices (...);')
  .assistant('Done.')
  .build();

const request = {
  tenantId: 'tenant-1',
  threadId: thread.id,
  span: { messageIds: thread.messages.map((message) => message.id), firstTurn: 1, lastTurn: 1 },
  messages: thread.messages,
};

const goodSummary = {
  currentTask: 'Migrate the billing service',
  facts: ['The invoices table is defined in db/schema.sql'],
  decisions: [{ decision: 'Read the schema first' }],
  openItems: [],
  currentPlan: ['write the migration'],
  filesRead: ['db/schema.sql'],
  filesModified: [],
  toolOutcomes: [],
};

describe('Anthropic summarizer against a loopback Messages API', () => {
  let api: FakeMessagesApi;
  beforeAll(async () => {
    api = await startFakeMessagesApi();
  });
  afterAll(async () => {
    await api.close();
  });
  beforeEach(() => {
    api.requests.length = 0;
  });

  const make = (overrides: Partial<Parameters<typeof createAnthropicSummarizer>[0]> = {}) =>
    createAnthropicSummarizer({
      apiKey: 'test-key',
      baseURL: api.url,
      baseDelayMs: 1,
      maxDelayMs: 5,
      ...overrides,
    });

  it('asks Haiku for a forced record_summary call and prices the reported usage', async () => {
    api.enqueue(toolUseResponse(SUMMARY_TOOL_NAME, goodSummary, { input_tokens: 1000, output_tokens: 200 }));
    const result = await make().summarize(request);
    expect(result.via).toBe('llm');
    expect(result.summary.currentTask).toBe('Migrate the billing service');
    expect(result.summary.filesRead).toEqual(['db/schema.sql']);
    // Haiku 4.5: $1/M input, $5/M output.
    expect(result.costUsd).toBeCloseTo((1000 * 1 + 200 * 5) / 1_000_000, 12);
    const sent = api.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    // SDK 1.x authenticates with a bearer token (0.x sent x-api-key).
    expect(sent.headers.authorization).toBe('Bearer test-key');
    expect(sent.body).toMatchObject({
      model: 'claude-haiku-4-5',
      tool_choice: { type: 'tool', name: SUMMARY_TOOL_NAME },
    });
    const prompt = (sent.body as { messages: Array<{ content: string }> }).messages[0]!.content;
    expect(prompt).toContain('Never run migrations against production.');
    expect(prompt).toContain('→ read({"path":"db/schema.sql"})');
  });

  it('stamps each decision with the time the span ended (Decision.timestamp, ADR-0194)', async () => {
    api.enqueue(toolUseResponse(SUMMARY_TOOL_NAME, goodSummary, { input_tokens: 10, output_tokens: 5 }));
    const stamped = thread.messages.map((message, index) => ({
      ...message,
      createdAt: `2025-06-01T00:00:0${index}.000Z`,
    }));
    const result = await make().summarize({ ...request, messages: stamped });
    expect(result.summary.decisions).toEqual([
      { decision: 'Read the schema first', timestamp: `2025-06-01T00:00:0${stamped.length - 1}.000Z` },
    ]);
    // Without times on the messages, nothing is invented.
    api.enqueue(toolUseResponse(SUMMARY_TOOL_NAME, goodSummary, { input_tokens: 10, output_tokens: 5 }));
    const unstamped = await make().summarize(request);
    expect(unstamped.summary.decisions[0]!.timestamp).toBeUndefined();
  });

  it('retries a 429 and succeeds', async () => {
    api.enqueue(
      errorResponse(429, 'rate_limit_error', { 'retry-after': '0' }),
      toolUseResponse(SUMMARY_TOOL_NAME, goodSummary),
    );
    const result = await make().summarize(request);
    expect(result.via).toBe('llm');
    expect(api.requests).toHaveLength(2);
  });

  it('retries 529 overloaded, and gives up with a retryable error when it persists', async () => {
    api.enqueue(errorResponse(529, 'overloaded_error'), toolUseResponse(SUMMARY_TOOL_NAME, goodSummary));
    expect((await make().summarize(request)).via).toBe('llm');
    api.requests.length = 0;
    api.enqueue(
      errorResponse(529, 'overloaded_error'),
      errorResponse(529, 'overloaded_error'),
      errorResponse(529, 'overloaded_error'),
    );
    await expect(make({ attempts: 3 }).summarize(request)).rejects.toMatchObject({ status: 529 });
    expect(api.requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    api.enqueue(errorResponse(400, 'invalid_request_error'));
    await expect(make().summarize(request)).rejects.toMatchObject({ status: 400 });
    expect(api.requests).toHaveLength(1);
  });

  it('asks once more after malformed output, then fails with a typed error', async () => {
    api.enqueue(
      toolUseResponse(SUMMARY_TOOL_NAME, { facts: 'not a list' }),
      toolUseResponse(SUMMARY_TOOL_NAME, goodSummary),
    );
    expect((await make().summarize(request)).summary.currentTask).toBe('Migrate the billing service');
    api.enqueue(textResponse('I refuse to call tools'), toolUseResponse(SUMMARY_TOOL_NAME, { facts: [] }));
    const error = await make()
      .summarize(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SummarizerOutputError);
    expect((error as SummarizerOutputError).isRetryable).toBe(false);
  });

  it('times out a request that takes too long, retrying first', async () => {
    api.setFallback({ ...toolUseResponse(SUMMARY_TOOL_NAME, goodSummary), delayMs: 500 });
    await expect(make({ timeoutMs: 100, attempts: 2 }).summarize(request)).rejects.toThrow(/timed out/i);
    expect(api.requests).toHaveLength(2);
    api.setFallback(errorResponse(500, 'api_error'));
  });

  it('honours an abort signal', async () => {
    api.setFallback({ ...toolUseResponse(SUMMARY_TOOL_NAME, goodSummary), delayMs: 1000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(make().summarize({ ...request, signal: controller.signal })).rejects.toThrow();
    expect(api.requests).toHaveLength(1);
    api.setFallback(errorResponse(500, 'api_error'));
  });

  it('splits a span larger than its own window and folds each part into the next', async () => {
    const big = threadBuilder('t2');
    for (let index = 0; index < 12; index += 1) {
      big.user(`request ${index}: ${'word '.repeat(400)}`);
      big.assistant(`answer ${index}`);
    }
    const messages = big.build().thread.messages;
    api.setFallback((recorded) => {
      const prompt = (recorded.body as { messages: Array<{ content: string }> }).messages[0]!.content;
      const part = /part (\d+) of (\d+)/.exec(prompt);
      return toolUseResponse(SUMMARY_TOOL_NAME, {
        ...goodSummary,
        facts: [`covered part ${part?.[1] ?? 'all'}`],
      });
    });
    // A 10k-token window with 2k of output leaves room for a few messages per call.
    const result = await make({ contextWindow: 10_000, maxOutputTokens: 2000 }).summarize({
      ...request,
      messages,
      span: { messageIds: messages.map((message) => message.id), firstTurn: 1, lastTurn: 12 },
    });
    const calls = api.requests.length;
    expect(calls).toBeGreaterThan(1);
    for (const recorded of api.requests) {
      const prompt = (recorded.body as { messages: Array<{ content: string }> }).messages[0]!.content;
      expect(Math.ceil(prompt.length / 3)).toBeLessThanOrEqual(10_000 - 2000);
    }
    // Every later part saw the summary so far.
    const second = (api.requests[1]!.body as { messages: Array<{ content: string }> }).messages[0]!.content;
    expect(second).toContain('covered part 1');
    expect(result.summary.facts.map((fact) => fact.text)).toEqual(
      Array.from({ length: calls }, (_, index) => `covered part ${index + 1}`),
    );
    api.setFallback(errorResponse(500, 'api_error'));
  });

  it('falls back to the extractive summary, keeping the pinned constraint, when the model fails', async () => {
    api.setFallback(errorResponse(529, 'overloaded_error'));
    const resilient = createResilientSummarizer({ primary: make({ attempts: 2 }) });
    const result = await resilient.summarize(request);
    expect(result.via).toBe('extractive');
    expect(result.summary.facts).toContainEqual(
      expect.objectContaining({
        text: 'User constraint (turn 1): Never run migrations against production.',
        pinned: true,
      }),
    );
  });

  it('merges the structural guarantees into what the model wrote', async () => {
    api.enqueue(toolUseResponse(SUMMARY_TOOL_NAME, goodSummary));
    const resilient = createResilientSummarizer({ primary: make() });
    const result = await resilient.summarize(request);
    expect(result.via).toBe('llm');
    const texts = result.summary.facts.map((fact) => fact.text);
    expect(texts).toContain('User constraint (turn 1): Never run migrations against production.');
    expect(texts).toContain('The invoices table is defined in db/schema.sql');
    expect(result.summary.currentTask).toBe('Migrate the billing service');
  });
});
