/**
 * `streamText` through the middleware: each streamed answer is appended once, complete (text
 * assembled from its deltas, tool calls parsed), and a stream that fails is not appended at all.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { foldThread } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactor } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactionMiddleware } from '../src/index.js';

const STEPS = 55;
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

function textChunks(id: string, text: string): LanguageModelV3StreamPart[] {
  const words = text.split(/(?<= )/);
  return [
    { type: 'text-start', id },
    ...words.map((delta) => ({ type: 'text-delta' as const, id, delta })),
    { type: 'text-end', id },
  ];
}

function streamingModel(options: { failAt?: number } = {}) {
  let calls = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      calls += 1;
      const chunks: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      if (calls === options.failAt) {
        chunks.push(...textChunks('t', 'Half an ans'), {
          type: 'error',
          error: new Error('connection reset'),
        });
      } else if (calls < STEPS) {
        chunks.push(...textChunks('t', `Checking shard ${calls} now.`), {
          type: 'tool-call',
          toolCallId: `call-${calls}`,
          toolName: 'inspect_shard',
          input: JSON.stringify({ shard: calls }),
        });
        chunks.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage });
      } else {
        chunks.push(...textChunks('t', `All ${STEPS - 1} shards are healthy.`));
        chunks.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
      }
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

const tools = {
  inspect_shard: tool({
    inputSchema: jsonSchema<{ shard: number }>({ type: 'object', properties: { shard: { type: 'number' } } }),
    execute: async ({ shard }) => `shard ${shard}: replicas 3/3 in sync, lag 0 ms. `.repeat(15),
  }),
};

describe('streamText through the middleware', () => {
  let dataDir: string;
  let stores: EmbeddedStores;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-ai-sdk-stream-'));
    stores = await createEmbeddedStores({ dataDir });
  });
  afterEach(async () => {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('appends each streamed answer once, complete, the last one included', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const inner = streamingModel();
    const model = wrapLanguageModel({
      model: inner,
      middleware: compactionMiddleware({ compactor, threadId: 'ops', contextWindow: 12_000 }),
    });
    const result = streamText({
      model,
      prompt: 'Check every shard.',
      tools,
      stopWhen: stepCountIs(STEPS + 5),
    });
    expect(await result.text).toBe(`All ${STEPS - 1} shards are healthy.`);
    const response = await result.response;
    const thread = foldThread(await stores.events.readAll('local', 'ops'));
    expect(thread.messages).toHaveLength(1 + response.messages.length);
    const answers = thread.messages.filter((message) => message.role === 'assistant');
    expect(answers).toHaveLength(STEPS);
    expect(answers[0]!.content).toEqual([
      { type: 'text', text: 'Checking shard 1 now.' },
      { type: 'tool_call', id: 'call-1', name: 'inspect_shard', input: { shard: 1 } },
    ]);
    expect(answers.at(-1)!.content).toEqual([{ type: 'text', text: `All ${STEPS - 1} shards are healthy.` }]);
  }, 180_000);

  it('does not append an answer whose stream failed', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const model = wrapLanguageModel({
      model: streamingModel({ failAt: 1 }),
      middleware: compactionMiddleware({ compactor, threadId: 'ops', contextWindow: 12_000 }),
    });
    const result = streamText({ model, prompt: 'Check every shard.', onError: () => {} });
    await result.consumeStream();
    const thread = foldThread(await stores.events.readAll('local', 'ops'));
    expect(thread.messages.map((message) => message.role)).toEqual(['user']);
  });
});
