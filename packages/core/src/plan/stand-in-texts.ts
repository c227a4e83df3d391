import { collectKeyFields, resolveToolDurability, type ToolDurabilityPolicy } from '../durability/policy.js';
import type { ToolResultEnvelope } from '../schemas/content.js';
import { stableStringify } from '../stable-json.js';
import { renderSummary } from '../summary/render.js';
import type { ClearRecord, ExternalizationRecord, SummarizationRecord } from './records.js';

/**
 * The texts that stand in for compacted content, written once for the renderer (what the model
 * sees) and the summarize rung (what the summarizer is shown of earlier compactions), so both see
 * the same bytes (ADR-0072). Each starts with a stable bracketed prefix that models, golden files
 * and cache keys recognise; the summary body carries its own `[Summary v1]`.
 */

/** Bump when a stand-in text changes; the renderer's format version follows it. */
export const STAND_IN_TEXT_VERSION = 'v1';

/**
 * `[Context Summary - Turns a-b]` then the deterministic summary rendering.
 *
 * @param record - The summarization record.
 * @returns The text standing in for its span.
 */
export function summaryText(record: Pick<SummarizationRecord, 'span' | 'summary'>): string {
  return `${summaryHeader(record.span)}${renderSummary(record.summary)}`;
}

/**
 * The line that heads a summary block in the prompt, newline included: part of what the block costs
 * (ADR-0260), so a budget for the block's text counts it.
 *
 * @param span - The block's span (its turns).
 * @returns `[Context Summary - Turns a-b]` and a newline.
 */
export function summaryHeader(span: Pick<SummarizationRecord['span'], 'firstTurn' | 'lastTurn'>): string {
  return `[Context Summary - Turns ${span.firstTurn}-${span.lastTurn}]\n`;
}

/**
 * The externalization pointer, plus the record's hint of when to read it back.
 *
 * @param record - The externalization record.
 * @returns The text standing in for its span.
 */
export function externalizationText(record: ExternalizationRecord): string {
  const hint = record.rehydrateHint.trim();
  return [
    `[Externalized Content - artifact:${record.artifactId}]`,
    `Summary: ${renderSummary(record.summary)}`,
    ...(hint ? [`When to read it: ${hint}`] : []),
    `To retrieve full content, call: read_artifact("${record.artifactId}")`,
  ].join('\n');
}

/**
 * A cleared tool result's placeholder: tool name, outcome and key fields survive.
 *
 * @param toolName - The result's tool.
 * @param outcome - How the call ended.
 * @param keyFields - Fields to keep (a `Key data:` line when there are any).
 * @returns The placeholder text.
 */
export function clearedPlaceholderText(
  toolName: string,
  outcome: string,
  keyFields: Record<string, unknown>,
): string {
  const lines = [`[Cleared Tool Result ${STAND_IN_TEXT_VERSION}]`, `[${toolName}: ${outcome}]`];
  if (Object.keys(keyFields).length > 0) lines.push(`Key data: ${stableStringify(keyFields)}`);
  return lines.join('\n');
}

/** What a cleared result's placeholder shows. */
export interface ClearedFields {
  toolName: string;
  outcome: string;
  keyFields: Record<string, unknown>;
}

/**
 * A placeholder's fields from the result's own envelope: its key fields plus those the policy names.
 *
 * @param envelope - The tool result.
 * @param policy - The thread's durability policy.
 * @returns The fields.
 */
export function envelopeClearedFields(
  envelope: ToolResultEnvelope,
  policy: ToolDurabilityPolicy,
): ClearedFields {
  return {
    toolName: envelope.toolName,
    outcome: envelope.outcome,
    keyFields: collectKeyFields(envelope, resolveToolDurability(envelope, policy).mustPreserveFields),
  };
}

/**
 * What a cleared result's placeholder keeps: the clear record's entry for that result when it has
 * one, else the envelope's own fields (an emergency clear, or a record without the entry).
 *
 * @param record - The clear record covering the result.
 * @param messageId - The result's message.
 * @param envelope - The tool result.
 * @param policy - The thread's durability policy.
 * @returns The fields.
 */
export function clearedFieldsFor(
  record: ClearRecord,
  messageId: string,
  envelope: ToolResultEnvelope,
  policy: ToolDurabilityPolicy,
): ClearedFields {
  const entry = record.preserved.find(
    (candidate) => candidate.messageId === messageId && candidate.toolCallId === envelope.toolCallId,
  );
  return entry ?? envelopeClearedFields(envelope, policy);
}

/** What a replaced image or document is known by (ADR-0265). */
export interface MediaStandInFields {
  kind: 'image' | 'document';
  mediaType: string;
  /** Caption or alt text from the source (e.g. LoCoMo's BLIP caption), when there is one. */
  caption?: string | undefined;
  /** A document's title or a URL's file name. */
  name?: string | undefined;
  /** Where the original is: its URL, `artifact:ID`, or a note for inline data kept in the log. */
  reference: string;
  /** The artifact id read_artifact takes to show the original again (ADR-0310), when it was stored. */
  readBack?: string | undefined;
}

/**
 * An old image or document replaced by what is known of it (ADR-0265): caption or alt text, name,
 * and where the original is, under a stable `[Image replaced]` / `[Document replaced]` prefix.
 *
 * @param fields - The media's caption, name, type and reference.
 * @returns The stand-in text.
 */
export function mediaStandInText(fields: MediaStandInFields): string {
  const label = fields.kind === 'image' ? 'Image' : 'Document';
  const lines = [`[${label} replaced ${STAND_IN_TEXT_VERSION}: ${fields.mediaType}]`];
  if (fields.caption) lines.push(`Caption: ${fields.caption}`);
  if (fields.name) lines.push(`Name: ${fields.name}`);
  lines.push(`Source: ${fields.reference}`);
  // The id once (a 64-hex id is dozens of tokens): the Source line names it.
  if (fields.readBack) lines.push('To see it again, call read_artifact with that id.');
  return lines.join('\n');
}

/**
 * What each media stand-in in a text says of its medium (the reader of {@link mediaStandInText}):
 * per stand-in, its `Source:` reference and its caption and name joined (empty when it has none).
 *
 * @param text - An abridged part's text (one stand-in, or a result's text with several after it).
 * @returns Each stand-in's reference and description, in order.
 */
export function mediaStandInDescriptions(text: string): { reference: string; described: string }[] {
  const found: { reference: string; described: string }[] = [];
  let described: string[] = [];
  let inStandIn = false;
  for (const line of text.split('\n')) {
    if (/^\[(?:Image|Document) replaced /.test(line)) {
      inStandIn = true;
      described = [];
    } else if (inStandIn && (line.startsWith('Caption: ') || line.startsWith('Name: '))) {
      described.push(line.slice(line.indexOf(' ') + 1));
    } else if (inStandIn && line.startsWith('Source: ')) {
      found.push({ reference: line.slice('Source: '.length), described: described.join(' ') });
      inStandIn = false;
    }
  }
  return found;
}

/**
 * A user message's text with its pasted blocks clipped in place (ADR-0266), and where the full text
 * is: an artifact read_artifact returns, or the conversation log.
 *
 * @param clipped - The text with prose verbatim and each paste cut to head and tail.
 * @param artifactId - The artifact holding the whole text, when it was stored.
 * @returns The stand-in text.
 */
export function clippedPasteText(clipped: string, artifactId: string | undefined): string {
  const where = artifactId
    ? `call read_artifact("${artifactId}") for the full message`
    : 'the full message is in the conversation log';
  return `${clipped}\n[Pasted material clipped ${STAND_IN_TEXT_VERSION}: ${where}]`;
}
