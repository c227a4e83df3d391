import {
  fieldIssuesFrom,
  type LifecycleEvent,
  type LifecycleEventLog,
  lifecycleEventSchema,
  requireIds,
  ValidationError,
} from '@compactor/core';
import { duplicateKeyInfo } from './duplicate-key-error.js';
import type { MongoCollections } from './mongo-collections.js';
import { mapMongoError } from './mongo-error-mapping.js';

/**
 * Lifecycle events, one document each. A per-thread counter (one `$inc` upsert) numbers them,
 * because ObjectIds from several processes do not sort in append order within a second.
 */
export class MongoLifecycleEventLog implements LifecycleEventLog {
  /** @param collections - The collections from {@link openCollections}. */
  constructor(private readonly collections: MongoCollections) {}

  async append(event: LifecycleEvent): Promise<void> {
    const parsed = lifecycleEventSchema.safeParse(event);
    if (!parsed.success) {
      throw new ValidationError('invalid lifecycle event', fieldIssuesFrom(parsed.error.issues));
    }
    const { tenantId, threadId } = event;
    try {
      const seq = await this.nextSeq(tenantId, threadId);
      await this.collections.lifecycleEvents.insertOne({ ...parsed.data, seq }, { ignoreUndefined: true });
    } catch (error) {
      throw mapMongoError(error, 'lifecycle append');
    }
  }

  private async nextSeq(tenantId: string, threadId: string): Promise<number> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const counter = await this.collections.lifecycleSequences.findOneAndUpdate(
          { tenantId, threadId },
          { $inc: { seq: 1 } },
          { upsert: true, returnDocument: 'after', projection: { _id: 0, seq: 1 } },
        );
        return counter?.seq ?? 1;
      } catch (error) {
        // Two first events of a thread can race to create the counter; the loser's retry increments it.
        if (duplicateKeyInfo(error) === null || attempt >= 3) throw error;
      }
    }
  }

  async list(
    tenantId: string,
    threadId: string,
    options: { limit?: number } = {},
  ): Promise<LifecycleEvent[]> {
    requireIds({ tenantId, threadId });
    try {
      const filter = { tenantId, threadId };
      const projection = { _id: 0, seq: 0 };
      if (options.limit === undefined) {
        return await this.collections.lifecycleEvents.find(filter, { projection }).sort({ seq: 1 }).toArray();
      }
      // The most recent `limit` events, returned in append order.
      const newestFirst = await this.collections.lifecycleEvents
        .find(filter, { projection })
        .sort({ seq: -1 })
        .limit(Math.max(1, options.limit))
        .toArray();
      return newestFirst.reverse();
    } catch (error) {
      throw mapMongoError(error, 'lifecycle list');
    }
  }
}
