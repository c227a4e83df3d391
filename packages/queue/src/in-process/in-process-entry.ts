/** One queued check in the in-process queue, mirroring a BullMQ job's states. */
export interface InProcessEntry {
  id: string;
  /** A structured clone of the payload, so producer and handler never share objects (as over Redis). */
  data: unknown;
  /** Shared by automatic checks of one thread; undefined for manual requests. */
  deduplicationKey: string | undefined;
  /** Failed attempts so far (BullMQ's `attemptsMade`). */
  failedAttempts: number;
  state: 'delayed' | 'waiting' | 'active';
  /** When the debounce window this entry belongs to opened (its first request); bounds the wait. */
  windowStartedAt: number;
  /** The window's maximum wait. */
  maxWaitMs: number;
  timer?: NodeJS.Timeout;
  /** When a delayed entry is due (epoch ms); a timer that fires earlier re-arms for the rest. */
  dueAt?: number;
}

/** A request that arrived while its thread's check was running: it runs next (latest one wins). */
export interface DeferredRequest {
  data: unknown;
  delayMs: number;
  maxWaitMs: number;
}
