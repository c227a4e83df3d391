import { writeFile } from 'node:fs/promises';
import { POLICY_PRESET_NAMES, providerNameSchema } from '@compactor/core';
import { transcriptFormats } from '@compactor/importers';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { formatReplayReport } from '../replay/format-report.js';
import { type ReplayResult, replayTranscript } from '../replay/replay-transcript.js';
import { parseChoice, parsePositiveInteger } from './option-parsers.js';
import { readPolicyOption } from './policy-option.js';

export interface ReplayCommandOptions {
  format: string;
  conversation?: number;
  model?: string;
  budget?: number;
  provider?: string;
  out?: string;
  json?: boolean;
  dataDir?: string;
  server?: string;
  apiKey?: string;
  /** A policy preset's name or a JSON policy file, applied over the transcript's policy. */
  policy?: string;
}

export function registerReplayCommand(
  program: Command,
  runRemote: (file: string, options: ReplayCommandOptions) => Promise<ReplayResult>,
): void {
  program
    .command('replay')
    .description(
      'import a transcript, replay it event by event with compaction running as the workers would, and report',
    )
    .argument('<file>', 'transcript file (format auto-detected)')
    .option(
      '--format <format>',
      `auto or one of: ${transcriptFormats.join(', ')}`,
      parseChoice(['auto', ...transcriptFormats]),
      'auto',
    )
    .option(
      '--conversation <n>',
      'which conversation of a multi-conversation file, 1 = the first',
      parsePositiveInteger,
    )
    .option('--model <name>', 'model to replay for (default: what the transcript says)')
    .option(
      '--budget <tokens>',
      'context window the conversation must fit (default: the model’s)',
      parsePositiveInteger,
    )
    .option(
      '--provider <provider>',
      `request format: ${providerNameSchema.options.join(', ')}`,
      parseChoice(providerNameSchema.options),
    )
    .option(
      '--policy <name|file>',
      `compaction policy: a preset (${POLICY_PRESET_NAMES.join(', ')}) or a JSON policy file`,
    )
    .option('--out <file>', 'write the final rendered request here (JSON)')
    .option('--json', 'print the report as JSON')
    .option('--data-dir <dir>', 'keep the embedded store here (default: a temporary directory)')
    .option('--server <url>', 'replay through a running ingest API instead of a local store')
    .option('--api-key <key>', 'API key for --server')
    .action(async (file: string, options: ReplayCommandOptions) => {
      const progress =
        !options.json && process.stderr.isTTY
          ? new SingleBar({
              format: 'replay [{bar}] {value}/{total} events',
              stream: process.stderr,
              hideCursor: true,
            })
          : undefined;
      let started = false;
      const onProgress = (done: number, total: number) => {
        if (!progress) return;
        if (!started) {
          progress.start(total, 0);
          started = true;
        }
        progress.update(done);
      };
      let result: ReplayResult;
      try {
        result = options.server
          ? await runRemote(file, options)
          : await replayTranscript({
              file,
              ...(options.format !== 'auto' ? { format: options.format as never } : {}),
              ...(options.conversation !== undefined ? { conversation: options.conversation - 1 } : {}),
              ...(options.model ? { model: options.model } : {}),
              ...(options.budget ? { budget: options.budget } : {}),
              ...(options.provider ? { provider: options.provider as never } : {}),
              ...(options.dataDir ? { dataDir: options.dataDir } : {}),
              ...(options.policy ? { policy: await readPolicyOption(options.policy) } : {}),
              onProgress,
            });
      } finally {
        progress?.stop();
      }
      if (options.out) await writeFile(options.out, `${JSON.stringify(result.request, null, 2)}\n`);
      process.stdout.write(
        options.json
          ? `${JSON.stringify(result.report, null, 2)}\n`
          : formatReplayReport(result.report, options.out),
      );
    });
}
