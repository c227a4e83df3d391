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
  return recallBlockParts(hits).join('');
}

const RECALL_BLOCK_HEAD =
  '[Recalled from earlier in this conversation - compacted messages that match the latest message]\n(Ephemeral: shown for this turn only.)\n';

/**
 * The recall block's text in parts whose joins are pre-token boundaries where tokenizers cut
 * (ADR-0460): the marker, each hit's middle (`recallHitParts`), and the short text between two
 * middles (the last word of one hit, its line's newline, the next line's `(turn N)` and first
 * word). Joined, exactly `recallBlockText`; a tokenizer's `countJoined` counts the block from the
 * middles the search counted and encodes only what lies between them.
 */
export function recallBlockParts(hits: readonly { text: string; turn: number | undefined }[]): string[] {
  // The marker is a part of its own: the same text on every block, memoized once.
  const parts: string[] = [RECALL_BLOCK_HEAD];
  let between = '';
  hits.forEach((hit, position) => {
    const [head, middle, tail] = recallHitParts(hit.text);
    between += `(turn ${hit.turn ?? '?'}) ${head}`;
    if (middle !== '') {
      parts.push(between, middle);
      between = '';
    }
    between += position < hits.length - 1 ? `${tail}\n` : tail;
  });
  parts.push(between);
  return parts;
}

/**
 * A recalled text as its first word, its middle and its last word (cut before the first and the last
 * space; empty middle or tail when it has fewer spaces): the middle is the part the recall block
 * shares with the text counted alone, so a tokenizer memoizing parts encodes it once (ADR-0460).
 */
export function recallHitParts(text: string): [head: string, middle: string, tail: string] {
  const first = text.indexOf(' ');
  if (first <= 0) return [text, '', ''];
  const last = text.lastIndexOf(' ');
  if (last === first) return [text.slice(0, first), '', text.slice(first)];
  return [text.slice(0, first), text.slice(first, last), text.slice(last)];
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
