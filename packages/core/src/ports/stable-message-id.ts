import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { EventInput } from '../schemas/events.js';
import type { Message } from '../schemas/message.js';

/**
 * The id of the message at `position` of an agent's conversation: its position plus a hash of its
 * role and content (`m<position>-<16 hex digits of SHA-256>`). The same message converted again (an
 * agent resends its whole history on every call) gets the same id, so appending it again is a
 * no-op in the event store; an edited message gets a new one (ADR-0084). Every framework adapter
 * derives its ids with this one function.
 *
 * @param position - The message's index among the converted messages.
 * @param message - Its role and canonical content.
 * @returns The message id.
 */
export function stableMessageId(position: number, message: Pick<Message, 'role' | 'content'>): string {
  const canonical = JSON.stringify({ role: message.role, content: message.content });
  return `m${position}-${bytesToHex(sha256(utf8ToBytes(canonical))).slice(0, 16)}`;
}

/**
 * Messages → the events that append them, each event id the message id: appending a history
 * again is a no-op (ADR-0084).
 *
 * @param messages - Converted messages (ids from `stableMessageId`).
 * @returns One `message.appended` event per message.
 */
export function messagesToEvents(messages: readonly Message[]): EventInput[] {
  return messages.map((message) => ({ eventId: message.id, type: 'message.appended', message }));
}
