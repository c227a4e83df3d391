import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { POLICY_PRESET_NAMES, type PolicyPresetName, ValidationError } from '@compactor/core';
import { corpusDirectory } from '@compactor/render/bench';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { EVAL_PARTS, type EvalPart } from '../eval/eval-scope.js';
import { formatEvaluationReport } from '../eval/format-eval-report.js';
import { needleChart, qaChart, retentionChart } from '../eval/retention-chart.js';
import { runEvaluation } from '../eval/run-evaluation.js';
import { parseTokenCount } from './option-parsers.js';

export interface EvalCommandOptions {
  corpus?: string;
  /** Context windows of the budget runs (ADR-0082: windows, not budgets). */
  windows?: number[];
  /** One context window. */
  window?: number;
  /** Old names of `windows` and `window`, still accepted with a note. */
  budgets?: number[];
  budget?: number;
  policy?: string;
  json?: boolean;
  out: string;
  quick?: boolean;
  images?: boolean;
  ratios?: number[];
  seed?: number;
  parts?: EvalPart[];
  presets?: PolicyPresetName[];
  /** `--no-cache-replay` sets it false. */
  cacheReplay?: boolean;
}

/** `qa,needles` → ['qa', 'needles']. */
export function parsePartList(value: string): EvalPart[] {
  const parts = value.split(',').map((item) => item.trim());
  for (const part of parts)
    if (!(EVAL_PARTS as readonly string[]).includes(part))
      throw new ValidationError(`invalid part ${JSON.stringify(part)}`, [
        { path: 'parts', message: `expected some of ${EVAL_PARTS.join(', ')}` },
      ]);
  return [...new Set(parts)] as EvalPart[];
}

/** `pi,seed-003` → ['pi', 'seed-003']; `none` → [] (no preset rows). */
export function parsePresetList(value: string): PolicyPresetName[] {
  if (value.trim() === 'none') return [];
  const names = value.split(',').map((item) => item.trim());
  for (const name of names)
    if (!(POLICY_PRESET_NAMES as readonly string[]).includes(name))
      throw new ValidationError(`invalid preset ${JSON.stringify(name)}`, [
        { path: 'presets', message: `expected some of ${POLICY_PRESET_NAMES.join(', ')}, or none` },
      ]);
  return [...new Set(names)] as PolicyPresetName[];
}

/** `2,4,8` → [2, 4, 8]. */
export function parseRatioList(value: string): number[] {
  const ratios = value.split(',').map((item) => {
    const ratio = Number(item.trim().replace(/x$/i, ''));
    if (!Number.isFinite(ratio) || ratio < 1)
      throw new ValidationError(`invalid ratio ${JSON.stringify(item)}`, [
        { path: 'ratios', message: 'expected numbers of at least 1 like 2,4,8' },
      ]);
    return ratio;
  });
  return [...new Set(ratios)].sort((left, right) => left - right);
}

/** `8k,16000,32K` → [8000, 16000, 32000]: token counts, de-duplicated, ascending. */
export function parseWindowList(value: string): number[] {
  const windows = value.split(',').map((item) => {
    const match = /^\s*(\d+)\s*(k?)\s*$/i.exec(item);
    const window = match ? Number(match[1]) * (match[2] ? 1000 : 1) : Number.NaN;
    if (!Number.isSafeInteger(window) || window < 1)
      throw new ValidationError(`invalid context window ${JSON.stringify(item)}`, [
        { path: 'windows', message: 'expected whole numbers like 8000 or 8k, comma-separated' },
      ]);
    return window;
  });
  return [...new Set(windows)].sort((left, right) => left - right);
}

/**
 * The context windows asked for: `--windows` and `--window` together, or their old names
 * `--budgets`/`--budget` (which set windows here too; a note on stderr says so, ADR-0082).
 */
export function windowsOf(options: EvalCommandOptions, note: (text: string) => void): number[] | undefined {
  const current = [...(options.windows ?? []), ...(options.window === undefined ? [] : [options.window])];
  const old = [...(options.budgets ?? []), ...(options.budget === undefined ? [] : [options.budget])];
  if (old.length > 0)
    note(
      `compactor: ${options.budgets ? '--budgets' : '--budget'} is now ${options.budgets ? '--windows' : '--window'} (context windows; a budget caps one request, ADR-0082); it means the same here\n`,
    );
  const all = [...current, ...old];
  return all.length === 0 ? undefined : [...new Set(all)].sort((left, right) => left - right);
}

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description(
      'run transcripts through compaction and the baselines at several context windows, and compare',
    )
    .option('--corpus <dir>', 'transcript folder (default: ../shared/corpus or COMPACTOR_CORPUS_DIR)')
    .option(
      '--windows <list>',
      'context windows for every transcript, e.g. 8k,16k,32k (default: per kind)',
      parseWindowList,
    )
    .option(
      '--window <tokens>',
      'one context window, e.g. 16k (with --windows: added to the list)',
      parseTokenCount,
    )
    .option('--budgets <list>', 'old name of --windows', parseWindowList)
    .option('--budget <tokens>', 'old name of --window', parseTokenCount)
    .option('--policy <name|file>', 'policy preset name or JSON thread policy applied to our system')
    .option(
      '--presets <list>',
      `policy presets run as rows of their own in the budget runs: ${POLICY_PRESET_NAMES.join(', ')} or none (default all)`,
      parsePresetList,
    )
    .option('--json', 'print the full result as JSON')
    .option('--out <dir>', 'write results.json, report.md and retention.svg here', './eval-results')
    .option('--quick', 'a small sample of every part (under two minutes)')
    .option('--images', 'keep LoCoMo images as URL images (default: their captions)')
    .option(
      '--ratios <list>',
      'text-compression ratios of the question-conditioned LoCoMo runs, e.g. 2,4,8',
      parseRatioList,
    )
    .option('--parts <list>', `run only these parts: ${EVAL_PARTS.join(', ')} (default all)`, parsePartList)
    .option('--seed <n>', 'seed of the planted needles', (value) => Number.parseInt(value, 10))
    .option(
      '--no-cache-replay',
      'skip the prompt-cache replay of the budget runs (a request before every assistant message)',
    )
    .action(async (options: EvalCommandOptions) => {
      const windows = windowsOf(options, (text) => process.stderr.write(text));
      const progress = process.stderr.isTTY
        ? new SingleBar({
            format: 'eval [{bar}] {value}/{total} {step}',
            stream: process.stderr,
            hideCursor: true,
          })
        : undefined;
      let started = false;
      let result: Awaited<ReturnType<typeof runEvaluation>>;
      try {
        result = await runEvaluation({
          corpusDir: resolve(options.corpus ?? corpusDirectory),
          ...(windows ? { windows } : {}),
          ...(options.policy ? { policyFile: options.policy } : {}),
          ...(options.quick ? { quick: true } : {}),
          ...(options.images ? { images: true } : {}),
          ...(options.ratios ? { qaRatios: options.ratios } : {}),
          ...(options.parts ? { parts: options.parts } : {}),
          ...(options.presets ? { presets: options.presets } : {}),
          ...(options.cacheReplay === false ? { cache: false } : {}),
          ...(options.seed !== undefined && Number.isInteger(options.seed)
            ? { needleSeed: options.seed }
            : {}),
          onProgress: ({ done, total, step }) => {
            // Without a terminal (a background run writing to a file), one line per step.
            if (!progress) {
              process.stderr.write(`eval ${done}/${total} ${step}\n`);
              return;
            }
            if (!started) {
              progress.start(total, 0, { step });
              started = true;
            }
            progress.update(done, { step });
          },
        });
      } finally {
        progress?.stop();
      }
      const report = formatEvaluationReport(result);
      const outDir = resolve(options.out);
      await mkdir(outDir, { recursive: true });
      await writeFile(join(outDir, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);
      await writeFile(join(outDir, 'report.md'), report);
      const systems = result.systems.map((system) => system.name);
      await writeFile(join(outDir, 'retention.svg'), retentionChart(result.runs, systems));
      if (result.qaSummary.length > 0)
        await writeFile(join(outDir, 'qa-retention.svg'), qaChart(result.qaSummary));
      if (result.needleSummary.length > 0)
        await writeFile(join(outDir, 'needles.svg'), needleChart(result.needleSummary));
      // One chart per transcript kind too: pooled, the chats' and the coding sessions' budgets mix.
      for (const kind of new Set(result.runs.map((run) => run.kind))) {
        await writeFile(
          join(outDir, `retention-${kind}.svg`),
          retentionChart(
            result.runs.filter((run) => run.kind === kind),
            systems,
            `Coding-probe retention by context window: ${kind}`,
          ),
        );
      }
      process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : report);
    });
}
