/**
 * LangChain's own agent (`createAgent`) with its fake chat model and a real tool, 40 tool steps,
 * with the compaction middleware. Every request the model received is the rendered one (valid in
 * the portable profile, within budget); the agent's state keeps every message; the log holds each once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foldThread } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactor, type PreparedRequest } from '@compactor/engine';
import { validateProviderRequest } from '@compactor/render/validate';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { fakeModel } from '@langchain/core/testing';
import { AIMessage, createAgent, HumanMessage, tool } from 'langchain';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compactionMiddleware } from '../src/index.js';

const STEPS = 40;
const BUDGET = 7_000;

const readLog = tool(
  async ({ service }) => `${service}: 0 errors, p99 41 ms, 3/3 replicas healthy. `.repeat(25),
  {
    name: 'read_log',
    description: 'Read the last hour of one service log.',
    schema: z.object({ service: z.string() }),
  },
);

function scriptedModel() {
  const model = fakeModel();
  for (let step = 1; step < STEPS; step += 1) {
    model.respond(
      new AIMessage({
        content: `Reading svc-${step}.`,
        tool_calls: [
          { id: `call_${step}`, name: 'read_log', args: { service: `svc-${step}` }, type: 'tool_call' },
        ],
      }),
    );
  }
  model.respond(new AIMessage({ content: 'All services are healthy.' }));
  return model;
}

describe('LangChain createAgent with the compaction middleware', () => {
  let dataDir: string;
  let stores: EmbeddedStores;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-langchain-'));
    stores = await createEmbeddedStores({ dataDir });
  });
  afterEach(async () => {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('calls the model with compacted, valid, within-budget messages and leaves the agent state whole', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const prepared: PreparedRequest<'ai-sdk'>[] = [];
    const model = scriptedModel();
    const agent = createAgent({
      model,
      tools: [readLog],
      systemPrompt: 'You are an SRE assistant.',
      middleware: [
        compactionMiddleware({
          compactor,
          threadId: 'ops',
          contextWindow: 16_000,
          budget: BUDGET,
          onPrepared: (request) => prepared.push(request),
        }),
      ],
    });
    const result = await agent.invoke(
      { messages: [new HumanMessage('Check every service log.')] },
      { recursionLimit: 200 },
    );

    expect(result.messages.at(-1)!.text).toBe('All services are healthy.');
    // The state keeps everything: 1 + 39 × (call, result) + the answer.
    expect(result.messages).toHaveLength(1 + 2 * (STEPS - 1) + 1);
    expect(model.callCount).toBe(STEPS);
    expect(prepared).toHaveLength(STEPS);
    prepared.forEach((request, index) => {
      expect(request.tokens.total).toBeLessThanOrEqual(BUDGET);
      expect(request.tokens.system).toBeGreaterThan(0);
      expect(request.tokens.tools).toBeGreaterThan(0);
      expect(validateProviderRequest('ai-sdk', request.request).errors).toEqual([]);
      // The model got exactly the rendered conversation (after the agent's own system message).
      const received = model.calls[index]!.messages.filter((message) => message.type !== 'system');
      expect(received).toHaveLength(
        request.request.messages.reduce(
          (count, message) => count + (message.role === 'tool' ? message.content.length : 1),
          0,
        ),
      );
    });
    expect(prepared.some((request) => request.compaction?.commit.status === 'committed')).toBe(true);
    const lastCall = model.calls.at(-1)!.messages;
    expect(lastCall.length).toBeLessThan(result.messages.length);
    expect(JSON.stringify(lastCall.map((message) => message.text))).toContain('svc-39');
    const thread = foldThread(await stores.events.readAll('local', 'ops'));
    expect(thread.messages).toHaveLength(result.messages.length);
  }, 180_000);

  it("a tool's screenshot reaches the model as an image block and the log as the result's media (ADR-0332)", async () => {
    const PNG =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const screenshot = tool(
      async () => [
        { type: 'text', text: 'Dashboard loaded.' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
      ],
      { name: 'screenshot', description: 'Screenshot the page.', schema: z.object({}) },
    );
    const model = fakeModel()
      .respond(
        new AIMessage({
          content: 'Looking.',
          tool_calls: [{ id: 'shot_1', name: 'screenshot', args: {}, type: 'tool_call' }],
        }),
      )
      .respond(new AIMessage({ content: 'The dashboard is green.' }));
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const agent = createAgent({
      model,
      tools: [screenshot],
      middleware: [compactionMiddleware({ compactor, threadId: 'shots', contextWindow: 16_000 })],
    });
    await agent.invoke({ messages: [new HumanMessage('How does the dashboard look?')] });
    const sent = model.calls.at(-1)!.messages.find((message) => message.type === 'tool')!;
    expect(sent.content).toEqual([
      { type: 'text', text: 'Dashboard loaded.' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
    ]);
    const thread = foldThread(await stores.events.readAll('local', 'shots'));
    const result = thread.messages
      .flatMap((message) => message.content)
      .find((part) => part.type === 'tool_result');
    expect(result).toMatchObject({
      content: 'Dashboard loaded.',
      media: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: PNG } }],
    });
  }, 60_000);
});
