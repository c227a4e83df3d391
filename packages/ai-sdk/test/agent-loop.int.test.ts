/**
 * The AI SDK's own tool loop (`generateText` with tools and `stopWhen`) on its own mock model,
 * 60 steps of tool calls with large outputs, wrapped by the compaction middleware. Every prompt
 * the model received is valid, within budget and exactly what was rendered; the loop's final
 * answer and steps are those of the same loop without compaction; the log holds each message once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { foldThread } from '@compactor/core';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactor, type PreparedRequest } from '@compactor/engine';
import { validateProviderRequest } from '@compactor/render/validate';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactionMiddleware, compactionPrepareStep, requestToPrompt } from '../src/index.js';

const STEPS = 60;
/** The thread's window; the budget is what the policy leaves of it (output reserve, safety buffer). */
const WINDOW = 16_000;

function usage() {
  return {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
}

/** Calls `run_tests` on a new module each step, then answers; its choices depend only on the step. */
function scriptedModel() {
  let calls = 0;
  return new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      calls += 1;
      if (calls < STEPS) {
        return {
          content: [
            { type: 'text', text: `Testing module ${calls}.` },
            {
              type: 'tool-call',
              toolCallId: `call-${calls}`,
              toolName: 'run_tests',
              input: JSON.stringify({ module: `m${calls}` }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
          usage: usage(),
          warnings: [],
        };
      }
      return {
        content: [{ type: 'text', text: `All ${calls - 1} modules pass.` }],
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage: usage(),
        warnings: [],
      };
    },
  });
}

const tools = {
  run_tests: tool({
    description: 'Run the tests of one module.',
    inputSchema: jsonSchema<{ module: string }>({
      type: 'object',
      properties: { module: { type: 'string' } },
      required: ['module'],
    }),
    execute: async ({ module }) => `module ${module}: 48 tests passed, 0 failed, 0 skipped. `.repeat(20),
  }),
};

const SYSTEM = 'You are a testing agent. Test every module, one at a time.';
const PROMPT = 'Run the test suite of all modules and report.';

/** Every tool result in a model-level prompt answers a call made earlier in it. */
function resultsFollowCalls(prompt: LanguageModelV3CallOptions['prompt']): boolean {
  const calls = new Set<string>();
  for (const message of prompt) {
    if (message.role === 'system') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.add(part.toolCallId);
      if (part.type === 'tool-result' && !calls.has(part.toolCallId)) return false;
    }
  }
  return true;
}

describe('AI SDK middleware in a 60-step tool loop', () => {
  let dataDir: string;
  let stores: EmbeddedStores;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-ai-sdk-'));
    stores = await createEmbeddedStores({ dataDir });
  });
  afterEach(async () => {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sends only valid, within-budget prompts and leaves the answer path unchanged', async () => {
    const plain = scriptedModel();
    const baseline = await generateText({
      model: plain,
      system: SYSTEM,
      prompt: PROMPT,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
    });

    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const inner = scriptedModel();
    const prepared: PreparedRequest<'ai-sdk'>[] = [];
    const model = wrapLanguageModel({
      model: inner,
      middleware: compactionMiddleware({
        compactor,
        threadId: 'agent',
        contextWindow: WINDOW,
        onPrepared: (request) => prepared.push(request),
      }),
    });
    const result = await generateText({
      model,
      system: SYSTEM,
      prompt: PROMPT,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
    });

    expect(result.text).toBe(baseline.text);
    expect(result.text).toBe(`All ${STEPS - 1} modules pass.`);
    expect(result.steps.length).toBe(baseline.steps.length);
    expect(inner.doGenerateCalls).toHaveLength(STEPS);
    expect(prepared).toHaveLength(STEPS);
    prepared.forEach((request, index) => {
      expect(request.tokens.total).toBeLessThanOrEqual(request.report.ceiling);
      expect(request.report.ceiling).toBeLessThan(WINDOW);
      expect(validateProviderRequest('ai-sdk', request.request).errors).toEqual([]);
      const received = inner.doGenerateCalls[index]!.prompt;
      expect(received).toEqual(requestToPrompt(request.request));
      expect(resultsFollowCalls(received)).toBe(true);
    });
    // Compaction happened, and the latest tool result still reached the model.
    expect(prepared.some((request) => request.compaction?.commit.status === 'committed')).toBe(true);
    const last = JSON.stringify(inner.doGenerateCalls.at(-1)!.prompt);
    expect(last).toContain(`call-${STEPS - 1}`);
    expect(last).toContain(SYSTEM);
    expect(last).toContain(PROMPT);
    // The log holds every message of the conversation exactly once, the final answer included.
    const thread = foldThread(await stores.events.readAll('local', 'agent'));
    expect(thread.messages).toHaveLength(1 + result.response.messages.length);
    expect(JSON.stringify(thread.messages.at(-1)!.content)).toContain(`All ${STEPS - 1} modules pass.`);
  }, 180_000);

  it('prepareStep keeps each step’s messages valid and within budget', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const inner = scriptedModel();
    const budgets: number[] = [];
    const result = await generateText({
      model: inner,
      system: SYSTEM,
      prompt: PROMPT,
      tools,
      stopWhen: stepCountIs(STEPS + 5),
      prepareStep: compactionPrepareStep({
        compactor,
        threadId: 'agent',
        contextWindow: WINDOW,
        system: SYSTEM,
        tools: [
          { name: 'run_tests', description: 'Run the tests of one module.', inputSchema: { type: 'object' } },
        ],
        budget: 8_000,
        onPrepared: (prepared) => {
          budgets.push(prepared.tokens.total);
          expect(validateProviderRequest('ai-sdk', prepared.request).errors).toEqual([]);
        },
      }),
    });
    expect(result.text).toBe(`All ${STEPS - 1} modules pass.`);
    expect(budgets).toHaveLength(STEPS);
    expect(Math.max(...budgets)).toBeLessThanOrEqual(8_000);
    for (const call of inner.doGenerateCalls) expect(resultsFollowCalls(call.prompt)).toBe(true);
  }, 180_000);
});
