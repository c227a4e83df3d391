import type { ThreadMessage } from '@compactor/core';
import { providerToolCallId } from '../providers/tool-call-ids.js';

/** One tool call occurrence in the log and where its result is. */
export interface ToolExchange {
  /** The call id as logged. */
  callId: string;
  /** Unique per occurrence: a reused call id gets a `__n` suffix, so providers never see duplicates. */
  providerId: string;
  toolName: string;
  callMessageIndex: number;
  resultMessageIndex: number | undefined;
  resultPartIndex: number | undefined;
}

/**
 * Every tool call paired with its result, built once per thread and extended as messages are
 * appended (the log only grows). A result answers the oldest unanswered call with its id, so a
 * model that reuses ids still pairs correctly; a result with no open call is an orphan.
 */
export interface ToolExchangeIndex {
  size: number;
  lastMessageId: string | undefined;
  /** Calls of each assistant message, by message index, in part order. */
  callsByMessage: Map<number, ToolExchange[]>;
  /** For each tool message index, the exchange answered by each part (undefined = orphan). */
  resultsByMessage: Map<number, (ToolExchange | undefined)[]>;
  exchanges: ToolExchange[];
  openByCallId: Map<string, ToolExchange[]>;
  occurrences: Map<string, number>;
  /** Positions of the messages holding a provider's opaque part, in order (ADR-0250). */
  opaqueMessages: number[];
}

export function emptyToolExchangeIndex(): ToolExchangeIndex {
  return {
    size: 0,
    lastMessageId: undefined,
    callsByMessage: new Map(),
    resultsByMessage: new Map(),
    exchanges: [],
    openByCallId: new Map(),
    occurrences: new Map(),
    opaqueMessages: [],
  };
}

/** Reuse `index` when it describes a prefix of `messages`, otherwise start over. */
export function indexToolExchanges(
  messages: readonly ThreadMessage[],
  index: ToolExchangeIndex | undefined,
): ToolExchangeIndex {
  let current = index;
  const reusable =
    current !== undefined &&
    current.size <= messages.length &&
    (current.size === 0 || messages[current.size - 1]?.id === current.lastMessageId);
  if (!reusable || current === undefined) current = emptyToolExchangeIndex();
  for (let position = current.size; position < messages.length; position += 1) {
    addMessage(current, messages[position]!, position);
  }
  current.size = messages.length;
  current.lastMessageId = messages.at(-1)?.id;
  return current;
}

function addMessage(index: ToolExchangeIndex, message: ThreadMessage, position: number): void {
  if (message.role === 'assistant') {
    const calls: ToolExchange[] = [];
    let opaque = false;
    for (const part of message.content) {
      if (part.type === 'opaque') opaque = true;
      if (part.type !== 'tool_call') continue;
      const seen = index.occurrences.get(part.id) ?? 0;
      index.occurrences.set(part.id, seen + 1);
      const exchange: ToolExchange = {
        callId: part.id,
        providerId: providerToolCallId(seen === 0 ? part.id : `${part.id}__${seen + 1}`),
        toolName: part.name,
        callMessageIndex: position,
        resultMessageIndex: undefined,
        resultPartIndex: undefined,
      };
      calls.push(exchange);
      index.exchanges.push(exchange);
      const open = index.openByCallId.get(part.id);
      if (open) open.push(exchange);
      else index.openByCallId.set(part.id, [exchange]);
    }
    if (calls.length > 0) index.callsByMessage.set(position, calls);
    if (opaque) index.opaqueMessages.push(position);
    return;
  }
  if (message.role !== 'tool') return;
  const answered: (ToolExchange | undefined)[] = [];
  message.content.forEach((part, partIndex) => {
    if (part.type !== 'tool_result') {
      answered.push(undefined);
      return;
    }
    const open = index.openByCallId.get(part.toolCallId);
    const exchange = open?.shift();
    if (exchange) {
      exchange.resultMessageIndex = position;
      exchange.resultPartIndex = partIndex;
    }
    answered.push(exchange);
  });
  index.resultsByMessage.set(position, answered);
}
