export {
  type AbridgeDraft,
  abridgedTokens,
  abridgeRecordOf,
  type DraftedMedium,
  draftAbridgement,
  inlineMedia,
  type StoredMedium,
} from './abridge-parts.js';
export {
  ANTHROPIC_CACHE_PRICES,
  type CachePrices,
  type CompactionCycle,
  callsBeforeNextCompaction,
  chooseCompactionDepth,
  costPerCall,
  type DepthDecision,
  earlyCommitPays,
  growthPerCall,
  type PricedDepth,
  postponedRewrite,
  stableSummaryTokens,
  stepPays,
  triggerThresholdPercent,
} from './cache-cost.js';
export { buildDroppedSpanIndex } from './dropped-span-index.js';
export { keptUserMessageIds } from './kept-user-words.js';
export { LADDER, planCompaction } from './ladder.js';
export { abridgesMediaPastTurn, mediaPastTurn } from './media-past-turn.js';
export { editPlan, isEditedPlan, normalizedPlanOf } from './plan-edit.js';
export { type PolicyPlannerInput, planWithPolicy } from './plan-with-policy.js';
export type {
  PlannerInput,
  PlannerOutcome,
  PlannerStatus,
  Proposal,
  Rung,
  RungContext,
  RungExecution,
  RungName,
} from './planner-types.js';
export { createPlanningIndex, knownRecordPositions, type PlanningIndex } from './planning-index.js';
export {
  computeProtectedRegions,
  type ProtectedRegions,
  type ProtectedTail,
  type ProtectedTailOptions,
  protectedTail,
  type TailUnit,
  unitTokensFrom,
} from './protected-tail.js';
export { contentAsText } from './rungs/externalize.js';
export { summaryBudgetFor } from './rungs/summarize.js';
export {
  type ConsolidatedBlocks,
  compressionRatioOf,
  consolidateSummaryBlocks,
  mergeSummaryBlocks,
  type SummaryBlockLimits,
  summaryBlockTokens,
} from './summary-blocks.js';
