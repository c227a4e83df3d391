export { createCompactionHandler } from './compaction/compaction-handler.js';
export { jobResultOf } from './compaction/job-result.js';
export {
  type AppliedHeapCompaction,
  applyHeapCompaction,
  COMPACT_ON_EVERY_FULL_GC_FLAG,
  DEFAULT_HEAP_COMPACTION_INTERVAL_SECONDS,
  HEAP_COMPACTION_MODES,
  type HeapBudget,
  type HeapCompaction,
  type HeapCompactionSetting,
  heapCompactionEnvironment,
  heapCompactionSettingFrom,
  heapCompactionSettingOf,
  INGEST_HEAP_COMPACTION,
  readOldGeneration,
  WORKER_HEAP_COMPACTION,
} from './heap/heap-compaction.js';
export {
  type CompactionTrigger,
  compactionCalledFor,
  FRAGMENTATION_MIN_SLACK_BYTES,
  FRAGMENTATION_MIN_SLACK_RATIO,
  type FullCollection,
  type HeapCompactionEvent,
  HeapCompactionSchedule,
  type HeapCompactionScheduleOptions,
  type OldSpaceReading,
} from './heap/heap-compaction-schedule.js';
export {
  startWorkerHttpServer,
  type WorkerHttpServer,
  type WorkerHttpServerOptions,
} from './http/worker-http-server.js';
export { createWorkerMetrics, type WorkerMetrics } from './metrics/worker-metrics.js';
export { type CompactionWorkerProcess, type StartWorkerOptions, startWorker } from './start-worker.js';
export { type PendingSweeper, startPendingSweeper } from './sweeper/pending-sweeper.js';
export {
  type SweepPendingThreadsOptions,
  type SweepResult,
  sweepPendingThreads,
} from './sweeper/sweep-pending-threads.js';
export { loadWorkerConfig, WORKER_ENVIRONMENT_VARIABLES, type WorkerConfig } from './worker-config.js';
