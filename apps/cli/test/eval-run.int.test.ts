import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { emptyPlan, POLICY_PRESET_NAMES, slidingWindow, tokenBudget } from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import { corpusAvailable, corpusFile } from '@compactor/testkit/corpus';
import { describe, expect, it } from 'vitest';
import type { Baseline } from '../src/eval/baselines/baseline.js';
import { formatEvaluationReport } from '../src/eval/format-eval-report.js';
import { OURS, presetSystemName, runEvaluation } from '../src/eval/run-evaluation.js';
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
      windows: [3000, 1_000_000],
      baselines: [lastSix, everything],
      presets: [],
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
    const at = (system: string, window: number) =>
      result.runs.find((run) => run.system === system && run.window === window)!;
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
      expect(run.cache?.calls, `${run.system} @ ${run.window}`).toBeGreaterThan(10);
      expect(run.cache!.cachedShare).toBeGreaterThanOrEqual(0);
      expect(run.cache!.cachedShare).toBeLessThanOrEqual(1);
      expect(run.cache!.uncachedTokens).toBeLessThanOrEqual(run.cache!.inputTokens);
    }
    // Nothing compacts under a window larger than the transcript: ours sends what sending everything
    // sends, call for call (breakpoint markers aside), plus Compactor's read_artifact tool first in
    // every request (ADR-0141): the same tool block on every call, uncached only on the first.
    const roomy = at(OURS, 1_000_000).cache!;
    const plain = at('everything', 1_000_000).cache!;
    expect(roomy.commits).toBe(0);
    expect(roomy.emergencyFits).toBe(0);
    expect(roomy.calls).toBe(plain.calls);
    const toolBlock = roomy.uncachedTokens - plain.uncachedTokens;
    expect(toolBlock).toBeGreaterThan(0);
    expect(roomy.inputTokens - plain.inputTokens).toBe(toolBlock * roomy.calls);
    expect(roomy.cachedShare).toBeGreaterThan(plain.cachedShare);
    expect(roomy.cachedShare).toBeGreaterThan(0.8);
    // At 3k, something compacts: the cache shows what that cost.
    expect(at(OURS, 3000).cache!.commits).toBeGreaterThan(0);
    expect(at(OURS, 3000).cache!.cachedShare).toBeLessThan(roomy.cachedShare);
    expect(at('last-six', 3000).cache!.commits).toBeGreaterThan(0);
    const report = formatEvaluationReport(result);
    expect(report).toContain('## Prompt cache per run');
    expect(report).toContain('images and documents as the provider bills them');
    expect(report).toContain('| garden @ 3k |');
    expect(report).toContain('| last-six |');
    expect(report).toContain('everything on garden @ 3000');
  });
});

describe('policy presets as rows (ADR-0181)', () => {
  it('runs every preset by default as its own row, measured like ours', async () => {
    const file = await writeChatTranscript(30);
    const result = await runEvaluation({
      corpusDir: '/nonexistent',
      transcripts: [{ kind: 'openai', file, conversation: 0, label: 'garden' }],
      windows: [3000],
      baselines: [lastSix],
      drift: false,
      needles: false,
    });
    const presetRows = POLICY_PRESET_NAMES.map(presetSystemName);
    // The cache replay's two extra systems follow the baselines (ADR-0140).
    const systems = [OURS, ...presetRows, 'last-six', 'sliding-window+recall', 'user-messages+summary'];
    expect(result.systems.map((system) => system.name)).toEqual(systems);
    expect(result.runs.map((run) => run.system)).toEqual(systems);
    for (const run of result.runs.filter((candidate) => candidate.system.startsWith('preset:'))) {
      expect(run.valid, run.system).toBe(true);
      expect(run.withinBudget, run.system).toBe(true);
      expect(run.requestTokens, run.system).toBeLessThanOrEqual(run.ceiling);
    }
    // Presets differ: seed-004-sliding's turn trigger fires on 30 turns; seed-000's 80,000 tokens never do.
    const row = (preset: (typeof POLICY_PRESET_NAMES)[number]) =>
      result.runs.find((run) => run.system === presetSystemName(preset))!;
    expect(row('seed-004-sliding').compactions).toBeGreaterThan(0);
    expect(row('seed-000').compactions).toBe(0);
    expect(formatEvaluationReport(result)).toContain('| preset:pi |');
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
        windows: [3000],
        baselines: [],
        presets: ['seed-004-sliding'],
        drift: false,
        needles: false,
        ...(withPolicy ? { policyFile } : {}),
      });
    const [without, withPolicy] = [await run(false), await run(true)];
    expect(without.runs[0]!.compactions).toBeGreaterThan(0);
    expect(withPolicy.runs[0]!.compactions).toBe(0);
    // The preset's row runs its own policy, not the one given for ours.
    const presetRow = (result: typeof without) =>
      result.runs.find((run) => run.system === presetSystemName('seed-004-sliding'))!;
    expect(presetRow(withPolicy).compactions).toBe(presetRow(without).compactions);
    expect(presetRow(withPolicy).compactions).toBeGreaterThan(0);
  });

  // Spawns the CLI (tsx start-up included): ~5 s on the loaded 2-core machine, so not the 5 s default.
  // Every part of the eval, including the call-by-call cache replay of each budget run (ADR-0140),
  // on a loaded 2-core machine: a generous limit, not a speed check.
  it('`compactor eval --json --out` writes results.json, report.md and the charts', {
    timeout: 90_000,
  }, async () => {
    const file = await writeChatTranscript(12);
    const out = await mkdtemp(join(tmpdir(), 'compactor-eval-out-'));
    const result = await runCli([
      'eval',
      '--corpus',
      dirname(file),
      '--windows',
      '2k',
      '--budget',
      '3k',
      '--json',
      '--out',
      out,
    ]);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { runs: Array<{ system: string; window: number }> };
    // `--budget` is the old name of `--window` (ADR-0082): accepted, with a note saying so.
    expect(printed.runs.filter((run) => run.system === OURS).map((run) => run.window)).toEqual([2000, 3000]);
    expect(result.stderr).toContain('--budget is now --window');
    const saved = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as { runs: unknown[] };
    expect(saved.runs).toHaveLength(printed.runs.length);
    expect(await readFile(join(out, 'report.md'), 'utf8')).toContain('| compactor |');
    expect(await readFile(join(out, 'report.md'), 'utf8')).toContain('## Prompt cache per run');
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
        windows: [8000],
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
