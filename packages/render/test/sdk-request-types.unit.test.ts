/**
 * Our requests, typed as the SDKs type them. The assignments below are the proof: the workspace
 * typecheck compiles them with no casts against `@anthropic-ai/sdk`, `openai` and `ai@6` (dev
 * dependencies only). At run time, AI SDK messages from random threads pass the SDK's own
 * `modelMessageSchema`, and a real `generateText` call takes the rendered request as it is.
 */

import type { MessageCreateParamsNonStreaming as BetaMessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/beta/messages';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { foldThread, tokenBudget } from '@compactor/core';
import { arbitraryThread } from '@compactor/testkit/arbitraries';
import { generateText, jsonSchema, type ModelMessage, modelMessageSchema, type ToolSet, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import fc from 'fast-check';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AiSdkRequest,
  type AnthropicBetaRequest,
  type AnthropicRequest,
  type OpenAIChatRequest,
  type OpenAIResponsesAssistantMessage,
  type OpenAIResponsesCompactionItem,
  type OpenAIResponsesReasoningItem,
  renderPromptSync,
} from '../src/index.js';
import { SYSTEM_PROMPT, TOOLS } from './support/fixtures.js';
import { aiSdkMessages, anthropicParams, openAIChatParams } from './support/sdk-assignments.js';
import { tokenizerFor } from './support/tokenizers.js';

describe('requests typed as the SDKs type them', () => {
  it('assign to the SDK request types without casts', () => {
    expectTypeOf<AnthropicRequest['messages']>().toExtend<MessageCreateParamsNonStreaming['messages']>();
    expectTypeOf<NonNullable<AnthropicRequest['system']>>().toExtend<
      NonNullable<MessageCreateParamsNonStreaming['system']>
    >();
    expectTypeOf<NonNullable<AnthropicRequest['tools']>>().toExtend<
      NonNullable<MessageCreateParamsNonStreaming['tools']>
    >();
    expectTypeOf<OpenAIChatRequest['messages']>().toExtend<
      ChatCompletionCreateParamsNonStreaming['messages']
    >();
    expectTypeOf<AiSdkRequest['messages']>().toExtend<ModelMessage[]>();
    // The one gap, kept visible: the SDK lists only full output messages (id, status, annotations).
    expectTypeOf<OpenAIResponsesAssistantMessage>().not.toExtend<ResponseInputItem>();
  });

  it('types a request carrying a compaction block as the beta Messages API takes it (ADR-0250)', () => {
    expectTypeOf<AnthropicBetaRequest['messages']>().toExtend<
      BetaMessageCreateParamsNonStreaming['messages']
    >();
    expectTypeOf<NonNullable<AnthropicBetaRequest['system']>>().toExtend<
      NonNullable<BetaMessageCreateParamsNonStreaming['system']>
    >();
    expectTypeOf<NonNullable<AnthropicBetaRequest['tools']>>().toExtend<
      NonNullable<BetaMessageCreateParamsNonStreaming['tools']>
    >();
    // Only the beta API takes the block; every non-beta request is also a beta one.
    expectTypeOf<AnthropicBetaRequest['messages']>().not.toExtend<
      MessageCreateParamsNonStreaming['messages']
    >();
    expectTypeOf<AnthropicRequest>().toExtend<AnthropicBetaRequest>();
    // OpenAI's own items are in the SDK's input union as they are.
    expectTypeOf<OpenAIResponsesReasoningItem>().toExtend<ResponseInputItem>();
    expectTypeOf<OpenAIResponsesCompactionItem>().toExtend<ResponseInputItem>();
  });

  it('renders Anthropic tool schemas as object schemas, as Anthropic requires', () => {
    const thread = foldThread(arbitrarySample());
    const rendered = renderPromptSync({
      thread,
      plan: null,
      system: SYSTEM_PROMPT,
      tools: [{ name: 'ping', inputSchema: { properties: {} } }, ...TOOLS],
      budget: tokenBudget({ maxInputTokens: 1_000_000 }),
      provider: 'anthropic',
      tokenizer: tokenizerFor('anthropic'),
    });
    expect(anthropicParams(rendered.request).tools).toBe(rendered.request.tools);
    const schemas = rendered.request.tools!.map((entry) => entry.input_schema);
    expect(schemas.every((schema) => schema.type === 'object')).toBe(true);
    // A schema that already says `object` is sent as given.
    expect(schemas[1]).toBe(TOOLS[0]!.inputSchema);
  });

  it('OpenAI Chat requests spread into the SDK params as they are', () => {
    const rendered = renderPromptSync({
      thread: foldThread(arbitrarySample()),
      plan: null,
      system: SYSTEM_PROMPT,
      tools: TOOLS,
      budget: tokenBudget({ maxInputTokens: 1_000_000 }),
      provider: 'openai-chat',
      tokenizer: tokenizerFor('openai-chat'),
    });
    const params = openAIChatParams(rendered.request);
    expect(params.messages[0]).toEqual({ role: 'system', content: SYSTEM_PROMPT });
    // The caller's two tools, then Compactor's read_artifact (present from the start, ADR-0141).
    expect(params.tools?.map((entry) => entry.type)).toEqual(['function', 'function', 'function']);
    expect(params.tools?.at(-1)).toMatchObject({ function: { name: 'read_artifact' } });
  });

  it('AI SDK messages of random threads pass the SDK’s own modelMessageSchema', () => {
    fc.assert(
      fc.property(arbitraryThread({ maxTurns: 4 }), ({ events }) => {
        const rendered = renderPromptSync({
          thread: foldThread(events),
          plan: null,
          system: SYSTEM_PROMPT,
          tools: TOOLS,
          budget: tokenBudget({ maxInputTokens: 10_000_000 }),
          provider: 'ai-sdk',
          tokenizer: tokenizerFor('ai-sdk'),
        });
        const parsed = modelMessageSchema.array().safeParse(aiSdkMessages(rendered.request));
        expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3))).toBe(true);
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it('generateText takes the rendered AI SDK request as it is', async () => {
    const rendered = renderPromptSync({
      thread: foldThread(arbitrarySample()),
      plan: null,
      system: SYSTEM_PROMPT,
      tools: TOOLS,
      budget: tokenBudget({ maxInputTokens: 1_000_000 }),
      provider: 'ai-sdk',
      tokenizer: tokenizerFor('ai-sdk'),
    });
    const { system, messages, tools = {} } = rendered.request;
    const toolSet: ToolSet = {};
    for (const [name, definition] of Object.entries(tools)) {
      toolSet[name] = tool({
        description: definition.description,
        inputSchema: jsonSchema(definition.inputSchema),
      });
    }
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      }),
    });
    const result = await generateText({ model, system, messages, tools: toolSet });
    expect(result.text).toBe('done');
    expect(model.doGenerateCalls[0]!.prompt.length).toBe(messages.length + (system ? 1 : 0));
  });
});

function arbitrarySample() {
  return fc.sample(arbitraryThread({ minTurns: 3, maxTurns: 3 }), { seed: 7, numRuns: 1 })[0]!.events;
}
