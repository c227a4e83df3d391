import {
  mergeSummaries,
  type StructuredSummary,
  type SummarizeRequest,
  type SummarizeResult,
  type Summarizer,
  structuredSummarySchema,
  type ToolDurabilityPolicy,
  threadKindOf,
  toolDurabilityPolicySchema,
} from '@compactor/core';
import { clip, textOf } from '../text.js';
import { extractCurrentTask, extractDecisions, extractNextSteps } from './assistant-notes.js';
import { extractDialogueTurns } from './dialogue.js';
import { extractFiles, withoutFileEchoes } from './files.js';
import { extractToolOutcomes } from './tool-outcomes.js';
import { extractUserIntent } from './user-intent.js';

/** Limits of what {@link createExtractiveSummarizer} copies into a summary. */
export interface ExtractiveSummarizerOptions {
  /**
   * User requests up to this long are kept verbatim, longer ones clipped.
   * @defaultValue 600
   */
  verbatimRequestChars?: number;
  /**
   * Longer constraint sentences are clipped.
   * @defaultValue 400
   */
  maxConstraintChars?: number;
  /** @defaultValue 12 */
  maxDecisions?: number;
  /**
   * Failed tool outcomes kept.
   * @defaultValue 8
   */
  maxFailures?: number;
  /**
   * Commands run kept.
   * @defaultValue 10
   */
  maxCommands?: number;
  /**
   * Tool-outcome lines kept after repeated calls on one file or command are grouped (ADR-0160).
   * @defaultValue 40
   */
  maxToolOutcomes?: number;
  /** @defaultValue 8 */
  maxNextSteps?: number;
  /** @defaultValue 600 */
  currentTaskChars?: number;
  /**
   * A dialogue turn's text is clipped to this many characters (ADR-0160).
   * @defaultValue 320
   */
  maxDialogueTurnChars?: number;
  /**
   * Dialogue turns less informative than this are left out as small talk (ADR-0160).
   * @defaultValue 1
   */
  minDialogueTurnScore?: number;
  /**
   * A dialogue's kept turns take at most this share of the span's spoken text (at least 600 characters), the most informative
   * first (ADR-0160), so summarizing a dialogue always compresses it.
   * @defaultValue 0.25
   */
  maxDialogueShare?: number;
  /**
   * Used when a request carries no durability policy of its own.
   * @defaultValue the policy schema's default
   */
  defaultToolDurability?: ToolDurabilityPolicy;
}

/** Search patterns kept from one span, the newest (ADR-0402). */
const MAX_SEARCHES = 12;

/** One fact naming what the span's successful searches looked for (ADR-0402), or none. */
function searchedFor(searches: readonly string[]): { text: string; pinned: boolean }[] {
  const newest = searches.slice(-MAX_SEARCHES).map((pattern) => clip(pattern, 80));
  // As typed (no JSON quoting: a pattern's backslashes would come out doubled), one `; ` between two.
  return newest.length > 0 ? [{ text: `Searched for: ${newest.join('; ')}`, pinned: false }] : [];
}

/** The extractive summarizer's id and prompt version (part of its cache keys). */
export const EXTRACTIVE_SUMMARIZER_VERSION = 'extractive-v4';

function instructionFacts(request: SummarizeRequest): { text: string; pinned: boolean }[] {
  return request.instructions
    ? [{ text: `Compaction instructions: ${request.instructions}`, pinned: false }]
    : [];
}

/**
 * Builds the structured summary from the events themselves: offline, deterministic, free.
 * Nothing is paraphrased: requests and constraints are the user's words, key fields are copied
 * from tool result envelopes, files come from tool call arguments.
 *
 * @param options - Limits on what is copied.
 * @returns A summarizer, plus `extract` to get the summary synchronously.
 */
export function createExtractiveSummarizer(options: ExtractiveSummarizerOptions = {}): Summarizer & {
  extract(request: SummarizeRequest): StructuredSummary;
} {
  const settings = {
    verbatimRequestChars: options.verbatimRequestChars ?? 600,
    maxConstraintChars: options.maxConstraintChars ?? 400,
    maxDecisions: options.maxDecisions ?? 12,
    maxFailures: options.maxFailures ?? 8,
    maxCommands: options.maxCommands ?? 10,
    maxOutcomes: options.maxToolOutcomes ?? 40,
    maxNextSteps: options.maxNextSteps ?? 8,
    currentTaskChars: options.currentTaskChars ?? 600,
    maxTurnChars: options.maxDialogueTurnChars ?? 320,
    minScore: options.minDialogueTurnScore ?? 1,
    maxShare: options.maxDialogueShare ?? 0.25,
  };
  const defaultDurability = options.defaultToolDurability ?? toolDurabilityPolicySchema.parse({});

  function extract(request: SummarizeRequest): StructuredSummary {
    const summary =
      threadKindOf(request.messages) === 'dialogue' ? extractDialogue(request) : extractSession(request);
    return request.previousSummary ? mergeSummaries(request.previousSummary, summary) : summary;
  }

  /** A dialogue (no tools, both sides speak): both speakers' informative turns, dated and scored. */
  function extractDialogue(request: SummarizeRequest): StructuredSummary {
    const messages = request.messages;
    const pinned = messages
      .filter((message) => message.pinned && message.role !== 'tool')
      .map((message) => ({ text: textOf(message.content), pinned: true, sourceMessageId: message.id }))
      .filter((fact) => fact.text.length > 0);
    const dialogue = extractDialogueTurns(messages, settings);
    return structuredSummarySchema.parse({
      facts: [...pinned, ...dialogue.instructions, ...dialogue.turns, ...instructionFacts(request)],
    });
  }

  /** A working session (coding, or one-sided): requests, decisions, files, tool outcomes, the task. */
  function extractSession(request: SummarizeRequest): StructuredSummary {
    const messages = request.messages;
    const intent = extractUserIntent(messages, settings);
    const files = extractFiles(messages);
    const tools = extractToolOutcomes(messages, {
      durability: request.toolDurability ?? defaultDurability,
      maxFailures: settings.maxFailures,
      maxCommands: settings.maxCommands,
      maxOutcomes: settings.maxOutcomes,
    });
    return structuredSummarySchema.parse({
      facts: [
        ...intent.constraints,
        ...intent.requests,
        ...searchedFor(tools.searches),
        ...instructionFacts(request),
      ],
      decisions: extractDecisions(messages, settings.maxDecisions),
      openItems: tools.openItems,
      toolOutcomes: withoutFileEchoes(tools.outcomes, files),
      currentTask: extractCurrentTask(messages, settings.currentTaskChars),
      currentPlan: extractNextSteps(messages, settings.maxNextSteps),
      filesRead: files.filesRead,
      filesModified: files.filesModified,
    });
  }

  return {
    id: EXTRACTIVE_SUMMARIZER_VERSION,
    modelId: 'extractive',
    promptVersion: EXTRACTIVE_SUMMARIZER_VERSION,
    extract,
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      return {
        summary: extract(request),
        summarizerId: EXTRACTIVE_SUMMARIZER_VERSION,
        modelId: 'extractive',
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        via: 'extractive',
      };
    },
  };
}
