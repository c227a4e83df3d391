import { aiSdkPruneBaseline } from './ai-sdk-prune-baseline.js';
import type { Baseline } from './baseline.js';
import { langchainTrimBaseline } from './langchain-trim-baseline.js';
import { openCodePruneBaseline } from './opencode-prune-baseline.js';
import { slidingWindowBaseline } from './sliding-window-baseline.js';

export type { Baseline, BaselineInput, BaselineOutput } from './baseline.js';
export type { BaselineResult } from './render-selection.js';
export { aiSdkPruneBaseline, langchainTrimBaseline, openCodePruneBaseline, slidingWindowBaseline };

/** The baselines `compactor eval` runs beside our compaction, in report order. */
export const baselines: Baseline[] = [
  slidingWindowBaseline,
  langchainTrimBaseline,
  aiSdkPruneBaseline,
  openCodePruneBaseline,
];
