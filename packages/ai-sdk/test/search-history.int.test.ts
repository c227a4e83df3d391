/**
 * The search_history tool (ADR-0163) in the AI SDK's own tool loop: after many large tool results
 * are compacted, the model calls search_history and the compacted result comes back verbatim.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { createEmbeddedStores, type EmbeddedStores } from '@compactor/embedded';
import { createCompactor, type PreparedRequest } from '@compactor/engine';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactionMiddleware, SEARCH_HISTORY_TOOL_NAME, searchHistoryTool } from '../src/index.js';

const STEPS = 30;
const usage = () => ({
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
});

function scriptedModel() {
  let calls = 0;
  return new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      calls += 1;
      const call = (toolName: string, input: unknown) => ({
        content: [
          { type: 'tool-call' as const, toolCallId: `call-${calls}`, toolName, input: JSON.stringify(input) },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_use' },
        usage: usage(),
        warnings: [],
      });
      if (calls < STEPS) return call('run_tests', { module: `m${calls}` });
      if (calls === STEPS) return call(SEARCH_HISTORY_TOOL_NAME, { query: 'm2 quokka', top_k: 2 });
      return {
        content: [{ type: 'text', text: 'Done.' }],
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage: usage(),
        warnings: [],
      };
    },
  });
}

describe('searchHistoryTool (AI SDK)', () => {
  let dataDir: string;
  let stores: EmbeddedStores;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'compactor-ai-sdk-search-'));
    stores = await createEmbeddedStores({ dataDir });
  });
  afterEach(async () => {
    await stores.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers the model’s call in the tool loop with the compacted result, verbatim', async () => {
    const compactor = createCompactor({ stores, summarizer: createExtractiveSummarizer() });
    const inner = scriptedModel();
    const prepared: PreparedRequest<'ai-sdk'>[] = [];
    const model = wrapLanguageModel({
      model: inner,
      middleware: compactionMiddleware({
        compactor,
        threadId: 'agent',
        contextWindow: 12_000,
        onPrepared: (request) => prepared.push(request),
      }),
    });
    const result = await generateText({
      model,
      system: 'You are a testing agent.',
      prompt: 'Test every module.',
      tools: {
        run_tests: tool({
          description: 'Run the tests of one module.',
          inputSchema: jsonSchema<{ module: string }>({
            type: 'object',
            properties: { module: { type: 'string' } },
            required: ['module'],
          }),
          execute: async ({ module }) =>
            `module ${module}: ${module === 'm2' ? 'the quokka fixture failed once, then passed. ' : ''}${'48 tests passed. '.repeat(40)}`,
        }),
        [SEARCH_HISTORY_TOOL_NAME]: searchHistoryTool({ compactor, threadId: 'agent' }),
      },
      stopWhen: stepCountIs(STEPS + 3),
    });
    expect(result.text).toBe('Done.');
    // By the time the model searched, the m2 result was compacted out of what it was sent …
    const beforeSearch = prepared[STEPS - 1]!;
    expect(beforeSearch.report.planVersion).not.toBeNull();
    expect(JSON.stringify(inner.doGenerateCalls[STEPS - 1]!.prompt)).not.toContain('quokka fixture');
    // … and the search brought it back as the tool's result.
    const answered = JSON.stringify(inner.doGenerateCalls[STEPS]!.prompt);
    expect(answered).toContain('[search_history:');
    expect(answered).toContain('the quokka fixture failed once');
  }, 180_000);
});
