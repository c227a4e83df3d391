import { describe, expect, it } from 'vitest';
import { importTranscript } from '../src/index.js';
import { readFixture } from './support/fixtures.js';
import { expectValidThread, messageById, messagesOf } from './support/thread-invariants.js';

describe('openai importer', () => {
  it('maps a Chat Completions request', () => {
    const imported = importTranscript({ text: readFixture('openai/request.json') });
    expect(imported.format).toBe('openai');
    expect(imported.model).toBe('gpt-4.1-mini');
    expectValidThread(imported);
    expect(messageById(imported, 'openai-0')).toMatchObject({
      role: 'system',
      content: [{ type: 'text', text: 'Be brief.' }],
      metadata: { originalRole: 'developer' },
    });
    expect(messageById(imported, 'openai-1').content.slice(1)).toEqual([
      { type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo=' } },
      {
        type: 'image',
        mediaType: 'image/webp',
        source: { kind: 'url', url: 'https://example.com/pic.webp' },
      },
    ]);
    expect(messageById(imported, 'openai-2').content).toEqual([
      { type: 'tool_call', id: 'call_w', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_call', id: 'call_t', name: 'get_time', input: {} },
    ]);
    expect(messageById(imported, 'openai-4').content[0]).toMatchObject({
      toolName: 'get_time',
      content: '14:00',
    });
  });

  it('drops the stray tool message whose call does not exist', () => {
    const imported = importTranscript({ text: readFixture('openai/request.json') });
    expect(messagesOf(imported).map((message) => message.id)).not.toContain('openai-6');
    expect(imported.stats.orphanResultsDropped).toBe(1);
  });

  it('accepts a bare array of messages and a legacy function call', () => {
    const messages = [
      { role: 'user', content: 'Add 2 and 3' },
      { role: 'assistant', content: null, function_call: { name: 'add', arguments: '{"a":2,"b":3}' } },
      { role: 'function', name: 'add', content: '5' },
      { role: 'assistant', content: '5' },
    ];
    const imported = importTranscript({ text: JSON.stringify(messages) });
    expect(imported.format).toBe('openai');
    expectValidThread(imported);
    expect(messageById(imported, 'openai-2').content[0]).toMatchObject({
      toolCallId: 'openai-1-function-call',
      toolName: 'add',
      content: '5',
    });
  });
});
