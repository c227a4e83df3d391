import type { Message } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import {
  anthropicRequestTokens,
  createCountCache,
  createTokenizer,
  imageTokensByProvider,
  openAiReplyPrimingTokens,
} from '../src/index.js';
import { message, referenceCount, text, toolResult } from './helpers.js';

const cache = createCountCache();
const claude = createTokenizer({ model: 'claude-opus-4-5', cache });
const gpt4o = createTokenizer({ model: 'gpt-4o', cache });
const bigBase64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'.repeat(20_000);
const pdfBase64 = Buffer.from(
  '%PDF-1.7\n<< /Type /Page >>\n<< /Type /Page >>\n<< /Type /Pages /Count 2 >>',
  'latin1',
).toString('base64');

const conversation: Message[] = [
  message('user', text('Summarize the failing test output.')),
  message('assistant', text('The renderer drops the last tool result when the budget is tight.')),
  message('user', text('Fix it without changing the public API.')),
];

describe('Anthropic Messages requests', () => {
  it('splits the total into system, tools, messages and framing', () => {
    const breakdown = claude.countRequestBreakdown(
      { system: 'You are a careful engineer.', messages: [{ role: 'user', content: 'hello' }] },
      'anthropic',
    );
    expect(breakdown.framing).toBe(anthropicRequestTokens);
    expect(breakdown.system).toBeGreaterThan(0);
    expect(breakdown.tools).toBe(0);
    expect(breakdown.total).toBe(breakdown.system + breakdown.tools + breakdown.messages + breakdown.framing);
  });

  it('counts rendered messages the way it counts the same core messages', () => {
    const rendered = conversation.map((item) => ({
      role: item.role,
      content: [{ type: 'text', text: (item.content[0] as { text: string }).text }],
    }));
    expect(claude.countRequestBreakdown({ messages: rendered }, 'anthropic').messages).toBe(
      claude.countMessages(conversation, 'anthropic'),
    );
  });

  it('counts string content like a single text block', () => {
    const asString = claude.countRequest(
      { messages: [{ role: 'user', content: 'same words' }] },
      'anthropic',
    );
    const asBlock = claude.countRequest(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'same words' }] }] },
      'anthropic',
    );
    expect(asString).toBe(asBlock);
  });

  it('never tokenizes base64 image data', () => {
    const withImage = (data: string) =>
      claude.countRequest(
        {
          messages: [
            {
              role: 'user',
              content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }],
            },
          ],
        },
        'anthropic',
      );
    expect(withImage(bigBase64)).toBe(withImage('iVBORw0KGgo='));
    const without = claude.countRequest({ messages: [{ role: 'user', content: [] }] }, 'anthropic');
    expect(withImage('iVBORw0KGgo=') - without).toBe(imageTokensByProvider.anthropic);
  });

  it('ignores cache_control, which the model never sees', () => {
    const plain = claude.countRequest(
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'cached prefix' }] }] },
      'anthropic',
    );
    const marked = claude.countRequest(
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: 'cached prefix', cache_control: { type: 'ephemeral' } }],
          },
        ],
      },
      'anthropic',
    );
    expect(marked).toBe(plain);
  });

  it('counts tool use, tool results (string or blocks, errors) and thinking', () => {
    const base = [{ role: 'user', content: 'list files' }];
    const count = (extra: unknown[]) =>
      claude.countRequest({ messages: [...base, ...(extra as never[])] }, 'anthropic');
    const call = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls -la' } }],
    };
    const result = (content: unknown, isError = false) => ({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content, ...(isError ? { is_error: true } : {}) }],
    });
    expect(count([call])).toBeGreaterThan(count([]));
    expect(count([call, result('a.txt\nb.txt')])).toBe(
      count([call, result([{ type: 'text', text: 'a.txt\nb.txt' }])]),
    );
    expect(count([call, result('a.txt', true)])).toBeGreaterThan(count([call, result('a.txt')]));
    const thinking = (signature: string) => ({
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'Plan: list, then read.', signature }],
    });
    expect(count([thinking('s')])).toBeGreaterThan(count([]));
    expect(count([thinking('EqQBCkYIBRgC'.repeat(300))])).toBe(count([thinking('s')]));
  });

  it('counts a block type it does not know as its JSON, binaries replaced by an image estimate', () => {
    const unknown = {
      type: 'search_result',
      source: 'https://example.com',
      title: 'Result',
      content: [{ type: 'text', text: 'found it' }],
    };
    const withUnknown = claude.countRequest(
      { messages: [{ role: 'user', content: [unknown] }] },
      'anthropic',
    );
    const empty = claude.countRequest({ messages: [{ role: 'user', content: [] }] }, 'anthropic');
    expect(withUnknown - empty).toBeGreaterThan(referenceCount('found it'));
    const binary = claude.countRequest(
      { messages: [{ role: 'user', content: [{ type: 'audio', data: bigBase64 }] }] },
      'anthropic',
    );
    expect(binary - empty).toBeLessThan(imageTokensByProvider.anthropic + 50);
  });

  it('counts a PDF document by its pages', () => {
    const pdf = (data: string) =>
      claude.countRequestBreakdown(
        {
          messages: [
            {
              role: 'user',
              content: [
                { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } },
              ],
            },
          ],
        },
        'anthropic',
      ).messages;
    const onePage = Buffer.from('%PDF-1.7\n<< /Type /Page >>', 'latin1').toString('base64');
    expect(pdf(pdfBase64) - pdf(onePage)).toBeGreaterThan(1_000);
  });

  it('counts server tools (no input schema) by their JSON', () => {
    const messages = [{ role: 'user', content: 'search the web' }];
    const none = claude.countRequestBreakdown({ messages }, 'anthropic').tools;
    const server = claude.countRequestBreakdown(
      { messages, tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
      'anthropic',
    ).tools;
    expect(none).toBe(0);
    expect(server).toBeGreaterThan(300);
  });
});

describe('OpenAI Chat requests', () => {
  const toolConversation = {
    core: [
      message('user', text('How big is the repo?')),
      message('assistant', { type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'du -sh .' } }),
      message('tool', toolResult('bash', '42M\t.')),
    ],
    chat: [
      { role: 'user', content: 'How big is the repo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"du -sh ."}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '42M\t.' },
    ],
  };

  it('counts a rendered conversation as its core messages plus reply priming, minus the tool name the wire omits', () => {
    const wire = gpt4o.countRequest({ messages: toolConversation.chat }, 'openai-chat');
    const core = gpt4o.countMessages(toolConversation.core, 'openai-chat');
    expect(wire).toBe(core + openAiReplyPrimingTokens - referenceCount('bash'));
  });

  it('never tokenizes an image data URL', () => {
    const withImage = (url: string) =>
      gpt4o.countRequest(
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] },
        'openai-chat',
      );
    expect(withImage(`data:image/png;base64,${bigBase64}`)).toBe(withImage('https://example.com/a.png'));
  });

  it('counts a PDF file part by its pages', () => {
    const file = (data: string) =>
      gpt4o.countRequest(
        {
          messages: [
            {
              role: 'user',
              content: [
                {
                  type: 'file',
                  file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${data}` },
                },
              ],
            },
          ],
        },
        'openai-chat',
      );
    const onePage = Buffer.from('%PDF-1.7\n<< /Type /Page >>', 'latin1').toString('base64');
    expect(file(pdfBase64) - file(onePage)).toBeGreaterThan(1_000);
  });

  it('puts system and developer messages in the system share', () => {
    const breakdown = gpt4o.countRequestBreakdown(
      {
        messages: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
        ],
      },
      'openai-chat',
    );
    expect(breakdown.system).toBe(3 + 1 + referenceCount('Be brief.'));
    expect(breakdown.framing).toBe(openAiReplyPrimingTokens);
  });
});

/** One small tool exchange in Chat Completions form, counted against the other formats. */
const duChatRequest = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'How big is the repo?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"du -sh ."}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: '42M\t.' },
  ],
};

describe('OpenAI Responses requests', () => {
  it('counts the same conversation as Chat Completions does', () => {
    const chat = gpt4o.countRequest(duChatRequest, 'openai-chat');
    const responses = gpt4o.countRequest(
      {
        instructions: 'Be brief.',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'How big is the repo?' }] },
          { type: 'function_call', call_id: 'c1', name: 'bash', arguments: '{"command":"du -sh ."}' },
          { type: 'function_call_output', call_id: 'c1', output: '42M\t.' },
        ],
      },
      'openai-responses',
    );
    expect(responses).toBe(chat);
  });

  it('counts string input as one user message', () => {
    const asString = gpt4o.countRequest({ input: 'just a question' }, 'openai-responses');
    const asItem = gpt4o.countRequest(
      { input: [{ role: 'user', content: 'just a question' }] },
      'openai-responses',
    );
    expect(asString).toBe(asItem);
  });

  it('counts reasoning summaries', () => {
    const without = gpt4o.countRequest({ input: [{ role: 'user', content: 'q' }] }, 'openai-responses');
    const withReasoning = gpt4o.countRequest(
      {
        input: [
          { role: 'user', content: 'q' },
          { type: 'reasoning', summary: [{ type: 'summary_text', text: 'I considered three options.' }] },
        ],
      },
      'openai-responses',
    );
    expect(withReasoning - without).toBe(4 + referenceCount('I considered three options.'));
  });

  it('counts function tools with the cookbook rule, like Chat', () => {
    const parameters = { type: 'object', properties: { q: { type: 'string', description: 'query' } } };
    const chat = gpt4o.countRequestBreakdown(
      {
        messages: [],
        tools: [{ type: 'function', function: { name: 'find', description: 'Find.', parameters } }],
      },
      'openai-chat',
    ).tools;
    const responses = gpt4o.countRequestBreakdown(
      { input: [], tools: [{ type: 'function', name: 'find', description: 'Find.', parameters }] },
      'openai-responses',
    ).tools;
    expect(responses).toBe(chat);
    expect(responses).toBeGreaterThan(0);
  });
});

describe('AI SDK requests', () => {
  const v5 = {
    system: 'Be brief.',
    messages: [
      { role: 'user', content: 'How big is the repo?' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'du -sh .' } }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'bash',
            output: { type: 'text', value: '42M\t.' },
          },
        ],
      },
    ],
  };
  const v4 = {
    system: 'Be brief.',
    messages: [
      { role: 'user', content: 'How big is the repo?' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'bash', args: { command: 'du -sh .' } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'bash', result: '42M\t.' }],
      },
    ],
  };

  it('reads v5 and v4 message shapes alike', () => {
    expect(gpt4o.countRequest(v5, 'ai-sdk')).toBe(gpt4o.countRequest(v4, 'ai-sdk'));
  });

  it('costs what the OpenAI wire format costs, plus the tool name the SDK part carries', () => {
    const chat = gpt4o.countRequest(duChatRequest, 'openai-chat');
    expect(gpt4o.countRequest(v5, 'ai-sdk')).toBe(chat + referenceCount('bash'));
  });

  it('costs what the Anthropic wire format costs for a Claude model', () => {
    const sdk = claude.countRequest(
      { system: 'Be brief.', messages: [{ role: 'user', content: 'hello there' }] },
      'ai-sdk',
    );
    const anthropic = claude.countRequest(
      { system: 'Be brief.', messages: [{ role: 'user', content: 'hello there' }] },
      'anthropic',
    );
    expect(sdk).toBe(anthropic);
  });

  it('counts each tool result as its own OpenAI message', () => {
    const results = (count: number) =>
      gpt4o.countRequest(
        {
          messages: [
            {
              role: 'tool',
              content: Array.from({ length: count }, (_, index) => ({
                type: 'tool-result',
                toolCallId: `c${index}`,
                toolName: 't',
                output: { type: 'text', value: 'ok' },
              })),
            },
          ],
        },
        'ai-sdk',
      );
    expect(results(2) - results(1)).toBe(results(1) - openAiReplyPrimingTokens);
  });

  it('reads JSON Schema tools, including the jsonSchema() wrapper, and ignores live schema objects', () => {
    const schema = { type: 'object', properties: { path: { type: 'string', description: 'File to read' } } };
    const tools = (inputSchema: unknown) =>
      gpt4o.countRequestBreakdown(
        { messages: [], tools: { read: { description: 'Read a file.', inputSchema } } },
        'ai-sdk',
      ).tools;
    expect(tools({ jsonSchema: schema, validate: () => true })).toBe(tools(schema));
    expect(tools({ _def: { typeName: 'ZodObject' } })).toBeLessThan(tools(schema));
  });

  it('counts file parts: PDFs by pages, images by the image estimate, whatever the byte container', () => {
    const part = (data: unknown, mediaType: string) =>
      gpt4o.countRequest(
        { messages: [{ role: 'user', content: [{ type: 'file', data, mediaType }] }] },
        'ai-sdk',
      );
    const pdfBytes = Buffer.from(pdfBase64, 'base64');
    expect(part(new Uint8Array(pdfBytes), 'application/pdf')).toBe(part(pdfBase64, 'application/pdf'));
    expect(part(bigBase64, 'image/png')).toBe(part('iVBORw0KGgo=', 'image/png'));
  });
});
