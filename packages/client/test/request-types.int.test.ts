/**
 * `RenderedPrompt<P>.request` is typed per provider (render's `RequestByProvider`, ADR-0083): what
 * the client returns spreads into each SDK's own request type with no cast. The assignments are
 * compiled by the workspace typecheck; at run time the same values, rendered by the real ingest,
 * pass render's provider validators.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { validateProviderRequest } from '@compactor/render/validate';
import type { ModelMessage } from 'ai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createCompactorClient, type RenderedPrompt } from '../src/index.js';
import { API_KEY, type RunningIngest, startIngest, userMessage } from './support.js';

let ingest: RunningIngest | undefined;
afterEach(async () => {
  await ingest?.stop();
  ingest = undefined;
});

const tools = [
  {
    name: 'read_file',
    description: 'Read a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

describe('RenderedPrompt<P>.request is typed per provider', () => {
  it('is the render type of each provider, not a record', () => {
    expectTypeOf<RenderedPrompt<'anthropic'>['request']['messages']>().toExtend<
      MessageCreateParamsNonStreaming['messages']
    >();
    expectTypeOf<RenderedPrompt<'openai-chat'>['request']['messages']>().toExtend<
      ChatCompletionCreateParamsNonStreaming['messages']
    >();
    expectTypeOf<RenderedPrompt<'ai-sdk'>['request']['messages']>().toExtend<ModelMessage[]>();
    expectTypeOf<RenderedPrompt<'anthropic'>['request']>().not.toEqualTypeOf<Record<string, unknown>>();
  });

  it('spreads into the SDK requests without casts, and every request is provider-valid', async () => {
    ingest = await startIngest();
    const client = createCompactorClient({ baseUrl: ingest.baseUrl, apiKey: API_KEY });
    const { threadId } = await client.createThread({ model: 'claude-sonnet-4-5' });
    await client.appendEvents(threadId, [
      userMessage('e1', 'm1', 'Read the README, please.'),
      userMessage('e2', 'm2', 'And summarize it.'),
    ]);
    const system = 'You are a careful assistant.';

    const anthropic = await client.renderPrompt(threadId, { provider: 'anthropic', system, tools });
    const anthropicParams: MessageCreateParamsNonStreaming = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1_024,
      ...anthropic.request,
    };
    expect(anthropicParams.system).toMatchObject([{ type: 'text', text: system }]);
    // The caller's tools, then Compactor's read_artifact (stable from the first request, ADR-0141).
    expect(anthropic.request.tools?.map((entry) => entry.name)).toEqual(['read_file', 'read_artifact']);
    expect(anthropicParams.tools).toBe(anthropic.request.tools);

    const chat = await client.renderPrompt(threadId, { provider: 'openai-chat', system, tools });
    const chatParams: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', ...chat.request };
    expect(chatParams.messages[0]).toEqual({ role: 'system', content: system });

    const responses = await client.renderPrompt(threadId, { provider: 'openai-responses', system, tools });
    const responsesParams: ResponseCreateParamsNonStreaming = {
      model: 'gpt-4o',
      instructions: responses.request.instructions ?? null,
      // User turns only here; an assistant turn is the one documented gap (ADR-0083).
      input: responses.request.input.flatMap((item) =>
        item.type === 'message' && item.role !== 'assistant' ? [item] : [],
      ),
      tools: responses.request.tools ?? [],
    };
    expect(JSON.stringify(responsesParams.input)).toContain('And summarize it.');

    const aiSdk = await client.renderPrompt(threadId, { provider: 'ai-sdk', system, tools });
    const modelMessages: ModelMessage[] = aiSdk.request.messages;
    expect(modelMessages.every((message) => message.role === 'user')).toBe(true);
    expect(JSON.stringify(modelMessages)).toContain('And summarize it.');

    for (const rendered of [anthropic, chat, responses, aiSdk]) {
      expect(validateProviderRequest(rendered.report.provider, rendered.request).errors).toEqual([]);
      expect(rendered.tokens.tools).toBeGreaterThan(0);
      expect(rendered.tokens.system).toBeGreaterThan(0);
    }
  });
});
