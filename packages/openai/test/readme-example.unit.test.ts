import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { expect, it } from 'vitest';
import { compactedChatParams } from '../examples/chat-history.js';
import { compactedResponsesParams } from '../examples/responses-encrypted-items.js';

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

it('the README Responses example sends encrypted reasoning and compaction items back verbatim, in place', async () => {
  const input: ResponseInputItem[] = [
    { role: 'user', content: 'Migrate the orders table.' },
    { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA-compacted' },
    { role: 'user', content: 'Next step?' },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA-reasoning' },
    { type: 'function_call', call_id: 'call_1', name: 'run_sql', arguments: '{"sql":"select 1"}' },
    { type: 'function_call_output', call_id: 'call_1', output: '1' },
  ];
  const params = await compactedResponsesParams(input);
  expect(params.store).toBe(false);
  expect(JSON.stringify(params.input)).toBe(
    JSON.stringify([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Migrate the orders table.' }] },
      input[1],
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Next step?' }] },
      input[3],
      input[4],
      input[5],
    ]),
  );
});
