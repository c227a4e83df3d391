import { createHash } from 'node:crypto';

/**
 * The id of the message at `position` of an agent's conversation: its position plus a hash of its
 * canonical content. The same message converted again (the next step resends the whole history)
 * gets the same id, so appending it again is a no-op in the event store.
 */
export function stableMessageId(position: number, canonicalContent: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(canonicalContent)).digest('hex').slice(0, 16);
  return `m${position}-${digest}`;
}
