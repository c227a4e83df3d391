import { z } from 'zod';
import { type LifecycleEventName, lifecycleEventNameSchema } from '../schemas/events.js';

/** What `append` accepts; adapters reject anything else with a ValidationError. */
export const lifecycleEventSchema = z.object({
  tenantId: z.string().min(1),
  threadId: z.string().min(1),
  name: lifecycleEventNameSchema,
  at: z.string().min(1),
  tokensBefore: z.number().int().min(0).optional(),
  tokensAfter: z.number().int().min(0).optional(),
  budgetLimit: z.number().int().min(0).optional(),
  strategy: z.string().optional(),
  spanMessageIds: z.array(z.string()).optional(),
  tokensFreed: z.number().int().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

/** What compaction did to a thread, as one event (ADR-0015). */
export interface LifecycleEvent {
  tenantId: string;
  threadId: string;
  name: LifecycleEventName;
  at: string;
  tokensBefore?: number;
  tokensAfter?: number;
  budgetLimit?: number;
  strategy?: string;
  spanMessageIds?: string[];
  tokensFreed?: number;
  details?: Record<string, unknown>;
}

/**
 * What compaction did to each thread, for operators. Tenant-scoped. `list` returns the thread's
 * events in append order; with `limit`, the most recent `limit` of them (still in append order).
 * An unknown thread has no events.
 */
export interface LifecycleEventLog {
  /**
   * Record one event.
   *
   * @param event - The event.
   * @throws ValidationError when it fails `lifecycleEventSchema`.
   */
  append(event: LifecycleEvent): Promise<void>;
  /**
   * A thread's events, in append order.
   *
   * @param tenantId - The owning tenant.
   * @param threadId - The thread.
   * @param options - `limit`: only the most recent this many.
   * @returns The events (none for an unknown thread).
   */
  list(tenantId: string, threadId: string, options?: { limit?: number }): Promise<LifecycleEvent[]>;
  /**
   * Optional live notification (ADR-0091): `listener` is called once for each event appended to
   * this tenant's thread after `subscribe` returned, in append order, possibly from another process
   * (a database adapter may use LISTEN/NOTIFY). It is a wake-up, not the record: readers that need
   * every event re-read `list` on each call, so a lost or late notice costs latency, not events.
   * A listener that throws never fails the append. Returns the function that unsubscribes.
   * A subscription that starts asynchronously (a LISTEN on its own connection) may miss notices
   * until it is active; readers also re-read the log now and then, so that costs latency only.
   * Adapters without it are polled by their readers.
   */
  subscribe?(tenantId: string, threadId: string, listener: LifecycleListener): () => void;
}

/** Told of a lifecycle event appended to a subscribed thread. */
export type LifecycleListener = (event: LifecycleEvent) => void;
