import {
  type LifecycleEvent,
  type LifecycleEventLog,
  type LifecycleListener,
  type Logger,
  lifecycleEventSchema,
} from '@compactor/core';
import type { StoreLocks } from '../concurrency/store-locks.js';
import { OpenLogs } from '../memory/open-logs.js';
import type { ResidentCacheStats } from '../memory/resident-cache.js';
import type { DataLayout } from '../paths/data-layout.js';
import { createStoreContext } from '../store-context.js';
import { type EmbeddedStoreOptions, storeClosedError } from '../store-options.js';
import { parseOrThrow, requirePositiveInteger } from '../validation.js';
import { ListenersByThread } from './listeners-by-thread.js';

/**
 * Lifecycle events in a local directory: one append-only record log per thread, fsynced per event.
 * Shared mode: appends take the thread's cross-process lock; lists read up to the file's last
 * whole batch.
 */
export class EmbeddedLifecycleEventLog implements LifecycleEventLog {
  private readonly layout: DataLayout;
  private readonly locks: StoreLocks;
  private readonly shared: boolean;
  private readonly logger: Logger;
  private readonly logs: OpenLogs;
  private readonly listeners = new ListenersByThread();
  private closed = false;

  /**
   * Open the lifecycle log over the configured data directory (no files are touched until first use).
   *
   * @param options - Store options; see {@link EmbeddedStoreOptions}.
   * @throws ValidationError when `sharing` is not a known mode.
   */
  constructor(options: EmbeddedStoreOptions = {}) {
    const context = createStoreContext(options);
    this.layout = context.layout;
    this.shared = context.shared;
    this.logger = context.logger;
    this.locks = context.locks;
    this.logs = new OpenLogs({
      maxBytes: context.cacheBytes,
      logger: context.logger,
      shared: context.shared,
    });
  }

  /**
   * How much of its memory budget the open-log cache uses.
   *
   * @returns Entries, bytes and the byte limit.
   */
  get cacheStats(): ResidentCacheStats {
    return this.logs.stats;
  }

  async append(event: LifecycleEvent): Promise<void> {
    this.ensureOpen();
    const parsed = parseOrThrow(lifecycleEventSchema, event, 'lifecycle event');
    const tenantSegment = this.layout.tenantSegment(parsed.tenantId);
    const threadSegment = this.layout.threadSegment(parsed.threadId);
    const path = this.layout.lifecycleLog(tenantSegment, threadSegment);
    await this.locks.run(`lifecycle/${tenantSegment}/${threadSegment}`, () =>
      this.logs.use(path, async (log) => {
        if (this.shared) await log.catchUp(true);
        await log.append([parsed]);
      }),
    );
    this.listeners.notify(parsed.tenantId, parsed.threadId, parsed as LifecycleEvent, this.logger);
  }

  /**
   * In-process notification: appends made through this instance reach its subscribers. Another
   * process sharing the directory is not heard; its readers see those events on their next list.
   */
  subscribe(tenantId: string, threadId: string, listener: LifecycleListener): () => void {
    this.ensureOpen();
    return this.listeners.add(tenantId, threadId, listener);
  }

  async list(
    tenantId: string,
    threadId: string,
    options: { limit?: number } = {},
  ): Promise<LifecycleEvent[]> {
    this.ensureOpen();
    requirePositiveInteger(options.limit, 'limit');
    const events = (await this.logs.use(this.pathFor(tenantId, threadId), (log) =>
      log.readAll(),
    )) as LifecycleEvent[];
    return options.limit === undefined ? events : events.slice(-options.limit);
  }

  /** Wait for appends in flight, then refuse new calls. */
  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.locks.drain();
  }

  private ensureOpen(): void {
    if (this.closed) throw storeClosedError('the embedded lifecycle log');
  }

  private pathFor(tenantId: string, threadId: string): string {
    return this.layout.lifecycleLog(this.layout.tenantSegment(tenantId), this.layout.threadSegment(threadId));
  }
}
