import { writeFile } from 'node:fs/promises';
import { type Command, Option } from 'commander';
import { benchCompactingCheck, formatCompactingCheckReport } from '../bench/compacting-check-benchmark.js';
import { formatBenchReport } from '../bench/format-bench-report.js';
import { type ManyThreadsRequest, manyThreadsInFreshProcess } from '../bench/many-threads-process.js';
import { runBenchmarks } from '../bench/run-benchmarks.js';
import {
  benchManyThreads,
  benchScaling,
  fullScalingSizes,
  quickScalingSizes,
} from '../bench/scaling-benchmark.js';
import { formatScalingReport, scalingChart } from '../bench/scaling-report.js';
import { parsePositiveIntegerList } from './option-parsers.js';

interface BenchOptions {
  json?: boolean;
  quick?: boolean;
  scaling?: boolean;
  chart?: string;
  compacting?: boolean;
  messages?: number[];
  manyThreads?: string;
}

/**
 * `compactor bench`: ingest throughput over HTTP, render and planning latency, tokenizer
 * throughput, each beside its peer, in one run (on ../shared/corpus when present). `--scaling`
 * runs issue #18's curve instead: check and render latency after one append on threads of 1k, 10k
 * and 100k messages, memory per warm thread and RSS after touching 10,000 threads (`--chart` writes
 * the curve as SVG).
 */
export function registerBenchCommand(program: Command): void {
  program
    .command('bench')
    .description('measure ingest, render, planning and tokenizer speed, each against its peer')
    .option('--json', 'print one JSON document instead of tables')
    .option('--quick', 'shrink every workload for a fast smoke run')
    .option('--scaling', 'measure how check and render cost grow with thread length (issue #18)')
    .option('--chart <file>', 'with --scaling: write the curve as an SVG chart to this file')
    .option(
      '--compacting',
      'with --scaling: only the compacting check, planned from the committed plan (issue #18)',
    )
    .option(
      '--messages <sizes>',
      'with --scaling --compacting: comma-separated thread sizes',
      parsePositiveIntegerList,
    )
    // Internal: `--scaling` runs its many-threads phase in a fresh process per heap mode through this.
    .addOption(new Option('--many-threads <request>').hideHelp())
    .action(async (options: BenchOptions) => {
      if (options.manyThreads) {
        const request = JSON.parse(options.manyThreads) as ManyThreadsRequest;
        const result = await benchManyThreads(request.heapCompaction, request.sizes);
        process.stdout.write(JSON.stringify(result));
        return;
      }
      if (options.scaling && options.compacting) {
        process.stderr.write('bench: compacting check…\n');
        const sizes = options.quick ? quickScalingSizes : fullScalingSizes;
        const messages = options.messages ?? sizes.messages;
        const result = await benchCompactingCheck(messages, sizes.runs > 10 ? 11 : sizes.runs);
        process.stdout.write(
          options.json ? `${JSON.stringify(result, null, 2)}\n` : formatCompactingCheckReport(result),
        );
        return;
      }
      if (options.scaling) {
        process.stderr.write('bench: scaling…\n');
        const result = await benchScaling(
          options.quick ? quickScalingSizes : fullScalingSizes,
          manyThreadsInFreshProcess(process.argv[1]!),
        );
        if (options.chart) await writeFile(options.chart, scalingChart(result));
        process.stdout.write(
          options.json ? `${JSON.stringify(result, null, 2)}\n` : formatScalingReport(result),
        );
        return;
      }
      const report = await runBenchmarks({
        quick: options.quick === true,
        // Progress goes to stderr so stdout stays one document.
        onSection: (name) => process.stderr.write(`bench: ${name}…\n`),
      });
      process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatBenchReport(report));
    });
}
