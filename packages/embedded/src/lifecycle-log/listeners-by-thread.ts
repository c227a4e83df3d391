import type { LifecycleEvent, LifecycleListener, Logger } from '@compactor/core';

/** Subscribers per tenant and thread; a throwing listener is logged and never fails the append. */
export class ListenersByThread {
  private readonly byKey = new Map<string, Set<LifecycleListener>>();

  add(tenantId: string, threadId: string, listener: LifecycleListener): () => void {
    const key = keyOf(tenantId, threadId);
    let set = this.byKey.get(key);
    if (!set) {
      set = new Set();
      this.byKey.set(key, set);
    }
    // A wrapper per call, so the same function subscribed twice is told twice and unsubscribes once.
    const entry: LifecycleListener = (event) => listener(event);
    set.add(entry);
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
    };
  }

  notify(tenantId: string, threadId: string, event: LifecycleEvent, logger: Logger): void {
    const set = this.byKey.get(keyOf(tenantId, threadId));
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (error) {
        logger.warn({ err: error, tenantId, threadId }, 'a lifecycle listener threw');
      }
    }
  }

  clear(): void {
    this.byKey.clear();
  }
}

function keyOf(tenantId: string, threadId: string): string {
  return `${tenantId}\u0000${threadId}`;
}
