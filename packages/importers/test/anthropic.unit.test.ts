import { describe, expect, it } from 'vitest';
import { importTranscript } from '../src/index.js';
import { readFixture } from './support/fixtures.js';
import { expectValidThread, messageById, messagesOf } from './support/thread-invariants.js';

describe('anthropic importer', () => {
  it('maps a Messages API request: system, tool results as their own messages, then the rest', () => {
    const imported = importTranscript({ text: readFixture('anthropic/request.json') });
    expect(imported.format).toBe('anthropic');
    expect(imported.model).toBe('claude-demo-sonnet');
    expectValidThread(imported);
    expect(messagesOf(imported).map((message) => [message.id, message.role])).toEqual([
      ['anthropic-system', 'system'],
      ['anthropic-0', 'user'],
      ['anthropic-1', 'assistant'],
      ['anthropic-2-result-0', 'tool'],
      ['anthropic-2-result-1', 'tool'],
      ['anthropic-2-result-0-images', 'user'],
      ['anthropic-2', 'user'],
      ['anthropic-3', 'assistant'],
    ]);
    expect(imported.stats.userTurns).toBe(2);
  });

  it('keeps thinking signatures and redacted thinking, and the error flag of results', () => {
    const imported = importTranscript({ text: readFixture('anthropic/request.json') });
    expect(messageById(imported, 'anthropic-1').content[0]).toEqual({
      type: 'reasoning',
      text: 'I need the file and a search.',
      signature: 'sig-x',
    });
    expect(messageById(imported, 'anthropic-3').content[0]).toEqual({
      type: 'reasoning',
      text: '',
      redacted: true,
      signature: 'ENCRYPTED-PAYLOAD',
    });
    expect(messageById(imported, 'anthropic-2-result-1').content[0]).toMatchObject({
      toolName: 'web_search',
      outcome: 'failure',
      content: 'rate limited',
      durability: 'non_replayable',
    });
    expect(messageById(imported, 'anthropic-2-result-0-images').content).toEqual([
      { type: 'image', mediaType: 'image/jpeg', source: { kind: 'base64', data: '/9j/4AAQ' } },
    ]);
  });
});
