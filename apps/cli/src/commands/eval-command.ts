import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ValidationError } from '@compactor/core';
import { corpusDirectory } from '@compactor/render/bench';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { formatEvaluationReport } from '../eval/format-eval-report.js';
import { retentionChart } from '../eval/retention-chart.js';
import { runEvaluation } from '../eval/run-evaluation.js';

interface EvalCommandOptions {
  corpus?: string;
  budgets?: number[];
  policy?: string;
  json?: boolean;
  out: string;
  quick?: boolean;
}

/** `8k,16000,32K` → [8000, 16000, 32000]. */
export function parseBudgetList(value: string): number[] {
  const budgets = value.split(',').map((item) => {
    const match = /^\s*(\d+)\s*(k?)\s*$/i.exec(item);
    const budget = match ? Number(match[1]) * (match[2] ? 1000 : 1) : Number.NaN;
    if (!Number.isInteger(budget) || budget < 1)
      throw new ValidationError(`invalid budget ${JSON.stringify(item)}`, [
        { path: 'budgets', message: 'expected whole numbers like 8000 or 8k, comma-separated' },
      ]);
    return budget;
  });
  return [...new Set(budgets)].sort((left, right) => left - right);
}

export function registerEvalCommand(program: Command): void {
  program
    .command('eval')
    .description('run transcripts through compaction and the baselines at several budgets, and compare')
    .option('--corpus <dir>', 'transcript folder (default: ../shared/corpus or COMPACTOR_CORPUS_DIR)')
    .option(
      '--budgets <list>',
      'budgets for every transcript, e.g. 8k,16k,32k (default: per kind)',
      parseBudgetList,
    )
    .option('--policy <name|file>', 'policy preset name or JSON thread policy applied to our system')
    .option('--json', 'print the full result as JSON')
    .option('--out <dir>', 'write results.json, report.md and retention.svg here', './eval-results')
    .option('--quick', 'the first 2 LoCoMo conversations instead of all 10')
    .action(async (options: EvalCommandOptions) => {
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
          ...(options.budgets ? { budgets: options.budgets } : {}),
          ...(options.policy ? { policyFile: options.policy } : {}),
          ...(options.quick ? { quick: true } : {}),
          onProgress: ({ done, total, step }) => {
            if (!progress) return;
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
      // One chart per transcript kind too: pooled, the chats' and the coding sessions' budgets mix.
      for (const kind of new Set(result.runs.map((run) => run.kind))) {
        await writeFile(
          join(outDir, `retention-${kind}.svg`),
          retentionChart(
            result.runs.filter((run) => run.kind === kind),
            systems,
            `Probe retention by budget: ${kind}`,
          ),
        );
      }
      process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : report);
    });
}
