import { describe, expect, it } from 'vitest';
import { importTranscript, interruptedResultText } from '../src/index.js';
import { readFixture } from './support/fixtures.js';
import { expectValidThread, messageById, messagesOf } from './support/thread-invariants.js';

const quirks = () =>
  importTranscript({ text: readFixture('pi/session-quirks.jsonl'), fileName: 'session-quirks.jsonl' });

describe('pi importer', () => {
  it('detects the format and takes the model from the session header', () => {
    const imported = quirks();
    expect(imported.format).toBe('pi');
    expect(imported.model).toBe('claude-test-model');
    expect(imported.events[0]).toMatchObject({
      type: 'thread.created',
      model: 'claude-test-model',
      contextWindow: 200000,
    });
    expectValidThread(imported);
  });

  it('splits the two records glued on one line', () => {
    const imported = quirks();
    expect(messageById(imported, 'pi-9').content).toEqual([
      { type: 'text', text: 'Stopped. The file says teh cat.' },
    ]);
    expect(imported.piCompactions).toHaveLength(1);
    expect(imported.warnings.some((warning) => warning.includes('split line 10'))).toBe(true);
  });

  it('keeps a compaction record as a probe, not a message', () => {
    const imported = quirks();
    const compaction = imported.piCompactions![0]!;
    expect(compaction).toMatchObject({
      atMessageId: 'pi-9',
      firstKeptEntryIndex: 7,
      firstKeptMessageId: 'pi-7',
      tokensBefore: 12345,
      timestamp: '2025-01-01T10:00:10.000Z',
    });
    expect(compaction.summary).toContain('fix a typo in notes.md');
    const texts = messagesOf(imported).flatMap((m) =>
      m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])),
    );
    expect(texts.some((text) => text.includes(compaction.summary))).toBe(false);
  });

  it('maps thinking with its signature, tool calls and the real usage', () => {
    const assistant = messageById(quirks(), 'pi-2');
    expect(assistant.content).toEqual([
      { type: 'reasoning', text: 'I should list the directory first.', signature: 'sig-abc' },
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'call-ls', name: 'ls', input: { path: '.' } },
    ]);
    expect(assistant.metadata?.usage).toMatchObject({
      input: 120,
      output: 30,
      cacheRead: 1000,
      cacheWrite: 50,
    });
    expect(assistant.metadata?.tokenUsage).toEqual({
      inputTokens: 120,
      outputTokens: 30,
      cacheReadTokens: 1000,
      cacheWriteTokens: 50,
    });
  });

  it('wraps tool results in envelopes with durability and timing', () => {
    const result = messageById(quirks(), 'pi-3');
    expect(result.role).toBe('tool');
    expect(result.content[0]).toMatchObject({
      type: 'tool_result',
      toolName: 'ls',
      toolCallId: 'call-ls',
      outcome: 'success',
      content: 'notes.md\nsrc/',
      durability: 'ephemeral',
      startedAt: '2025-01-01T10:00:02.000Z',
      completedAt: '2025-01-01T10:00:03.000Z',
    });
  });

  it('carries images as image parts, from the user and from tool results', () => {
    const imported = quirks();
    expect(messageById(imported, 'pi-1').content[1]).toEqual({
      type: 'image',
      mediaType: 'image/png',
      source: { kind: 'base64', data: 'aGVsbG8=' },
    });
    const attached = messageById(imported, 'pi-5-images');
    expect(attached).toMatchObject({ role: 'user', synthetic: true });
    expect(attached.content).toEqual([
      { type: 'image', mediaType: 'image/jpeg', source: { kind: 'base64', data: 'd29ybGQ=' } },
    ]);
    expect(messageById(imported, 'pi-5').content[0]).toMatchObject({
      content: 'teh cat',
      durability: 'replayable',
    });
  });

  it('answers a dangling call with an interrupted failure placed with the other results', () => {
    const imported = quirks();
    const ids = messagesOf(imported).map((message) => message.id);
    expect(ids.slice(ids.indexOf('pi-4'), ids.indexOf('pi-4') + 4)).toEqual([
      'pi-4',
      'pi-5',
      'pi-4-interrupted',
      'pi-5-images',
    ]);
    const repaired = messageById(imported, 'pi-4-interrupted');
    expect(repaired).toMatchObject({ role: 'tool', synthetic: true });
    expect(repaired.content[0]).toMatchObject({
      toolCallId: 'call-bash',
      toolName: 'bash',
      outcome: 'failure',
      content: interruptedResultText,
    });
    expect(imported.stats.danglingCallsRepaired).toBe(1);
    expect(imported.warnings.some((warning) => warning.includes('call-bash'))).toBe(true);
  });

  it('drops a result whose call does not exist and says so', () => {
    const imported = quirks();
    expect(messagesOf(imported).some((message) => message.id === 'pi-8')).toBe(false);
    expect(imported.stats.orphanResultsDropped).toBe(1);
    expect(imported.warnings.some((warning) => warning.includes('call-ghost'))).toBe(true);
  });

  it('turns a user shell command into synthetic user text the way pi shows it to the model', () => {
    const bash = messageById(quirks(), 'pi-12');
    expect(bash).toMatchObject({ role: 'user', synthetic: true });
    expect(bash.content).toEqual([
      { type: 'text', text: 'Ran `ls`\n```\nnotes.md\n```\n\nCommand exited with code 2' },
    ]);
  });

  it('drops an aborted empty assistant message and counts real user turns only', () => {
    const imported = quirks();
    expect(messagesOf(imported).some((message) => message.id === 'pi-13')).toBe(false);
    expect(
      imported.warnings.some((warning) => warning.includes('pi-13') && warning.includes('aborted')),
    ).toBe(true);
    expect(imported.stats.userTurns).toBe(3);
    expect(imported.stats.sourceUserRecords).toBe(3);
    expect(imported.stats.skippedRecords).toEqual({ thinking_level_change: 1, model_change: 1 });
  });

  it('gives the same events, ids included, every time', () => {
    expect(quirks()).toEqual(quirks());
    expect(quirks().threadId).toMatch(/^pi-session-quirks-[0-9a-f]{10}-0$/);
  });

  it('follows the active branch of a tree-shaped session', () => {
    const imported = importTranscript({ text: readFixture('pi/tree-session.jsonl') });
    expectValidThread(imported);
    expect(messagesOf(imported).map((message) => message.id)).toEqual([
      'pi-e1',
      'pi-e2',
      'pi-e5',
      'pi-e6',
      'pi-e8',
    ]);
    expect(messageById(imported, 'pi-e5')).toMatchObject({ role: 'user', synthetic: true });
    expect(imported.model).toBe('gpt-tree-model');
    expect(imported.stats.skippedRecords['off-branch']).toBe(2);
    expect(imported.piCompactions).toEqual([
      {
        atMessageId: 'pi-e6',
        summary: 'Two questions so far.',
        tokensBefore: 500,
        firstKeptEntryIndex: undefined,
        firstKeptEntryId: 'e6',
        firstKeptMessageId: 'pi-e6',
        timestamp: '2025-02-01T08:00:07.000Z',
      },
    ]);
  });
});
