import { z } from 'zod';
import { ValidationError } from '../errors.js';
import type { ThreadMessage } from '../thread/thread.js';

/**
 * A contiguous span of messages by explicit id (ADR-0003): resolvable without the thread,
 * unambiguous when messages are appended later.
 */
export const spanReferenceSchema = z.object({
  messageIds: z.array(z.string().min(1)).min(1),
  firstTurn: z.number().int().min(0),
  lastTurn: z.number().int().min(0),
});
/** A span's message ids and its first and last turn. */
export type SpanReference = z.infer<typeof spanReferenceSchema>;

/**
 * Build a span over messages given in thread order.
 *
 * @param messages - The span's messages.
 * @returns The span.
 * @throws ValidationError when `messages` is empty.
 */
export function spanOf(messages: readonly Pick<ThreadMessage, 'id' | 'turn'>[]): SpanReference {
  const first = messages[0];
  const last = messages.at(-1);
  if (!first || !last) throw new ValidationError('a span needs at least one message');
  return { messageIds: messages.map((message) => message.id), firstTurn: first.turn, lastTurn: last.turn };
}
