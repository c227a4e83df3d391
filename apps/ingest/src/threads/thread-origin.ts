import { type EventStore, NotFoundError, type StoredEventOf } from '@compactor/core';

export type ThreadCreatedEvent = StoredEventOf<'thread.created'>;
export type ThreadBranchedEvent = StoredEventOf<'thread.branched'>;

export interface ThreadOrigin {
  created: ThreadCreatedEvent;
  branched: ThreadBranchedEvent | undefined;
}

/**
 * A thread's first two events: how it was created and, for a branch, where it came from. They
 * never change (the log is append-only), so they are cached; the cache is keyed by tenant too.
 */
export function createThreadOrigins(events: EventStore, maxEntries = 2_000) {
  const cache = new Map<string, ThreadOrigin>();
  return {
    /** NotFoundError for an unknown thread (or another tenant's). */
    async get(tenantId: string, threadId: string): Promise<ThreadOrigin> {
      const key = `${tenantId}\u0000${threadId}`;
      const hit = cache.get(key);
      if (hit) return hit;
      const page = await events.read(tenantId, threadId, { fromSeq: 1, limit: 2 });
      const [first, second] = page.events;
      if (first?.type !== 'thread.created') throw new NotFoundError('thread', threadId);
      const origin: ThreadOrigin = {
        created: first,
        branched: second?.type === 'thread.branched' ? second : undefined,
      };
      // Cached once the second event exists: until then a branch event could still follow.
      if (second !== undefined) {
        cache.set(key, origin);
        while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      }
      return origin;
    },
  };
}

export type ThreadOrigins = ReturnType<typeof createThreadOrigins>;
