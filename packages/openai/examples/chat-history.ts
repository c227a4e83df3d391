/** The README's example, compiled by the workspace typecheck and run by `test/readme-example.unit.test.ts`. */
import { messagesToEvents } from '@compactor/core';
import { createCompactor } from '@compactor/engine';
import { createMemoryStores } from '@compactor/memory';
import { chatMessagesToMessages } from '@compactor/openai';
import { createExtractiveSummarizer } from '@compactor/summarizer';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';

export async function compactedChatParams(history: ChatCompletionMessageParam[]) {
  const compactor = createCompactor({
    stores: createMemoryStores(),
    summarizer: createExtractiveSummarizer(),
  });
  await compactor.append('chat-7', [
    { eventId: 'created', type: 'thread.created', model: 'gpt-4o', contextWindow: 128_000 },
  ]);
  await compactor.append('chat-7', messagesToEvents(chatMessagesToMessages(history))); // resent history: a no-op
  const { request } = await compactor.prepare('chat-7', {
    provider: 'openai-chat',
    system: 'Be brief.',
    budget: 8_000,
  });
  const params: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', ...request }; // no cast
  return params;
}
