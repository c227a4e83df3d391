import { describe, expect, it } from 'vitest';
import { importTranscript, listConversations } from '../src/index.js';
import { readFixture } from './support/fixtures.js';
import { expectValidThread, messagesOf } from './support/thread-invariants.js';

const text = () => readFixture('aider/history.md');

describe('aider importer', () => {
  it('splits sessions at their headers; a preamble of only the mode line is not a session', () => {
    expect(listConversations(text())).toEqual([
      { index: 0, id: 'session-0', title: '2024-05-01 10:00:00' },
      { index: 1, id: 'session-1', title: '2024-05-02 11:00:00' },
    ]);
  });

  it('maps #### lines to the user, > lines to synthetic harness output and the rest to the model', () => {
    const imported = importTranscript({ text: text(), fileName: '.aider.chat.history.md' });
    expect(imported.format).toBe('aider');
    expectValidThread(imported);
    expect(
      messagesOf(imported).map((message) => [message.role, message.synthetic ?? false, message.content]),
    ).toEqual([
      [
        'user',
        true,
        [
          {
            type: 'text',
            text: '/usr/bin/aider notes.md\nAider v0.40.0\nModel: gpt-4o-mini with whole edit format\nAdded notes.md to the chat.',
          },
        ],
      ],
      ['user', false, [{ type: 'text', text: 'Fix the typo in notes.md\n\nIt says "teh".' }]],
      ['assistant', false, [{ type: 'text', text: 'I fixed the typo.\n\nnotes.md\n```\nthe cat\n```' }]],
      ['user', true, [{ type: 'text', text: 'Applied edit to notes.md\nCommit abc1234 fix typo' }]],
      ['user', false, [{ type: 'text', text: '/diff' }]],
      ['user', false, [{ type: 'text', text: '/exit' }]],
    ]);
    expect(imported.model).toBe('gpt-4o-mini');
    expect(imported.stats.userTurns).toBe(3);
    expect(imported.events[0]).toMatchObject({ metadata: { startedAtLocal: '2024-05-01 10:00:00' } });
  });

  it('reads the model of a later session, without its decorations', () => {
    const imported = importTranscript({ text: text() }, { conversation: 1 });
    expect(imported.model).toBe('claude-3-5-sonnet-20240620');
    expect(messagesOf(imported).map((message) => message.role)).toEqual(['user', 'user', 'assistant']);
  });

  it('counts text before the first header as a session of its own', () => {
    const withPreamble = `#### leftover question  \n\nleftover answer\n\n${text()}`;
    const conversations = listConversations(withPreamble, 'aider');
    expect(conversations).toHaveLength(3);
    expect(conversations[0]!.title).toBe('(before the first session header)');
    const imported = importTranscript({ text: withPreamble }, { format: 'aider' });
    expect(messagesOf(imported).map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(imported.model).toBe('gpt-4o');
  });
});
