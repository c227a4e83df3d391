import {
  type LifecycleEvent,
  type LifecycleEventLog,
  lifecycleEventSchema,
  ValidationError,
} from '@compactor/core';
import { requirePositive } from './memory-event-store.js';

/** Lifecycle events in memory, per tenant and thread, in the order they were appended. */
export class MemoryLifecycleLog implements LifecycleEventLog {
  private readonly logs = new Map<string, LifecycleEvent[]>();

  async append(event: LifecycleEvent): Promise<void> {
    const result = lifecycleEventSchema.safeParse(event);
    if (!result.success) {
      throw new ValidationError(
        'invalid lifecycle event',
        result.error.issues.map((issue) => ({
          path: issue.path.map(String).join('.'),
          message: issue.message,
        })),
      );
    }
    const key = `${result.data.tenantId}\u0000${result.data.threadId}`;
    const log = this.logs.get(key) ?? [];
    log.push(structuredClone(result.data as LifecycleEvent));
    this.logs.set(key, log);
  }

  async list(
    tenantId: string,
    threadId: string,
    options: { limit?: number } = {},
  ): Promise<LifecycleEvent[]> {
    requirePositive(options.limit, 'limit');
    const log = this.logs.get(`${tenantId}\u0000${threadId}`) ?? [];
    return structuredClone(options.limit === undefined ? log : log.slice(-options.limit));
  }
}
