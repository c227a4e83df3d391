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
  type SummarizationFailure,
  threadBudget,
} from './compaction-engine.js';
export { createRenderMeasurer, type ThreadMeasurer } from './measure.js';
export {
  type Compactor,
  type CompactorOptions,
  type CompactorStores,
  createCompactor,
  type PreparedRequest,
  type PrepareOptions,
} from './prepare/create-compactor.js';
