import { createHash } from 'node:crypto';
import { canonicalEventContent, type EventInput, type StoredEvent } from '@compactor/core';

/**
 * One MongoDB document per event: the stored event's own fields at the top level (so the
 * payload is queryable), plus the hash of the client's input used for idempotent retries.
 */
export type EventDocument = StoredEvent & { contentHash: string };

/**
 * Hex SHA-256 of the canonical input without its timestamp: a retry with the same content
 * hashes the same whatever its key order or (later) client timestamp.
 *
 * @param input - The client's event input.
 * @returns The hex digest.
 */
export function eventContentHash(input: EventInput): string {
  return createHash('sha256').update(canonicalEventContent(input)).digest('hex');
}

/**
 * The stored event for an input placed at `seq`; the store sets the timestamp when the client did not.
 *
 * @param input - The client's event input.
 * @param place - Tenant, thread, seq and the store's timestamp.
 * @returns The stored event.
 */
export function storedEventFromInput(
  input: EventInput,
  place: { tenantId: string; threadId: string; seq: number; timestamp: string },
): StoredEvent {
  return { ...input, ...place, timestamp: input.timestamp ?? place.timestamp } as StoredEvent;
}

/**
 * The document stored for an event.
 *
 * @param event - The stored event.
 * @param contentHash - {@link eventContentHash} of its input.
 * @returns The event's fields plus the hash.
 */
export function eventToDocument(event: StoredEvent, contentHash: string): EventDocument {
  return { ...event, contentHash };
}

/**
 * Drops what MongoDB and the store added (`_id`, `contentHash`); the rest is the event as stored.
 *
 * @param document - A document read from the events collection.
 * @returns The stored event.
 */
export function documentToEvent(document: Record<string, unknown>): StoredEvent {
  const { _id, contentHash, ...event } = document;
  return event as unknown as StoredEvent;
}

/** What an event adds to its thread's totals. */
export function eventTotals(event: EventInput): { messageCount: number; messageTokens: number } {
  if (event.type !== 'message.appended') return { messageCount: 0, messageTokens: 0 };
  return { messageCount: 1, messageTokens: event.tokens ?? 0 };
}

/**
 * The message ids in documents read with a `{ 'message.id': 1 }` projection (which keeps nothing
 * else, not even `type`).
 */
export function messageIdsOfDocuments(documents: readonly object[]): Set<string> {
  const ids = new Set<string>();
  for (const document of documents) {
    const id = (document as { message?: { id?: unknown } }).message?.id;
    if (typeof id === 'string') ids.add(id);
  }
  return ids;
}
