/** The one job the system schedules: check (and maybe compact) a thread. Ids only, never content. */
export interface CompactionCheckJob {
  tenantId: string;
  threadId: string;
  /** The thread version that prompted the check. */
  version: number;
  reason: 'append' | 'manual' | 'sweeper';
  manual?: { instructions?: string; force?: boolean };
}

export interface EnqueueOptions {
  /** Collapse checks for the same thread arriving within this many milliseconds. */
  debounceMs?: number;
}

export interface JobQueue {
  enqueueCompactionCheck(job: CompactionCheckJob, options?: EnqueueOptions): Promise<void>;
  close(): Promise<void>;
}
