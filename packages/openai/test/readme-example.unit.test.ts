import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { expect, it } from 'vitest';
import { compactedChatParams } from '../examples/chat-history.js';

it('the README example converts an SDK-typed history and renders it back as Chat params', async () => {
  const history: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'An old prompt, replaced by the one given to prepare.' },
    { role: 'user', content: 'What is the weather in Oslo?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '4 °C, light rain' },
    { role: 'assistant', content: 'It is 4 °C with light rain in Oslo.' },
  ];
  const params = await compactedChatParams(history);
  expect(params.model).toBe('gpt-4o');
  expect(params.messages).toEqual([{ role: 'system', content: 'Be brief.' }, ...history.slice(1)]);
});
