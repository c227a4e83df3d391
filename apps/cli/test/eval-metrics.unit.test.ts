import type { PiCompaction } from '@compactor/importers';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import { createTokenizer } from '@compactor/tokenizer';
import { describe, expect, it } from 'vitest';
import { parseRatioList, parseWindowList, windowsOf } from '../src/commands/eval-command.js';
import type { RunMetrics } from '../src/eval/eval-types.js';
import { codingRetention } from '../src/eval/probe-retention.js';
import { finalStateProbes, piSummaryProbes, summaryTerms } from '../src/eval/probes.js';
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
  for (let turn = 2; turn <= 5; turn += 1) {
    builder
      .user(turn === 5 ? 'ok' : `Turn ${turn}: now port the lexer over to the new API please.`)
      .assistant('editing', {
        toolCalls: [{ id: `late${turn}`, name: 'edit_file', input: { path: `src/late-${turn}.ts` } }],
      })
      .toolResult(`late${turn}`, 'edited');
  }
  return builder.build().thread;
}

describe('final-state coding probes (from the log, not from our extractors)', () => {
  it('are the files modified, the last failing command and its error, and the current task', () => {
    const probes = finalStateProbes(codingThread());
    expect(probes.map((probe) => [probe.kind, probe.text])).toEqual([
      ['file-modified', 'src/late-2.ts'],
      ['file-modified', 'src/late-3.ts'],
      ['file-modified', 'src/late-4.ts'],
      ['file-modified', 'src/late-5.ts'],
      ['last-failure-command', 'npm test'],
      ['last-failure-error', 'Error: expected 2 but got 3'],
      // "ok" is too short to be a task: the newest user turn of 5+ words is.
      ['current-task', 'Turn 4: now port the lexer over to the new API please.'],
    ]);
  });

  it('count every probe for every system, retained only when its text is in the request', () => {
    const probes = finalStateProbes(codingThread());
    const request = { messages: [{ role: 'user', content: 'Edited SRC/late-2.ts;   ran npm test' }] };
    const retention = codingRetention(probes, requestText(request));
    expect(retention.overall).toEqual({ retained: 2, total: 7 });
    expect(retention.byKind['file-modified']).toEqual({ retained: 1, total: 4 });
    expect(codingRetention(probes, '').overall).toEqual({ retained: 0, total: 7 });
  });
});

describe('pi summary probes', () => {
  it("take backticked terms and paths of pi's own summaries that occur before the compaction", () => {
    expect(summaryTerms('Edited `src/a.ts` and docs/guide.md; ran `npm test` (see x.y).')).toEqual([
      'src/a.ts',
      'npm test',
      'docs/guide.md',
    ]);
    const thread = codingThread();
    const compaction: PiCompaction = {
      atMessageId: thread.messages[4]!.id,
      summary: 'Read `src/parser.ts`; goal: keep `the public API`; later touched src/late-3.ts.',
      tokensBefore: 1000,
      firstKeptEntryIndex: undefined,
      firstKeptEntryId: undefined,
      firstKeptMessageId: undefined,
      timestamp: undefined,
    };
    // src/late-3.ts comes after the compaction point, so it is not something pi kept from history.
    expect(piSummaryProbes(thread, [compaction]).map((probe) => probe.text)).toEqual([
      'src/parser.ts',
      'the public API',
    ]);
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
  const run = (system: string, window: number, retained: number): RunMetrics => ({
    system,
    transcript: 't',
    kind: 'pi',
    window,
    ceiling: window,
    transcriptTokens: 100_000,
    requestTokens: window,
    withinBudget: true,
    valid: true,
    validationErrors: [],
    compressionRatio: 2,
    retention: { overall: { retained, total: 10 }, byKind: {} },
    elapsedMs: 1,
  });

  it('draws one series per system with a legend entry and one point per context window', () => {
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

describe('--windows', () => {
  it('reads plain numbers and k suffixes, sorted and de-duplicated, and rejects the rest', () => {
    expect(parseWindowList('16k, 8000,8K,32000')).toEqual([8000, 16000, 32000]);
    expect(() => parseWindowList('8k,lots')).toThrow(/invalid context window/);
    expect(() => parseWindowList('0')).toThrow(/invalid context window/);
  });

  it('joins --windows and --window, and takes the old names --budgets and --budget with a note', () => {
    const notes: string[] = [];
    const note = (text: string) => notes.push(text);
    expect(windowsOf({ out: '.', windows: [8000, 32000], window: 16000 }, note)).toEqual([
      8000, 16000, 32000,
    ]);
    expect(windowsOf({ out: '.' }, note)).toBeUndefined();
    expect(notes).toEqual([]);
    expect(windowsOf({ out: '.', budget: 16000 }, note)).toEqual([16000]);
    expect(notes.pop()).toMatch(/--budget is now --window \(context windows/);
    expect(windowsOf({ out: '.', budgets: [8000, 16000], window: 8000 }, note)).toEqual([8000, 16000]);
    expect(notes.pop()).toMatch(/--budgets is now --windows/);
  });
});

describe('--ratios', () => {
  it('reads ratios with an optional x, sorted and de-duplicated, and rejects ratios under 1', () => {
    expect(parseRatioList('8,2x, 4,2')).toEqual([2, 4, 8]);
    expect(() => parseRatioList('0.5')).toThrow(/invalid ratio/);
  });
});
