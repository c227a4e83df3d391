import { ValidationError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { importTranscript, listConversations, openTranscript } from '../src/index.js';
import { readFixture } from './support/fixtures.js';
import { expectValidThread, messageById, messagesOf } from './support/thread-invariants.js';

const text = () => readFixture('tau-bench/tasks.json');

describe('tau-bench importer', () => {
  it('lists one conversation per task and imports the first by default', () => {
    expect(listConversations(text())).toEqual([
      { index: 0, id: 'task-7', title: 'Hi, please cancel my order 42.' },
      { index: 1, id: 'task-8', title: 'When do you open?' },
    ]);
    const imported = importTranscript({ text: text() });
    expect(imported).toMatchObject({
      format: 'tau-bench',
      conversationCount: 2,
      conversationIndex: 0,
      model: 'gpt-4o',
    });
    expect(imported.events[0]).toMatchObject({ metadata: { taskId: 7, reward: 0, trial: 0 } });
    expectValidThread(imported);
  });

  it('renames a call id the transcript reuses so each result answers its own call', () => {
    const imported = importTranscript({ text: text() });
    expect(messageById(imported, 'tau-0-4').content[1]).toMatchObject({
      id: 'call_same.2',
      name: 'cancel_order',
    });
    expect(messageById(imported, 'tau-0-5').content[0]).toMatchObject({
      toolCallId: 'call_same.2',
      toolName: 'cancel_order',
      outcome: 'failure',
    });
    expect(messageById(imported, 'tau-0-3').content[0]).toMatchObject({
      toolName: 'get_order',
      outcome: 'success',
    });
    expect(imported.stats.duplicateCallIdsRenamed).toBe(1);
    expect(imported.warnings.some((warning) => warning.includes('call_same'))).toBe(true);
  });

  it('imports another conversation on request, with its own ids', () => {
    const opened = openTranscript({ text: text() });
    const second = opened.import({ conversation: 1 });
    expect(second.conversationIndex).toBe(1);
    expect(messagesOf(second).map((message) => message.id)).toEqual(['tau-1-0', 'tau-1-1', 'tau-1-2']);
    expect(second.threadId).not.toBe(opened.import({ conversation: 0 }).threadId);
    expect(second.events[0]!.eventId).toBe('tau-bench-1-thread-created');
  });

  it('rejects a conversation index that does not exist', () => {
    expect(() => importTranscript({ text: text() }, { conversation: 2 })).toThrow(ValidationError);
    expect(() => importTranscript({ text: text() }, { conversation: -1 })).toThrow(/holds 2/);
  });
});
