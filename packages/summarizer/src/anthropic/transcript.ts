import { stableStringify, type ThreadMessage } from '@compactor/core';
import { headTailTruncate } from '../text.js';

/** How much of each tool call and result a summarization transcript shows. */
export interface TranscriptOptions {
  /** Long tool results keep their head and tail only: the summary needs their gist, not every line. */
  maxResultChars: number;
  /** Tool call arguments are clipped the same way. */
  maxCallInputChars: number;
}

/**
 * One message as transcript text for the summarization prompt (reasoning is left out).
 *
 * @param message - The message to show.
 * @param options - How much of tool calls and results to keep.
 * @returns The message's lines, headed by its turn and speaker.
 */
export function formatMessage(message: ThreadMessage, options: TranscriptOptions): string {
  const lines: string[] = [];
  const speaker = message.role === 'tool' ? 'TOOL' : message.role.toUpperCase();
  const tags = [
    message.synthetic ? 'synthetic' : '',
    message.subagentId ? `subagent ${message.subagentId}` : '',
    message.pinned ? 'pinned' : '',
  ]
    .filter(Boolean)
    .join(', ');
  lines.push(`[turn ${message.turn}] ${speaker}${tags ? ` (${tags})` : ''}:`);
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        lines.push(part.text);
        break;
      case 'reasoning':
        break;
      case 'opaque':
        // A provider's own state, kept verbatim and never summarized (ADR-0250): not shown to the summarizer.
        break;
      case 'tool_call':
        lines.push(
          `→ ${part.name}(${headTailTruncate(stableStringify(part.input) ?? '', options.maxCallInputChars / 2, options.maxCallInputChars / 2)})`,
        );
        break;
      case 'tool_result': {
        const content = typeof part.content === 'string' ? part.content : stableStringify(part.content);
        const keyFields =
          Object.keys(part.keyFields).length > 0 ? ` key fields ${stableStringify(part.keyFields)}` : '';
        lines.push(`← ${part.toolName} (${part.outcome})${keyFields}:`);
        lines.push(headTailTruncate(content, options.maxResultChars / 2, options.maxResultChars / 2));
        break;
      }
      case 'image':
        lines.push(`[image ${part.mediaType}]`);
        break;
      case 'document':
        lines.push(`[document ${part.title ?? part.mediaType}]`);
        break;
    }
  }
  return lines.join('\n');
}

/**
 * Split the span's messages into chunks whose transcripts fit `maxTokensPerChunk`, at message
 * boundaries, so the compaction request itself never overflows the summarizer's window. A single
 * message too big for a chunk keeps its head and tail.
 *
 * @param messages - The span, in order.
 * @param options - How much of tool calls and results to keep.
 * @param countTokens - Counts transcript text.
 * @param maxTokensPerChunk - The most each chunk may hold.
 * @returns The chunks' transcripts, in order (empty for no messages).
 */
export function chunkTranscript(
  messages: readonly ThreadMessage[],
  options: TranscriptOptions,
  countTokens: (text: string) => number,
  maxTokensPerChunk: number,
): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let currentTokens = 0;
  for (const message of messages) {
    let text = formatMessage(message, options);
    let tokens = countTokens(text);
    if (tokens > maxTokensPerChunk) {
      // One message alone is too big even after clipping results: keep its head and tail.
      const keepChars = Math.max(200, Math.floor((text.length * maxTokensPerChunk) / tokens / 2) - 100);
      text = headTailTruncate(text, keepChars, keepChars);
      tokens = countTokens(text);
    }
    if (currentTokens + tokens > maxTokensPerChunk && current.length > 0) {
      chunks.push(current.join('\n\n'));
      current = [];
      currentTokens = 0;
    }
    current.push(text);
    currentTokens += tokens;
  }
  if (current.length > 0) chunks.push(current.join('\n\n'));
  return chunks;
}
