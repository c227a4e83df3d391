export {
  type BullmqCompactionWorker,
  type BullmqCompactionWorkerOptions,
  startBullmqCompactionWorker,
} from './bullmq/bullmq-compaction-worker.js';
export {
  type BullmqQueueLocation,
  compactionCheckJobName,
  defaultPrefix,
  defaultQueueName,
} from './bullmq/bullmq-connection-options.js';
export {
  BullmqJobQueue,
  type BullmqJobQueueOptions,
  createBullmqJobQueue,
} from './bullmq/bullmq-job-queue.js';
export {
  CircuitBreakingJobQueue,
  type CircuitBreakingJobQueueOptions,
  type CircuitState,
} from './circuit-breaker/circuit-breaking-job-queue.js';
export { defaultProbeBackoff, type ProbeBackoff } from './circuit-breaker/probe-backoff.js';
export { compactionCheckJobSchema, parseCompactionCheckJob } from './compaction-check-job-schema.js';
export type {
  CompactionCheckStatus,
  CompactionJobContext,
  CompactionJobFinishedEvent,
  CompactionJobHandler,
  CompactionJobOutcome,
  CompactionJobResult,
  CompactionWorker,
  CompactionWorkerOptions,
} from './compaction-worker-types.js';
export { defaultDebounceMs, defaultMaxWaitMs } from './debounce.js';
export { type FailureSummary, isPermanentFailure } from './failure-classification.js';
export {
  createInProcessCompactionQueue,
  InProcessCompactionQueue,
  type InProcessCompactionQueueOptions,
} from './in-process/in-process-compaction-queue.js';
export { deduplicationKey, threadKey } from './job-keys.js';
export { defaultRetryPolicy, exponentialBackoffDelay, type RetryPolicy } from './retry-policy.js';
export { closingReserveMs, ShutdownDeadline } from './shutdown-deadline.js';
