import { RENDER_FORMAT_VERSION } from './format-version.js';

/**
 * Every text the renderer writes itself. Each starts with a stable bracketed prefix so models,
 * golden files and cache keys can recognise it. The stand-ins for compacted content (summaries,
 * externalization pointers, cleared placeholders) are core's, shared with the summarize rung.
 */
export { clearedPlaceholderText, externalizationText, summaryText } from '@compactor/core';

/** Answers a tool call whose result never reached the log, so the call is never left orphaned. */
export const MISSING_RESULT_TEXT = `[No Tool Result ${RENDER_FORMAT_VERSION}]\nNo result was recorded for this tool call (it was interrupted or is still pending).`;

/** Opens a conversation that would otherwise start with the assistant, or be empty. */
export const CONTINUATION_TEXT = `[Context Note ${RENDER_FORMAT_VERSION}]\nEarlier messages of this conversation are not shown.`;

/**
 * A system message from the log, where the provider has no system role inside the conversation.
 *
 * @param text - The system message's text.
 * @returns The text under a `[System Message]` line.
 */
export function systemNoteText(text: string): string {
  return `[System Message]\n${text}`;
}

/** A tool result with empty content: providers reject or mishandle empty blocks. */
export const EMPTY_RESULT_TEXT = '(empty result)';

/** An image or document the provider cannot receive inline (held as an artifact, or not a supported type). */
export function mediaReferenceText(kind: 'image' | 'document', mediaType: string, where: string): string {
  return `[${kind === 'image' ? 'Image' : 'Document'}: ${where} (${mediaType})]`;
}

/**
 * Ends a tool result whose images or documents the provider cannot hold in a result (OpenAI): they
 * follow, after the results, in a user message of their own (ADR-0311).
 *
 * @param count - How many media parts follow.
 * @returns The note.
 */
export function resultMediaFollowText(count: number): string {
  return `[${count} image(s) or document(s) returned by this tool follow in the next user message]`;
}

/**
 * Ephemeral rehydrated artifact content, shown for the current turn only.
 *
 * @param artifactId - The artifact shown.
 * @param content - Its content, possibly truncated.
 * @param truncatedAtTokens - The token limit it was cut to, or undefined when whole.
 * @returns The content under a `[Rehydrated Content - artifact:ID]` header and note.
 */
export function rehydrationText(
  artifactId: string,
  content: string,
  truncatedAtTokens: number | undefined,
): string {
  const note =
    truncatedAtTokens === undefined
      ? '(Ephemeral: shown for this turn only.)'
      : `(Ephemeral: shown for this turn only. Truncated to about ${truncatedAtTokens} tokens; call read_artifact("${artifactId}") for the rest.)`;
  return `[Rehydrated Content - artifact:${artifactId}]\n${note}\n${content}`;
}

/**
 * The recall block (ADR-0111): compacted messages matching the newest turn, shown for this turn only.
 * Each hit is labelled with its turn; the marker says what it is so the model does not take it for
 * something just said.
 */
export function recallBlockText(hits: readonly { text: string; turn: number | undefined }[]): string {
  const lines = hits.map((hit) => `(turn ${hit.turn ?? '?'}) ${hit.text}`);
  return `[Recalled from earlier in this conversation - compacted messages that match the latest message]\n(Ephemeral: shown for this turn only.)\n${lines.join('\n')}`;
}

/**
 * A tool result too large for the whole window, cut to its head and tail (the newest exchange
 * is never dropped, so this is the renderer's last resort before refusing to render).
 */
export function truncatedResultText(
  head: string,
  tail: string,
  shownTokens: number,
  totalTokens: number,
): string {
  return [
    `[Truncated Tool Result ${RENDER_FORMAT_VERSION}: about ${shownTokens} of ${totalTokens} tokens shown, the middle left out]`,
    head,
    '[…]',
    tail,
  ].join('\n');
}
