import { CompactorError, ValidationError } from '@compactor/core';
import { describe, expect, it } from 'vitest';
import { detectFormat, importTranscript, type TranscriptFormat, transcriptFormats } from '../src/index.js';
import { readFixture } from './support/fixtures.js';

const fixtures: Array<[string, TranscriptFormat]> = [
  ['pi/session-quirks.jsonl', 'pi'],
  ['pi/tree-session.jsonl', 'pi'],
  ['claude-code/cc-session.jsonl', 'claude-code'],
  ['claude-code/cc-session/subagents/agent-abc1234.jsonl', 'claude-code'],
  ['swe-agent/text-variant.traj', 'swe-agent'],
  ['swe-agent/function-calling.traj', 'swe-agent'],
  ['tau-bench/tasks.json', 'tau-bench'],
  ['aider/history.md', 'aider'],
  ['locomo/samples.json', 'locomo'],
  ['openai/request.json', 'openai'],
  ['anthropic/request.json', 'anthropic'],
];

describe('detectFormat', () => {
  it.each(fixtures)('detects %s as %s', (path, format) => {
    expect(detectFormat(readFixture(path))).toBe(format);
  });

  it('tells OpenAI and Anthropic requests apart by their Anthropic-only parts', () => {
    const plain = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] });
    expect(detectFormat(plain)).toBe('openai');
    expect(
      detectFormat(JSON.stringify({ system: 'be kind', messages: [{ role: 'user', content: 'hi' }] })),
    ).toBe('anthropic');
    const withToolUse = {
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] }],
    };
    expect(detectFormat(JSON.stringify(withToolUse))).toBe('anthropic');
  });

  it('throws a ValidationError naming every format it tried', () => {
    let caught: unknown;
    try {
      detectFormat('just some prose\nthat is no transcript at all', 'notes.txt');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect(CompactorError.hasCode(caught, 'validation')).toBe(true);
    const error = caught as ValidationError;
    expect(error.message).toContain('notes.txt');
    expect(error.issues.map((issue) => issue.path).sort()).toEqual([...transcriptFormats].sort());
    for (const format of transcriptFormats) expect(error.message).toContain(format);
  });

  it('refuses a format the caller names when the text is not in it', () => {
    expect(() => importTranscript({ text: readFixture('aider/history.md') }, { format: 'pi' })).toThrow(
      /not in the pi format/,
    );
    expect(() =>
      importTranscript({ text: '[]' }, { format: 'nonsense' as unknown as TranscriptFormat }),
    ).toThrow(ValidationError);
  });

  it('uses the caller model, thread id and context window when given', () => {
    const imported = importTranscript(
      { text: readFixture('openai/request.json') },
      { model: 'my-model', threadId: 'thread-42', tenantId: 'acme', contextWindow: 128000 },
    );
    expect(imported).toMatchObject({
      model: 'my-model',
      threadId: 'thread-42',
      tenantId: 'acme',
      contextWindow: 128000,
    });
    expect(imported.events[0]).toMatchObject({ model: 'my-model', contextWindow: 128000 });
    expect(() =>
      importTranscript({ text: readFixture('openai/request.json') }, { contextWindow: 0 }),
    ).toThrow(ValidationError);
  });
});
