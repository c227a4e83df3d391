import type { Command } from 'commander';
import { formatBenchReport } from '../bench/format-bench-report.js';
import { runBenchmarks } from '../bench/run-benchmarks.js';

interface BenchOptions {
  json?: boolean;
  quick?: boolean;
}

/**
 * `compactor bench`: ingest throughput over HTTP, render and planning latency, tokenizer
 * throughput, each beside its peer, in one run (on ../shared/corpus when present).
 */
export function registerBenchCommand(program: Command): void {
  program
    .command('bench')
    .description('measure ingest, render, planning and tokenizer speed, each against its peer')
    .option('--json', 'print one JSON document instead of tables')
    .option('--quick', 'shrink every workload for a fast smoke run')
    .action(async (options: BenchOptions) => {
      const report = await runBenchmarks({
        quick: options.quick === true,
        // Progress goes to stderr so stdout stays one document.
        onSection: (name) => process.stderr.write(`bench: ${name}…\n`),
      });
      process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatBenchReport(report));
    });
}
