import type { QaProbe } from '@compactor/importers';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { describe, expect, it } from 'vitest';
import { parseBudgetList } from '../src/commands/eval-command.js';
import type { RunMetrics } from '../src/eval/eval-types.js';
import { codingRetention, qaRetention, type RequestView } from '../src/eval/probe-retention.js';
import { deriveCodingProbes } from '../src/eval/probes.js';
import { checkRequest } from '../src/eval/request-checks.js';
import { requestText } from '../src/eval/request-text.js';
import { retentionChart } from '../src/eval/retention-chart.js';

function codingThread() {
  const builder = threadBuilder('coding')
    .user('Fix the parser. You must not change the public API. Thanks!')
    .assistant('reading', { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'src/parser.ts' } }] })
    .toolResult('c1', 'export function parse() {}')
    .assistant('running', {
      toolCalls: [{ id: 'c2', name: 'bash', input: { command: 'npm test\necho done' } }],
    })
    .toolResult('c2', 'ok\nError: expected 2 but got 3\nat parse', { outcome: 'failure' });
  for (let turn = 2; turn <= 8; turn += 1) {
    builder
      .user(`Turn ${turn}: keep going.`)
      .assistant('editing', {
        toolCalls: [{ id: `late${turn}`, name: 'edit_file', input: { path: `src/late-${turn}.ts` } }],
      })
      .toolResult(`late${turn}`, 'edited');
  }
  return builder.build().thread;
}

const allKept: RequestView = { text: '', keptVerbatim: () => true, artifacts: new Map() };

describe('coding probes', () => {
  it('derives constraints, files, commands and errors from the first quarter of turns only', () => {
    const probes = deriveCodingProbes(codingThread());
    expect(probes.map((probe) => [probe.kind, probe.text])).toEqual([
      ['constraint', 'You must not change the public API.'],
      ['file', 'src/parser.ts'],
      ['command', 'npm test'],
      ['error', 'Error: expected 2 but got 3'],
      // 8 turns: the first ceil(8 × 0.25) = 2 count, so turn 2's file does and turn 3's does not.
      ['file', 'src/late-2.ts'],
    ]);
  });

  it('counts a compacted probe retained only when its text is in the request', () => {
    const probes = deriveCodingProbes(codingThread());
    const request = { messages: [{ role: 'user', content: 'Summary: read SRC/parser.ts;   ran npm test' }] };
    const retention = codingRetention(probes, {
      text: requestText(request),
      keptVerbatim: () => false,
      artifacts: new Map(),
    });
    expect(retention.overall).toEqual({ retained: 2, compacted: 5 });
    expect(codingRetention(probes, allKept).overall).toEqual({ retained: 0, compacted: 0 });
  });
});

describe('LoCoMo retention', () => {
  const { thread } = threadBuilder('qa')
    .user('Alice: I adopted a dog named Biscuit last spring.')
    .assistant('Bob: That is lovely!')
    .user('Alice: We went hiking on Sunday.')
    .assistant('Bob: Nice.')
    .user('Alice: Anything new?')
    .assistant('Bob: Not really.')
    .build();
  const probe = (id: string, evidence: string[], answer?: string): QaProbe => ({
    id,
    question: '?',
    ...(answer ? { answer } : {}),
    evidence,
    evidenceMessageIds: evidence,
    category: 1,
  });
  const probes = [
    probe('q1', ['m1'], 'Biscuit'),
    probe('q2', ['m3'], 'hiking trip'),
    probe('q3', ['m5'], 'a quiet week'),
    probe('q4', ['m6'], 'zebra'),
  ];

  it('counts answers, verbatim evidence and artifact pointers, and splits early evidence', () => {
    const request = {
      messages: [
        { role: 'user', content: 'Earlier: her dog is called biscuit.' },
        { role: 'user', content: '[artifact:art-7] older turns stored' },
        { role: 'user', content: 'Alice: Anything new?' },
      ],
    };
    const view: RequestView = {
      text: requestText(request),
      keptVerbatim: (id) => id === 'm5',
      artifacts: new Map([['art-7', new Set(['m3'])]]),
    };
    const retention = qaRetention(thread, probes, view);
    // q1 by answer, q2 behind the artifact, q4 lost; q3's evidence was never compacted.
    expect(retention.overall).toEqual({ retained: 2, compacted: 3 });
    // q4's evidence is in the second half.
    expect(retention.early).toEqual({ retained: 2, compacted: 2 });
  });

  it('does not count an artifact pointer that is absent from the request', () => {
    const view: RequestView = {
      text: requestText({ messages: [{ role: 'user', content: 'nothing here' }] }),
      keptVerbatim: () => false,
      artifacts: new Map([['art-7', new Set(['m3'])]]),
    };
    expect(qaRetention(thread, probes, view).overall).toEqual({ retained: 0, compacted: 4 });
  });
});

describe('request checks', () => {
  const tokenizer = createTokenizer({ model: 'gpt-4o' });
  const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello '.repeat(200) }] };

  it('flags a request larger than the ceiling, counted independently', () => {
    const tokens = tokenizer.countRequest(request as never, 'openai-chat');
    expect(checkRequest(request, 'openai-chat', tokenizer, tokens).withinBudget).toBe(true);
    const over = checkRequest(request, 'openai-chat', tokenizer, tokens - 1);
    expect(over.withinBudget).toBe(false);
    expect(over.valid).toBe(true);
  });

  it('flags an invalid request and a missing one', () => {
    const orphan = { model: 'gpt-4o', messages: [{ role: 'tool', tool_call_id: 'x', content: 'r' }] };
    expect(checkRequest(orphan, 'openai-chat', tokenizer, 10_000).valid).toBe(false);
    expect(checkRequest(null, 'openai-chat', tokenizer, 10_000)).toMatchObject({
      valid: false,
      withinBudget: false,
    });
  });
});

describe('retention chart', () => {
  const run = (system: string, budget: number, retained: number): RunMetrics => ({
    system,
    transcript: 't',
    kind: 'locomo',
    budget,
    ceiling: budget,
    transcriptTokens: 100_000,
    requestTokens: budget,
    withinBudget: true,
    valid: true,
    validationErrors: [],
    compressionRatio: 2,
    retention: { overall: { retained, compacted: 10 }, early: { retained, compacted: 10 } },
    elapsedMs: 1,
  });

  it('draws one series per system with a legend entry and one point per budget', () => {
    const systems = ['compactor', 'sliding-window', 'langchain'];
    const runs = systems.flatMap((system, index) => [
      run(system, 8000, index),
      run(system, 16000, index + 1),
    ]);
    const svg = retentionChart(runs, systems);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<g class="series"/g)).toHaveLength(3);
    for (const system of systems) expect(svg).toContain(`data-system="${system}"`);
    expect(svg.match(/<circle /g)).toHaveLength(6);
    expect(svg).toContain('>8k<');
    expect(svg).toContain('>16k<');
  });
});

describe('coding probes of a one-task session', () => {
  it('takes the first quarter of messages when there are fewer than 4 user turns', () => {
    const builder = threadBuilder('one-task').user('Solve the task. Do not modify the tests.');
    for (let step = 1; step <= 7; step += 1) {
      builder
        .assistant(`step ${step}`, {
          toolCalls: [{ id: `s${step}`, name: 'bash', input: { command: `step-${step}.sh` } }],
        })
        .toolResult(`s${step}`, 'ok');
    }
    // 15 messages: the first ceil(15 × 0.25) = 4 are the user message and steps 1–2 (call, result, call).
    expect(deriveCodingProbes(builder.build().thread).map((probe) => probe.text)).toEqual([
      'Do not modify the tests.',
      'step-1.sh',
      'step-2.sh',
    ]);
  });
});

describe('--budgets', () => {
  it('reads plain numbers and k suffixes, sorted and de-duplicated, and rejects the rest', () => {
    expect(parseBudgetList('16k, 8000,8K,32000')).toEqual([8000, 16000, 32000]);
    expect(() => parseBudgetList('8k,lots')).toThrow(/invalid budget/);
    expect(() => parseBudgetList('0')).toThrow(/invalid budget/);
  });
});
