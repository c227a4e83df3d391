import { readFile, writeFile } from 'node:fs/promises';
import { CompactorError, POLICY_PRESET_NAMES, providerNameSchema, ValidationError } from '@compactor/core';
import { listConversations, transcriptFormats } from '@compactor/importers';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { formatReplayReport } from '../replay/format-report.js';
import { type ReplayResult, replayTranscript } from '../replay/replay-transcript.js';
import { parseChoice, parsePositiveInteger, parseTokenCount } from './option-parsers.js';
import { readPolicyOption } from './policy-option.js';

export interface ReplayCommandOptions {
  format: string;
  conversation?: number;
  model?: string;
  /** The model's context window to replay into (ADR-0082: a window, not a budget). */
  window?: number;
  /** The old name of `window`, still accepted. */
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

let noted = false;

/** `--window`, or its old name `--budget` (with a note: a budget is a request's ceiling, ADR-0082). */
export function windowOf(options: ReplayCommandOptions): number | undefined {
  if (options.window === undefined && options.budget !== undefined && !noted) {
    noted = true;
    process.stderr.write(
      'compactor: --budget is now --window (the context window); it means the same here\n',
    );
  }
  return options.window ?? options.budget;
}

/**
 * The importers count conversations from 0, as a library should; the flag counts from 1. Say which
 * conversations exist in the flag's terms.
 */
async function oneBasedConversationError(error: unknown, file: string, options: ReplayCommandOptions) {
  const aboutConversation =
    CompactorError.hasCode(error, 'validation') &&
    ((error.details.issues as Array<{ path: string }> | undefined) ?? []).some(
      (issue) => issue.path === 'conversation',
    );
  if (!aboutConversation || options.conversation === undefined) return error;
  const text = await readFile(file, 'utf8');
  const count = listConversations(text, options.format as 'auto', file).length;
  return new ValidationError(`--conversation ${options.conversation} does not exist in ${file}`, [
    { path: '--conversation', message: `expected 1 to ${count} (1 = the first conversation)` },
  ]);
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
      '--window <tokens>',
      'context window the conversation must fit, e.g. 16000 or 16k (default: the model’s)',
      parseTokenCount,
    )
    .option('--budget <tokens>', 'old name of --window', parseTokenCount)
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
              ...(windowOf(options) ? { window: windowOf(options) } : {}),
              ...(options.provider ? { provider: options.provider as never } : {}),
              ...(options.dataDir ? { dataDir: options.dataDir } : {}),
              ...(options.policy ? { policy: await readPolicyOption(options.policy) } : {}),
              onProgress,
            });
      } catch (error) {
        throw await oneBasedConversationError(error, file, options);
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
