/** What `compactor bench` reuses from this package's benchmarks (`@compactor/render/bench`). */
export { benchPlan } from './bench-plan.js';
export { corpusAvailable, corpusDirectory, corpusThread } from './corpus-thread.js';
export { benchBudget, benchSystem, benchTools } from './render-setup.js';
export { createRetokenizingTokenizer } from './retokenizing-tokenizer.js';
export { percentile, time } from './timing.js';
