import { describe, expect, it } from 'vitest';
import { promptGrowthSamples } from '../scripts/pi-calibration-samples.js';
import { parsePiSession, splitGluedJson } from '../scripts/pi-session.js';

const usage = (input: number, cacheRead = 0, cacheWrite = 0) => ({ input, output: 5, cacheRead, cacheWrite });
const assistant = (prompt: number, stopReason = 'toolUse', model = 'claude-opus-4-5') => ({
  type: 'message',
  message: {
    role: 'assistant',
    content: [{ type: 'toolCall', id: 'c', name: 'bash', arguments: { command: 'ls' } }],
    model,
    usage: usage(1, prompt - 1),
    stopReason,
  },
});
const toolResult = (text: string, image = false) => ({
  type: 'message',
  message: {
    role: 'toolResult',
    toolCallId: 'c',
    toolName: 'bash',
    content: [
      { type: 'text', text },
      ...(image ? [{ type: 'image', data: 'iVBOR', mimeType: 'image/png' }] : []),
    ],
    isError: false,
  },
});
const user = (text: string) => ({
  type: 'message',
  message: { role: 'user', content: [{ type: 'text', text }] },
});

describe('pi session parsing', () => {
  it('splits records glued on one line, braces inside strings included', () => {
    const line = '{"type":"message","text":"a } { b \\" }"}{"type":"compaction","summary":"{x}"}';
    expect(splitGluedJson(line).map((piece) => JSON.parse(piece).type)).toEqual(['message', 'compaction']);
  });

  it('parses a session with a glued line and blank lines', () => {
    const records = parsePiSession(
      '{"type":"session","id":"s"}\n\n{"type":"message","message":{"role":"user"}}{"type":"compaction"}\n',
    );
    expect(records.map((record) => record.type)).toEqual(['session', 'message', 'compaction']);
  });
});

describe('promptGrowthSamples', () => {
  it('takes the growth between consecutive calls and the messages appended in between', () => {
    const records = [
      { type: 'session' },
      user('go'),
      assistant(1_000),
      toolResult('out'),
      assistant(1_300),
      user('next'),
      assistant(1_450, 'stop'),
    ];
    const { samples } = promptGrowthSamples('f', records as never);
    expect(samples.map((sample) => sample.actualTokens)).toEqual([300, 150]);
    expect(samples[0]!.messages.map((item) => item.role)).toEqual(['assistant', 'tool']);
    expect(samples[1]!.messages.map((item) => item.role)).toEqual(['assistant', 'user']);
  });

  it('breaks the chain at compactions, model changes and aborted calls', () => {
    const records = [
      assistant(1_000),
      toolResult('a'),
      { type: 'compaction', summary: 's' },
      assistant(500),
      toolResult('b'),
      assistant(700, 'aborted'),
      toolResult('c'),
      assistant(900),
      toolResult('d'),
      assistant(1_200, 'toolUse', 'claude-sonnet-4-5'),
      toolResult('e'),
      assistant(1_400, 'toolUse', 'claude-sonnet-4-5'),
    ];
    const { samples, skipped } = promptGrowthSamples('f', records as never);
    expect(samples.map((sample) => sample.actualTokens)).toEqual([200]);
    expect(skipped['aborted or failed call']).toBe(1);
    expect(skipped['model changed']).toBe(1);
  });

  it('drops samples it cannot measure faithfully', () => {
    const records = [
      assistant(1_000),
      toolResult('screenshot', true),
      assistant(2_000),
      { type: 'message', message: { role: 'bashExecution', command: 'ls', output: 'a' } },
      assistant(2_100),
      toolResult('x'),
      assistant(2_100),
    ];
    const { samples, skipped } = promptGrowthSamples('f', records as never);
    expect(samples).toHaveLength(0);
    expect(skipped).toEqual({
      'image in a tool result': 1,
      'user shell command in between': 1,
      'prompt did not grow': 1,
    });
  });
});
