import { ValidationError } from '@compactor/core';
import { buildEvents } from './build-events.js';
import { detectSourceFormat } from './detect-format.js';
import { adapters } from './formats/adapters.js';
import type { FormatAdapter } from './formats/format-adapter.js';
import { messageStats } from './message-stats.js';
import { finalizeMessages } from './shared/finalize-messages.js';
import { boundedId, sanitizeId, shortHash } from './shared/ids.js';
import { TranscriptSource } from './shared/transcript-source.js';
import {
  type ConversationSummary,
  type ImportedTranscript,
  type ImportOptions,
  type ImportStats,
  type TranscriptFormat,
  type TranscriptInput,
  transcriptFormats,
} from './types.js';

/** The context window given to an imported thread when the caller names none. */
export const defaultContextWindow = 200_000;

/** A transcript parsed once, from which any of its conversations can be imported. */
export interface OpenedTranscript {
  format: TranscriptFormat;
  conversations: ConversationSummary[];
  /**
   * Import `options.conversation` (default 0). `options.format` is ignored: it was settled on opening.
   *
   * @param options - Which conversation, and the thread's id, tenant, model and window.
   * @returns The conversation as events, with warnings and statistics.
   * @throws ValidationError when the conversation does not exist or `contextWindow` is not a positive integer.
   */
  import(options?: ImportOptions): ImportedTranscript;
}

/**
 * Parse a transcript and settle its format (detected unless `options.format` names one), so
 * that several of its conversations can be imported without parsing it again.
 *
 * @param input - The transcript text, file name and subagent transcripts.
 * @param options - The format, or `auto` (the default) to detect it.
 * @returns The format, the conversations it holds, and `import`.
 * @throws ValidationError when the format is unknown, cannot be detected, or does not match the text.
 */
export function openTranscript(
  input: TranscriptInput,
  options: Pick<ImportOptions, 'format'> = {},
): OpenedTranscript {
  const source = new TranscriptSource(input.text, input.fileName);
  const format = resolveFormat(source, options.format);
  const adapter = adapters[format];
  const mismatch = adapter.mismatch(source);
  if (mismatch !== undefined) {
    throw new ValidationError(`the transcript is not in the ${format} format: ${mismatch}`, [
      { path: 'format', message: mismatch },
    ]);
  }
  const conversations = adapter.listConversations(source);
  return {
    format,
    conversations,
    import: (importOptions = {}) => importConversation(source, input, adapter, conversations, importOptions),
  };
}

/**
 * Import one conversation of a transcript as canonical events: `thread.created`, then one
 * `message.appended` per message. Pure: reads nothing but its input. Same input and options →
 * same events, ids included, so replays are idempotent.
 *
 * @param input - The transcript text, file name and subagent transcripts.
 * @param options - Format, conversation, and the thread's id, tenant, model and window.
 * @returns The conversation as events, with warnings and statistics.
 * @throws ValidationError as {@link openTranscript} and {@link OpenedTranscript.import} do.
 */
export function importTranscript(input: TranscriptInput, options: ImportOptions = {}): ImportedTranscript {
  return openTranscript(input, options).import(options);
}

function importConversation(
  source: TranscriptSource,
  input: TranscriptInput,
  adapter: FormatAdapter,
  conversations: ConversationSummary[],
  options: ImportOptions,
): ImportedTranscript {
  const format = adapter.format;
  const conversationIndex = checkConversation(options.conversation, conversations, format);
  const contextWindow = options.contextWindow ?? defaultContextWindow;
  if (!Number.isInteger(contextWindow) || contextWindow <= 0) {
    throw new ValidationError('contextWindow must be a positive integer', [
      { path: 'contextWindow', message: `got ${contextWindow}` },
    ]);
  }

  const result = adapter.read(source, conversationIndex, input.subagents ?? []);
  if (input.subagents && input.subagents.length > 0 && format !== 'claude-code') {
    result.report.warn(`ignored ${input.subagents.length} subagent transcripts: only claude-code has them`);
  }
  const finalized = finalizeMessages(result.drafts);
  const resolved = result.resolveProbes?.(finalized.messages) ?? {};
  const model = options.model ?? result.model ?? adapter.defaultModel;
  const threadId = options.threadId ?? defaultThreadId(source, format, conversationIndex);
  const events = buildEvents({
    format,
    conversationIndex,
    model,
    contextWindow,
    messages: finalized.messages,
    startedAt: result.startedAt,
    metadata: {
      source: {
        format,
        conversationIndex,
        ...(result.conversationId === undefined ? {} : { conversationId: result.conversationId }),
        ...(input.fileName === undefined ? {} : { fileName: baseName(input.fileName) }),
      },
      ...result.threadMetadata,
    },
  });

  const report = result.report;
  const stats: ImportStats = {
    sourceRecords: report.sourceRecords,
    sourceUserRecords: report.sourceUserRecords,
    sourceToolCalls: report.sourceToolCalls,
    skippedRecords: report.skippedRecords,
    ...messageStats(finalized.messages),
    replayedRecords: report.replayedRecords,
    ...finalized.repairs,
    unparseableLines: report.unparseableLines,
  };
  const imported: ImportedTranscript = {
    format,
    conversationCount: conversations.length,
    conversationIndex,
    conversationId: result.conversationId,
    model,
    contextWindow,
    threadId,
    tenantId: options.tenantId,
    events,
    warnings: [...report.warnings, ...finalized.warnings],
    stats,
  };
  if (resolved.probes) imported.probes = resolved.probes;
  if (resolved.piCompactions) imported.piCompactions = resolved.piCompactions;
  return imported;
}

/**
 * The conversations of a multi-conversation file (one entry for single-conversation formats).
 *
 * @param text - The transcript's contents.
 * @param format - Its format, or `auto` (the default) to detect it.
 * @param fileName - Its file name, a hint for detection.
 * @returns One summary per conversation, in file order.
 * @throws ValidationError when the format is unknown or cannot be detected.
 */
export function listConversations(
  text: string,
  format?: TranscriptFormat | 'auto',
  fileName?: string,
): ConversationSummary[] {
  const source = new TranscriptSource(text, fileName);
  return adapters[resolveFormat(source, format)].listConversations(source);
}

function resolveFormat(
  source: TranscriptSource,
  format: TranscriptFormat | 'auto' | undefined,
): TranscriptFormat {
  if (format === undefined || format === 'auto') return detectSourceFormat(source);
  if (!(transcriptFormats as readonly string[]).includes(format)) {
    throw new ValidationError(`unknown transcript format ${JSON.stringify(format)}`, [
      { path: 'format', message: `expected one of ${transcriptFormats.join(', ')} or auto` },
    ]);
  }
  return format;
}

function checkConversation(
  requested: number | undefined,
  conversations: ConversationSummary[],
  format: TranscriptFormat,
): number {
  const index = requested ?? 0;
  if (conversations.length === 0) {
    throw new ValidationError(`the ${format} transcript holds no conversation`);
  }
  if (!Number.isInteger(index) || index < 0 || index >= conversations.length) {
    throw new ValidationError(
      `conversation ${index} does not exist: the ${format} transcript holds ${conversations.length} (0-based)`,
      [{ path: 'conversation', message: `expected an integer from 0 to ${conversations.length - 1}` }],
    );
  }
  return index;
}

/** `<format>-<file name>-<content hash>-<conversation>`: the same file always gets the same id. */
function defaultThreadId(
  source: TranscriptSource,
  format: TranscriptFormat,
  conversationIndex: number,
): string {
  const hash = source.memo('content-hash', () => shortHash(source.text, 10));
  const name =
    source.fileName === undefined ? '' : `${sanitizeId(baseName(source.fileName).replace(/\.[^.]+$/, ''))}-`;
  return boundedId(`${format}-${name}${hash}-${conversationIndex}`.toLowerCase(), 120);
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
