import { describe, expect, it } from 'vitest';
import { formatEvaluationReport } from '../src/eval/format-eval-report.js';
import { needleChart, qaChart } from '../src/eval/retention-chart.js';
import { OURS, runEvaluation } from '../src/eval/run-evaluation.js';
import { writeLocomoFixture } from './support.js';

describe('eval v2 on a hand-made LoCoMo conversation', () => {
  it('asks every question of every system, scores it, plants needles and reports usage', async () => {
    const file = await writeLocomoFixture();
    const transcript = { kind: 'locomo' as const, file, conversation: 0, label: 'fixture' };
    const result = await runEvaluation({
      corpusDir: '/nonexistent',
      transcripts: [transcript],
      windows: [4000],
      baselines: undefined,
      qaRatios: [2],
      needleCeilings: [1500],
      drift: false,
    });
    const qa = (system: string) => result.qaSummary.find((row) => row.system === system)!;
    const systems = result.qaSummary.map((row) => row.system);
    expect(systems).toEqual(
      expect.arrayContaining([
        OURS,
        'sliding-window',
        'sliding-window+recall',
        'user-messages+summary',
        'sliding-window@ours-tokens',
        'sliding-window+recall@ours-tokens',
      ]),
    );
    // One denominator: the five QA items, for every system.
    for (const row of result.qaSummary) expect(row.overall.questions).toBe(5);
    // Scorable: Zanzibar, Biscuit, Harrogate (not "Yes", not the adversarial item without an answer).
    expect(qa(OURS).overall.scorable).toBe(3);
    // The window keeps only the newest half of the text: the two early facts are gone, the late one stays.
    const window = qa('sliding-window');
    expect(window.early.evidence).toBe(0);
    expect(window.late.evidence).toBeGreaterThan(0);
    // Recall brings the early facts back for the questions that ask about them.
    const recall = qa('sliding-window+recall');
    expect(recall.early.evidence).toBeGreaterThan(window.early.evidence);
    expect(recall.usage.meanRecallTokens).toBeGreaterThan(0);
    expect(recall.overall.answer).toBeGreaterThan(window.overall.answer);
    // None of the answers occurs outside its evidence: the chance floor is zero for every system.
    for (const row of result.qaSummary) expect(row.overall.chance).toBe(0);
    // Usage: counted independently, within the ceiling for ours; equal-use runs at our mean tokens.
    expect(qa(OURS).usage.maxTokens).toBeLessThanOrEqual(qa(OURS).usage.ceiling);
    expect(qa('sliding-window@ours-tokens').usage.ceiling).toBe(qa(OURS).usage.meanTokens);
    expect(qa(OURS).byCategory['single-hop']?.questions).toBe(3);
    expect(qa(OURS).byCategory.adversarial?.questions).toBe(1);

    // Needles: 10 rounds per system, instructions checked in the rendered request.
    expect(result.needles.map((run) => run.system)).toEqual([
      OURS,
      'sliding-window',
      'sliding-window+recall',
      'user-messages+summary',
    ]);
    for (const run of result.needles) {
      expect(run.rounds).toHaveLength(10);
      expect(run.needles).toHaveLength(6);
    }
    const windowNeedles = result.needles.find((run) => run.system === 'sliding-window')!;
    // Planted in the first quarter of Alice's turns, they are out of a 1,500-token window by the end.
    expect(windowNeedles.rounds.at(-1)!.instructionsPresent).toBe(0);
    expect(windowNeedles.rounds.at(-1)!.instructions).toBe(3);
    // The Codex rule keeps the user's own words: its instructions survive where the window's do not.
    const userKept = result.needles.find((run) => run.system === 'user-messages+summary')!;
    expect(userKept.rounds.at(-1)!.instructionsPresent).toBeGreaterThan(0);

    // Retention beside the cache (ADR-0365): every budget-run row of the conversation was asked its questions.
    for (const run of result.runs) {
      expect(run.cache).toBeDefined();
      expect(run.questions?.overall.questions).toBe(5);
    }
    const windowRun = result.runs.find((run) => run.system === 'sliding-window')!;
    const oursRun = result.runs.find((run) => run.system === OURS)!;
    expect(oursRun.questions!.overall.evidence).toBeGreaterThanOrEqual(windowRun.questions!.overall.evidence);

    const report = formatEvaluationReport(result);
    expect(report).toContain('Retention beside the cache');
    expect(report).toContain('## LoCoMo, question-conditioned');
    expect(report).toContain('chance floor');
    expect(report).toContain('## Planted needles');
    expect(qaChart(result.qaSummary)).toContain('data-system="sliding-window+recall"');
    expect(needleChart(result.needleSummary)).toContain(`data-system="${OURS}"`);
  });
});
