export {
  type BranchDependencies,
  type BranchRequest,
  type BranchResult,
  branchThread,
} from './branching/branch-thread.js';
export {
  type CheckOptions,
  type CheckResult,
  type CommitOutcome,
  type CompactionEngine,
  type CompactionEngineOptions,
  createCompactionEngine,
  highWaterFor,
  plannerOverhead,
  plannerTargetTokens,
  REHYDRATION_LOOKBACK_EVENTS,
  type SummarizationFailure,
  threadBudget,
} from './compaction-engine.js';
export { captureCurrentDeterminism } from './determinism.js';
export { createRenderMeasurer, type ThreadMeasurer } from './measure.js';
export {
  type Compactor,
  type CompactorOptions,
  type CompactorStores,
  createCompactor,
  type PreparedRequest,
  type PrepareOptions,
  type SearchHistoryCall,
} from './prepare/create-compactor.js';
export {
  loadRenderRecords,
  RENDER_LIFECYCLE_LOOKBACK,
  type RenderRecords,
} from './prepare/render-records.js';
export { loadSnapshot, type SnapshotStores, takeSnapshot } from './snapshots/snapshots.js';
export {
  createThreadFoldCache,
  DEFAULT_THREAD_FOLD_CACHE_BYTES,
  ThreadFoldCache,
  type ThreadFoldCacheOptions,
  type ThreadFoldCacheStats,
} from './thread-fold-cache.js';
