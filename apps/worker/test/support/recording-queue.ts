import { type CompactionCheckJob, CompactorError, type EnqueueOptions, type JobQueue } from '@compactor/core';

/** A JobQueue that records what it is given and can be told to fail (or to do something first). */
export class RecordingQueue implements JobQueue {
  readonly jobs: Array<{ job: CompactionCheckJob; options: EnqueueOptions | undefined }> = [];
  failing = false;
  /** Runs before each enqueue is recorded (to simulate what happens meanwhile). */
  beforeEnqueue: ((job: CompactionCheckJob) => Promise<void>) | undefined;

  async enqueueCompactionCheck(job: CompactionCheckJob, options?: EnqueueOptions): Promise<void> {
    await this.beforeEnqueue?.(job);
    if (this.failing) throw new CompactorError('unavailable', 'queue is down', { isRetryable: true });
    this.jobs.push({ job, options });
  }

  async close(): Promise<void> {}
}
