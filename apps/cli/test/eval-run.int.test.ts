import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { emptyPlan, slidingWindow, tokenBudget } from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import { corpusAvailable, corpusFile } from '@compactor/testkit/corpus';
import { describe, expect, it } from 'vitest';
import type { Baseline } from '../src/eval/baselines/baseline.js';
import { formatEvaluationReport } from '../src/eval/format-eval-report.js';
import { OURS, runEvaluation } from '../src/eval/run-evaluation.js';
import { unboundedRender } from '../src/replay/unbounded-tokens.js';
import { runCli, writeChatTranscript } from './support.js';

/** Keep the last 6 messages (core's sliding window), rendered under the ceiling. */
const lastSix: Baseline = {
  name: 'last-six',
  source: '@compactor/core slidingWindow',
  async run({ thread, ceiling, provider, tokenizer, system }) {
    const now = new Date(0).toISOString();
    const result = slidingWindow(
      thread,
      { maxEvents: 6 },
      {
        countTokens: (message) => tokenizer.countMessage(message, provider),
        basePlan: emptyPlan(thread.id, now),
        now,
      },
    );
    const rendered = renderPromptSync({
      thread,
      plan: result.plan,
      system,
      tools: [],
      budget: tokenBudget({
        maxInputTokens: ceiling,
        outputReserveTokens: 0,
        safetyBufferTokens: 0,
        rehydrationReserveTokens: 0,
      }),
      provider,
      tokenizer,
    });
    return { request: rendered.request, keptMessageIds: result.keptIds };
  },
};

/** Sends the whole transcript whatever the budget: adherence must catch it. */
const everything: Baseline = {
  name: 'everything',
  source: 'test stub',
  async run({ thread, provider, tokenizer, system }) {
    const rendered = unboundedRender(thread, null, provider, tokenizer, system);
    return { request: rendered.request, keptMessageIds: thread.messages.map((message) => message.id) };
  },
};

describe('runEvaluation', () => {
  it('runs ours and each baseline per transcript and budget, and flags an oversized request', async () => {
    const file = await writeChatTranscript(30);
    const progress: number[] = [];
    const result = await runEvaluation({
      corpusDir: '/nonexistent',
      transcripts: [{ kind: 'openai', file, conversation: 0, label: 'garden' }],
      budgets: [3000, 1_000_000],
      baselines: [lastSix, everything],
      drift: false,
      needles: false,
      onProgress: ({ done }) => progress.push(done),
    });
    expect(progress).toEqual([1, 2]);
    expect(result.systems.map((system) => system.name)).toEqual([
      OURS,
      'last-six',
      'everything',
      'sliding-window+recall',
      'user-messages+summary',
    ]);
    expect(result.runs).toHaveLength(10);
    const at = (system: string, budget: number) =>
      result.runs.find((run) => run.system === system && run.budget === budget)!;
    const small = at(OURS, 3000);
    expect(small.valid).toBe(true);
    expect(small.withinBudget).toBe(true);
    expect(small.requestTokens).toBeLessThanOrEqual(small.ceiling);
    expect(small.compressionRatio).toBeGreaterThan(1.5);
    expect(at('last-six', 3000).valid).toBe(true);
    expect(at('everything', 3000).withinBudget).toBe(false);
    // A budget larger than the transcript still runs, uncompressed.
    expect(at(OURS, 1_000_000).compressionRatio).toBeCloseTo(1, 1);
    expect(at('everything', 1_000_000).withinBudget).toBe(true);
    // Final-state probes count for every system alike (here the current task: the newest question).
    expect(small.retention.overall.total).toBeGreaterThan(0);
    expect(at('last-six', 3000).retention.overall.total).toBe(small.retention.overall.total);
    const unbounded = at(OURS, 1_000_000).retention.overall;
    expect(unbounded.retained).toBe(unbounded.total);
    const everythingSummary = result.summaries.overall!.find((row) => row.system === 'everything')!;
    expect(everythingSummary.withinBudget).toBe(1);
    // The prompt cache, every system, every run: a request before every assistant message.
    for (const run of result.runs) {
      expect(run.cache?.calls, `${run.system} @ ${run.budget}`).toBeGreaterThan(10);
      expect(run.cache!.cachedShare).toBeGreaterThanOrEqual(0);
      expect(run.cache!.cachedShare).toBeLessThanOrEqual(1);
      expect(run.cache!.uncachedTokens).toBeLessThanOrEqual(run.cache!.inputTokens);
    }
    // Nothing compacts under a window larger than the transcript: ours sends what sending everything
    // sends, call for call (breakpoint markers aside), so the two measure alike.
    const roomy = at(OURS, 1_000_000).cache!;
    expect(roomy.commits).toBe(0);
    expect(roomy.emergencyFits).toBe(0);
    expect(roomy.cachedShare).toBeCloseTo(at('everything', 1_000_000).cache!.cachedShare, 12);
    expect(roomy.costUsd).toBeCloseTo(at('everything', 1_000_000).cache!.costUsd, 12);
    expect(roomy.cachedShare).toBeGreaterThan(0.8);
    // At 3k, something compacts: the cache shows what that cost.
    expect(at(OURS, 3000).cache!.commits).toBeGreaterThan(0);
    expect(at(OURS, 3000).cache!.cachedShare).toBeLessThan(roomy.cachedShare);
    expect(at('last-six', 3000).cache!.commits).toBeGreaterThan(0);
    const report = formatEvaluationReport(result);
    expect(report).toContain('## Prompt cache per run');
    expect(report).toContain('| garden @ 3k |');
    expect(report).toContain('| last-six |');
    expect(report).toContain('everything on garden @ 3000');
  });
});

describe('--policy and the command', () => {
  it('applies a thread policy to our system only', async () => {
    const file = await writeChatTranscript(30);
    const policyFile = join(dirname(file), 'policy.json');
    await writeFile(policyFile, JSON.stringify({ autoCompact: false }));
    const run = (withPolicy: boolean) =>
      runEvaluation({
        corpusDir: dirname(file),
        transcripts: [{ kind: 'openai', file, conversation: 0, label: 'garden' }],
        budgets: [3000],
        baselines: [],
        drift: false,
        needles: false,
        ...(withPolicy ? { policyFile } : {}),
      });
    expect((await run(false)).runs[0]!.compactions).toBeGreaterThan(0);
    expect((await run(true)).runs[0]!.compactions).toBe(0);
  });

  // Spawns the CLI (tsx start-up included): ~5 s on the loaded 2-core machine, so not the 5 s default.
  it('`compactor eval --json --out` writes results.json, report.md and the charts', {
    timeout: 30_000,
  }, async () => {
    const file = await writeChatTranscript(12);
    const out = await mkdtemp(join(tmpdir(), 'compactor-eval-out-'));
    const result = await runCli([
      'eval',
      '--corpus',
      dirname(file),
      '--budgets',
      '2k',
      '--json',
      '--out',
      out,
    ]);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { runs: Array<{ system: string; budget: number }> };
    expect(printed.runs.filter((run) => run.system === OURS).map((run) => run.budget)).toEqual([2000]);
    const saved = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as { runs: unknown[] };
    expect(saved.runs).toHaveLength(printed.runs.length);
    expect(await readFile(join(out, 'report.md'), 'utf8')).toContain('| compactor |');
    expect(await readFile(join(out, 'retention.svg'), 'utf8')).toContain('<svg');
    expect(await readFile(join(out, 'retention-openai.svg'), 'utf8')).toContain('<svg');
  });
});

describe.skipIf(!corpusAvailable('swe-agent', 'ctf-rev-rock.traj'))(
  'runEvaluation on the corpus (needs ../shared/corpus)',
  () => {
    it('measures one small SWE-agent trajectory at one budget, with drift', async () => {
      const result = await runEvaluation({
        corpusDir: corpusFile(),
        transcripts: [
          {
            kind: 'swe-agent',
            file: corpusFile('swe-agent', 'ctf-rev-rock.traj'),
            conversation: 0,
            label: 'rock',
          },
        ],
        budgets: [8000],
        baselines: [lastSix],
        needles: false,
      });
      const ours = result.runs.find((run) => run.system === OURS)!;
      expect(ours.valid).toBe(true);
      expect(ours.withinBudget).toBe(true);
      expect(ours.compressionRatio).toBeGreaterThan(1);
      expect(ours.retention.overall.retained).toBeLessThanOrEqual(ours.retention.overall.total);
      expect(result.drift).toHaveLength(1);
      expect(result.drift[0]!.presentPerRound).toHaveLength(10);
    });
  },
);
