import { describe, expect, it } from 'vitest';
import {
  validateAiSdkRequest,
  validateAnthropicRequest,
  validateOpenAIChatRequest,
  validateOpenAIResponsesRequest,
  validateProviderRequest,
} from '../src/validate/index.js';
import type { RequestValidation } from '../src/validate/request-validation.js';

// biome-ignore lint/suspicious/noExplicitAny: hand-made requests are mutated freely to break one rule at a time.
type Request = Record<string, any>;

interface Case {
  name: string;
  mutate: (request: Request) => void;
  /** A fragment of the expected error. */
  error: string;
}

function check(validate: (request: unknown) => RequestValidation, valid: () => Request, cases: Case[]) {
  it('accepts the valid request', () => {
    expect(validate(valid())).toEqual({ valid: true, errors: [] });
  });
  it('rejects what is not an object', () => {
    expect(validate(null).valid).toBe(false);
    expect(validate([]).valid).toBe(false);
  });
  for (const testCase of cases) {
    it(`rejects: ${testCase.name}`, () => {
      const request = valid();
      testCase.mutate(request);
      const result = validate(request);
      expect(result.valid).toBe(false);
      expect(result.errors.join('\n')).toContain(testCase.error);
    });
  }
}

describe('validateAnthropicRequest', () => {
  const valid = (): Request => ({
    system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'bash', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: 'List files.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'easy', signature: 'sig' },
          { type: 'text', text: 'Listing.' },
          { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
          { type: 'tool_use', id: 'toolu_2', name: 'bash', input: { command: 'pwd' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '/srv' },
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt', is_error: false },
          { type: 'text', text: 'Thanks.' },
        ],
      },
      { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.', cache_control: { type: 'ephemeral' } }] },
    ],
  });
  check(validateAnthropicRequest, valid, [
    { name: 'no messages', mutate: (request) => (request.messages = []), error: 'non-empty array' },
    {
      name: 'assistant first',
      mutate: (request) => request.messages.shift(),
      error: 'first message must be a user',
    },
    {
      name: 'a tool_use without its result',
      mutate: (request) => request.messages[2].content.splice(0, 1),
      error: 'tool_use toolu_2 has no tool_result in the next message',
    },
    {
      name: 'a result not right after its call',
      mutate: (request) => request.messages.splice(2, 0, { role: 'user', content: 'wait' }),
      error: 'has no tool_result in the next message',
    },
    {
      name: 'an orphan tool_result',
      mutate: (request) => (request.messages[2].content[0].tool_use_id = 'toolu_9'),
      error: 'tool_result toolu_9 does not answer a tool_use of the previous message',
    },
    {
      name: 'a tool_result after other blocks',
      mutate: (request) => request.messages[2].content.reverse(),
      error: 'tool_result blocks must come before any other block',
    },
    {
      name: 'a duplicate tool_use id',
      mutate: (request) => (request.messages[1].content[3].id = 'toolu_1'),
      error: 'duplicate tool_use id toolu_1',
    },
    {
      name: 'a tool_use id with forbidden characters',
      mutate: (request) => {
        request.messages[1].content[2].id = 'functions.bash:0';
        request.messages[2].content[1].tool_use_id = 'functions.bash:0';
      },
      error: 'must match ^[a-zA-Z0-9_-]+$',
    },
    {
      name: 'empty text',
      mutate: (request) => (request.messages[1].content[1].text = '  '),
      error: 'must not be empty',
    },
    {
      name: 'empty content',
      mutate: (request) => (request.messages[0].content = []),
      error: 'non-empty string or array',
    },
    {
      name: 'thinking without a signature',
      mutate: (request) => delete request.messages[1].content[0].signature,
      error: 'must keep their signature',
    },
    {
      name: 'a tool result in an assistant message',
      mutate: (request) =>
        request.messages[4].content.push({ type: 'tool_result', tool_use_id: 'x', content: 'y' }),
      error: 'a assistant message cannot hold tool_result',
    },
    {
      name: 'a system role',
      mutate: (request) => (request.messages[3].role = 'system'),
      error: 'must be user or assistant',
    },
    {
      name: 'more than four cache breakpoints',
      mutate: (request) => {
        request.messages[0].content = [
          { type: 'text', text: 'List files.', cache_control: { type: 'ephemeral' } },
        ];
        request.messages[3].content[0].cache_control = { type: 'ephemeral' };
      },
      error: '5 cache_control breakpoints; at most 4',
    },
    {
      name: 'cache_control on thinking',
      mutate: (request) => (request.messages[1].content[0].cache_control = { type: 'ephemeral' }),
      error: 'thinking blocks cannot carry cache_control',
    },
    {
      name: 'a non-object tool input',
      mutate: (request) => (request.messages[1].content[2].input = 'ls'),
      error: 'input: must be an object',
    },
    {
      name: 'duplicate tool names',
      mutate: (request) => request.tools.push({ name: 'bash', input_schema: { type: 'object' } }),
      error: 'duplicate tool name bash',
    },
    {
      name: 'an empty system text',
      mutate: (request) => (request.system[0].text = ''),
      error: 'non-empty text block',
    },
    {
      name: 'an image with an unsupported type',
      mutate: (request) =>
        (request.messages[3].content[0].source = { type: 'base64', media_type: 'image/tiff', data: 'AAAA' }),
      error: 'unsupported image type',
    },
    {
      name: 'a trailing tool_use',
      mutate: (request) => request.messages.splice(2),
      error: 'has no tool_result in the next message',
    },
  ]);
});

describe('validateOpenAIChatRequest', () => {
  const valid = (): Request => ({
    tools: [{ type: 'function', function: { name: 'bash', parameters: { type: 'object' } } }],
    messages: [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'List.' },
          { type: 'image_url', image_url: { url: 'https://x' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
          { id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_2', content: '/srv' },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt' },
      { role: 'system', content: 'Note: UTC.' },
      { role: 'assistant', content: 'Done.' },
    ],
  });
  check(validateOpenAIChatRequest, valid, [
    { name: 'no messages', mutate: (request) => (request.messages = []), error: 'non-empty array' },
    {
      name: 'an unanswered call',
      mutate: (request) => request.messages.splice(4, 1),
      error: 'tool call call_1 is not answered before this message',
    },
    {
      name: 'a tool message after another message',
      mutate: (request) => request.messages.splice(3, 0, { role: 'user', content: 'wait' }),
      error: 'does not answer a call of the assistant message before it',
    },
    {
      name: 'a tool message answering an unknown call',
      mutate: (request) => (request.messages[3].tool_call_id = 'call_9'),
      error: 'tool message call_9 does not answer',
    },
    {
      name: 'a call answered twice',
      mutate: (request) =>
        request.messages.splice(4, 0, { role: 'tool', tool_call_id: 'call_2', content: 'again' }),
      error: 'tool call call_2 answered twice',
    },
    {
      name: 'an assistant message with neither content nor calls',
      mutate: (request) => (request.messages[6].content = null),
      error: 'needs content or tool calls',
    },
    {
      name: 'arguments that are not a JSON object',
      mutate: (request) => (request.messages[2].tool_calls[0].function.arguments = '[1]'),
      error: 'must be a JSON object string',
    },
    {
      name: 'a call id over 40 characters',
      mutate: (request) => {
        const id = 'x'.repeat(41);
        request.messages[2].tool_calls[0].id = id;
        request.messages[4].tool_call_id = id;
      },
      error: 'at most 40 characters',
    },
    {
      name: 'a duplicate call id',
      mutate: (request) => (request.messages[2].tool_calls[1].id = 'call_1'),
      error: 'duplicate tool call id call_1',
    },
    {
      name: 'empty user content',
      mutate: (request) => (request.messages[1].content = ''),
      error: 'must not be empty',
    },
    {
      name: 'an unknown role',
      mutate: (request) => (request.messages[6].role = 'model'),
      error: 'known role',
    },
    {
      name: 'a trailing call without results',
      mutate: (request) => request.messages.splice(3),
      error: 'is not answered before this message',
    },
    {
      name: 'an invalid tool name',
      mutate: (request) => (request.tools[0].function.name = 'bad name'),
      error: 'invalid name',
    },
  ]);
});

describe('validateOpenAIResponsesRequest', () => {
  const valid = (): Request => ({
    instructions: 'Be brief.',
    tools: [{ type: 'function', name: 'bash', parameters: { type: 'object' }, strict: false }],
    input: [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List.' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Listing.' }] },
      { type: 'function_call', call_id: 'c1', name: 'bash', arguments: '{"command":"ls"}' },
      { type: 'function_call', call_id: 'c2', name: 'bash', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c2', output: '/srv' },
      { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
      { role: 'system', content: 'Note: UTC.' },
    ],
  });
  check(validateOpenAIResponsesRequest, valid, [
    { name: 'no input', mutate: (request) => (request.input = []), error: 'non-empty array' },
    {
      name: 'an unanswered call before the next message',
      mutate: (request) => request.input.splice(5, 1),
      error: 'function_call c1 is not answered before this message',
    },
    {
      name: 'an output without a call',
      mutate: (request) => (request.input[4].call_id = 'c9'),
      error: 'function_call_output c9 does not answer an open function_call',
    },
    {
      name: 'an output before its call',
      mutate: (request) => request.input.splice(2, 0, request.input.splice(5, 1)[0]),
      error: 'does not answer an open function_call',
    },
    {
      name: 'a trailing call',
      mutate: (request) => request.input.splice(4),
      error: 'has no function_call_output',
    },
    {
      name: 'input_text in an assistant message',
      mutate: (request) => (request.input[1].content[0].type = 'input_text'),
      error: 'assistant content must be output_text',
    },
    {
      name: 'output_text in a user message',
      mutate: (request) => (request.input[0].content[0].type = 'output_text'),
      error: 'a user message cannot hold output_text',
    },
    {
      name: 'a duplicate call id',
      mutate: (request) => (request.input[3].call_id = 'c1'),
      error: 'duplicate call id c1',
    },
    {
      name: 'an empty output',
      mutate: (request) => (request.input[4].output = ''),
      error: 'must not be empty',
    },
    {
      name: 'bad arguments',
      mutate: (request) => (request.input[2].arguments = 'ls'),
      error: 'JSON object string',
    },
    { name: 'empty instructions', mutate: (request) => (request.instructions = ''), error: 'instructions' },
  ]);
});

describe('validateAiSdkRequest', () => {
  const valid = (): Request => ({
    system: 'Be brief.',
    tools: { bash: { description: 'Run', inputSchema: { type: 'object' } } },
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'List.' },
          { type: 'image', image: 'https://x', mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Listing.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'ls' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'bash',
            output: { type: 'text', value: '/srv' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'bash',
            output: { type: 'json', value: { files: 1 } },
          },
        ],
      },
      { role: 'assistant', content: 'Done.' },
    ],
  });
  check(validateAiSdkRequest, valid, [
    { name: 'no messages', mutate: (request) => (request.messages = []), error: 'non-empty array' },
    {
      name: 'assistant first',
      mutate: (request) => request.messages.shift(),
      error: 'start with a user message',
    },
    {
      name: 'a system message inside the conversation',
      mutate: (request) => request.messages.splice(3, 0, { role: 'system', content: 'late' }),
      error: 'may not appear inside the conversation',
    },
    {
      name: 'an unanswered call',
      mutate: (request) => request.messages[2].content.pop(),
      error: 'tool-call c1 is not answered before this message',
    },
    {
      name: 'a result for an unknown call',
      mutate: (request) => (request.messages[2].content[0].toolCallId = 'c9'),
      error: 'tool-result c9 does not answer',
    },
    {
      name: 'a result with another tool name',
      mutate: (request) => (request.messages[2].content[0].toolName = 'read'),
      error: 'toolName: must match the call',
    },
    {
      name: 'a result not right after its call',
      mutate: (request) => request.messages.splice(2, 0, { role: 'user', content: 'wait' }),
      error: 'is not answered before this message',
    },
    {
      name: 'a bad output shape',
      mutate: (request) => (request.messages[2].content[0].output = '/srv'),
      error: 'must be { type: text',
    },
    {
      name: 'an image in an assistant message',
      mutate: (request) => (request.messages[3].content = [{ type: 'image', image: 'https://x' }]),
      error: 'only user messages hold images',
    },
    {
      name: 'a duplicate call id',
      mutate: (request) => (request.messages[1].content[2].toolCallId = 'c1'),
      error: 'duplicate id c1',
    },
    {
      name: 'a tool without a JSON Schema',
      mutate: (request) => (request.tools.bash = { description: 'Run' }),
      error: 'inputSchema',
    },
  ]);
});

describe('validateProviderRequest', () => {
  it('dispatches by provider', () => {
    const chat = { messages: [{ role: 'user', content: 'hi' }] };
    expect(validateProviderRequest('openai-chat', chat).valid).toBe(true);
    expect(validateProviderRequest('openai-responses', chat).valid).toBe(false);
    expect(validateProviderRequest('anthropic', chat).valid).toBe(true);
    expect(validateProviderRequest('ai-sdk', chat).valid).toBe(true);
  });
});
