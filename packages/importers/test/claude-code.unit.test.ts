import { describe, expect, it } from 'vitest';
import { importTranscript, interruptedResultText } from '../src/index.js';
import { readFixture } from './support/fixtures.js';
import { expectValidThread, messageById, messagesOf } from './support/thread-invariants.js';

const sessionText = () => readFixture('claude-code/cc-session.jsonl');
const subagentText = () => readFixture('claude-code/cc-session/subagents/agent-abc1234.jsonl');
const importSession = (withSubagent = false) =>
  importTranscript({
    text: sessionText(),
    fileName: 'cc-session.jsonl',
    ...(withSubagent ? { subagents: [{ agentId: 'abc1234', text: subagentText() }] } : {}),
  });

describe('claude-code importer', () => {
  it('detects the format past the comment lines and reads the model', () => {
    const imported = importSession();
    expect(imported.format).toBe('claude-code');
    expect(imported.model).toBe('claude-demo-1');
    expect(imported.conversationId).toBe('s-demo');
    expectValidThread(imported);
  });

  it('merges the streaming records of one API message into one assistant message', () => {
    const imported = importSession();
    const assistants = messagesOf(imported).filter((message) => message.metadata?.requestId === 'req_1');
    expect(assistants).toHaveLength(1);
    expect(assistants[0]!.id).toBe('cc-msg_A');
    expect(assistants[0]!.content).toEqual([
      { type: 'reasoning', text: 'I should read the note first.', signature: 'sig-1' },
      { type: 'text', text: 'Reading the file.' },
      { type: 'tool_call', id: 'toolu_read', name: 'Read', input: { file_path: '/w/notes.md' } },
      { type: 'tool_call', id: 'toolu_web', name: 'WebSearch', input: { query: 'style guide' } },
    ]);
    // The last streaming record carries the final output count.
    expect(assistants[0]!.metadata?.tokenUsage).toEqual({
      inputTokens: 10,
      outputTokens: 42,
      cacheReadTokens: 2000,
      cacheWriteTokens: 100,
    });
  });

  it('skips the history Claude Code wrote again on resume', () => {
    const imported = importSession();
    expect(imported.stats.replayedRecords).toBe(3);
    expect(imported.warnings.some((warning) => warning.includes('skipped 3 records that repeat'))).toBe(true);
    const toolResultsForRead = messagesOf(imported).filter(
      (message) =>
        message.content[0]?.type === 'tool_result' && message.content[0].toolCallId === 'toolu_read',
    );
    expect(toolResultsForRead).toHaveLength(1);
  });

  it('gives each tool result its own message with the call name, outcome and durability', () => {
    const imported = importSession();
    expect(messageById(imported, 'cc-u5').content[0]).toMatchObject({
      toolName: 'WebSearch',
      toolCallId: 'toolu_web',
      outcome: 'success',
      durability: 'non_replayable',
      completedAt: '2026-02-01T09:00:06.000Z',
      startedAt: '2026-02-01T09:00:02.000Z',
    });
    expect(messageById(imported, 'cc-u6').content[0]).toMatchObject({
      toolName: 'Read',
      content: '1: teh cat',
      durability: 'replayable',
      keyFields: { path: '/w/notes.md' },
    });
  });

  it('moves a tool result image into a synthetic message after the results, never into text', () => {
    const imported = importSession();
    const ids = messagesOf(imported).map((message) => message.id);
    expect(ids.slice(ids.indexOf('cc-msg_A'), ids.indexOf('cc-msg_A') + 5)).toEqual([
      'cc-msg_A',
      'cc-u5',
      'cc-u6',
      'cc-u6-images',
      'cc-u6-text',
    ]);
    expect(messageById(imported, 'cc-u6-images')).toMatchObject({
      role: 'user',
      synthetic: true,
      content: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'iVBORw0KGgo=' } }],
    });
    const screenshot = messageById(imported, 'cc-u12');
    expect(screenshot.synthetic).toBeUndefined();
    expect(screenshot.content.map((part) => part.type)).toEqual(['image', 'text']);
  });

  it('marks harness-injected user content as synthetic and counts real turns only', () => {
    const imported = importSession();
    for (const id of ['cc-u6-text', 'cc-u7', 'cc-u8', 'cc-u13']) {
      expect(messageById(imported, id).synthetic, id).toBe(true);
    }
    expect(messageById(imported, 'cc-u1').synthetic).toBeUndefined();
    expect(messageById(imported, 'cc-synthetic-1')).toMatchObject({ role: 'assistant', synthetic: true });
    expect(imported.stats.userTurns).toBe(3);
  });

  it('drops an orphan result and answers the dangling last call', () => {
    const imported = importSession();
    expect(messagesOf(imported).some((message) => message.id === 'cc-u10')).toBe(false);
    expect(imported.warnings.some((warning) => warning.includes('toolu_ghost'))).toBe(true);
    const ids = messagesOf(imported).map((message) => message.id);
    expect(ids[ids.indexOf('cc-msg_D') + 1]).toBe('cc-msg_D-interrupted');
    expect(messageById(imported, 'cc-msg_D-interrupted').content[0]).toMatchObject({
      toolCallId: 'toolu_bash',
      outcome: 'failure',
      content: interruptedResultText,
    });
  });

  it('keeps inline sidechain messages under their agent', () => {
    const message = messageById(importSession(), 'cc-inline1-side1');
    expect(message).toMatchObject({ role: 'user', subagentId: 'inline1' });
  });

  it('inserts a subagent transcript after the result of the Task call that launched it', () => {
    const imported = importSession(true);
    expectValidThread(imported);
    const messages = messagesOf(imported);
    const taskResult = messages.findIndex((message) => message.id === 'cc-u9');
    const subagent = messages.slice(taskResult + 1, taskResult + 5);
    expect(subagent.map((message) => message.subagentId)).toEqual([
      'abc1234',
      'abc1234',
      'abc1234',
      'abc1234',
    ]);
    expect(subagent.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(subagent[2]!.content[0]).toMatchObject({ toolName: 'WebFetch', outcome: 'failure' });
    expect(messages[taskResult + 5]!.id).toBe('cc-msg_C');
    expect(imported.stats.userTurns).toBe(3);
    expect(imported.stats.subagentMessages).toBe(5);
  });

  it('appends a subagent nothing launched at the end, with a warning', () => {
    const imported = importTranscript({
      text: sessionText(),
      subagents: [{ agentId: 'zzz9999', text: subagentText() }],
    });
    expectValidThread(imported);
    expect(messagesOf(imported).at(-1)!.subagentId).toBe('zzz9999');
    expect(imported.warnings.some((warning) => warning.includes('zzz9999'))).toBe(true);
  });
});
