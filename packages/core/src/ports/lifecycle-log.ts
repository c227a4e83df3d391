import type { LifecycleEventName } from '../schemas/events.js';

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

export interface LifecycleEventLog {
  append(event: LifecycleEvent): Promise<void>;
  list(tenantId: string, threadId: string, options?: { limit?: number }): Promise<LifecycleEvent[]>;
}
