import { describe, expect, it } from 'vitest';
import { importTranscript, interruptedResultText } from '../src/index.js';
import { readFixture } from './support/fixtures.js';
import { expectValidThread, messageById, messagesOf } from './support/thread-invariants.js';

describe('swe-agent importer', () => {
  it('reads the text variant from history: one task turn, demonstration and observations synthetic', () => {
    const imported = importTranscript({
      text: readFixture('swe-agent/text-variant.traj'),
      fileName: 'text-variant.traj',
    });
    expect(imported.format).toBe('swe-agent');
    expectValidThread(imported);
    expect(messagesOf(imported).map((message) => [message.role, message.synthetic ?? false])).toEqual([
      ['system', false],
      ['user', true],
      ['user', false],
      ['assistant', false],
      ['user', true],
      ['assistant', false],
    ]);
    expect(messageById(imported, 'swe-1').metadata).toEqual({ demonstration: true });
    expect(messageById(imported, 'swe-4').metadata).toEqual({ observation: true });
    expect(imported.stats.userTurns).toBe(1);
    expect(imported.model).toBe('gpt-4o');
    expect(imported.events[0]).toMatchObject({
      metadata: { exitStatus: 'submitted', environment: 'swe_main' },
    });
  });

  it('reads the function-calling variant: calls, results by tool_call_ids, model from the config', () => {
    const imported = importTranscript({ text: readFixture('swe-agent/function-calling.traj') });
    expectValidThread(imported);
    expect(imported.model).toBe('gpt-4o-2024-08-06');
    expect(imported.conversationId).toBe('demo__sum-1');
    expect(messageById(imported, 'swe-1').content).toEqual([
      { type: 'text', text: 'Fix the off-by-one error in range_sum().' },
    ]);
    expect(messageById(imported, 'swe-2').content[1]).toEqual({
      type: 'tool_call',
      id: 'call_open',
      name: 'open',
      input: { path: 'sum.py' },
    });
    expect(messageById(imported, 'swe-3').content[0]).toMatchObject({
      toolName: 'open',
      toolCallId: 'call_open',
      durability: 'replayable',
      keyFields: { path: 'sum.py' },
    });
  });

  it('keeps arguments that are not JSON as a string and repairs the unanswered submit', () => {
    const imported = importTranscript({ text: readFixture('swe-agent/function-calling.traj') });
    expect(messageById(imported, 'swe-4').content[1]).toMatchObject({ name: 'edit', input: '{not json' });
    expect(imported.warnings.some((warning) => warning.includes('not valid JSON'))).toBe(true);
    expect(messageById(imported, 'swe-6-interrupted').content[0]).toMatchObject({
      toolCallId: 'call_submit',
      toolName: 'submit',
      outcome: 'failure',
      content: interruptedResultText,
    });
  });
});
