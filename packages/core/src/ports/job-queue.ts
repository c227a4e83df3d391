/** The one job the system schedules: check (and maybe compact) a thread. Ids only, never content. */
export interface CompactionCheckJob {
  tenantId: string;
  threadId: string;
  /** The thread version that prompted the check. */
  version: number;
  reason: 'append' | 'manual' | 'sweeper';
  manual?: { instructions?: string; force?: boolean };
}

/** How a compaction check is debounced. */
export interface EnqueueOptions {
  /** Collapse checks for the same thread arriving within this many milliseconds. */
  debounceMs?: number;
  /**
   * The longest an automatic check may be put off by newer requests for its thread: a thread that
   * keeps receiving events is still checked at least this often.
   * @defaultValue the queue's (10 s)
   */
  maxWaitMs?: number;
}

/** Schedules compaction checks for the workers. */
export interface JobQueue {
  /**
   * Schedule a check, collapsing it with a pending one for the same thread.
   *
   * @param job - The thread and why it is checked.
   * @param options - Debounce settings.
   */
  enqueueCompactionCheck(job: CompactionCheckJob, options?: EnqueueOptions): Promise<void>;
  /** Release what the queue holds (connections, timers). */
  close(): Promise<void>;
}
