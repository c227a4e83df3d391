/** What `compactor bench` reuses from this package's benchmarks (`@compactor/engine/bench`). */

export {
  type CompactingCheck,
  type CompactingCheckOptions,
  measureCompactingCheck,
} from './compacting-check.js';
export { piThread } from './pi-thread.js';
export {
  measurePlanningLatency,
  type PlanningLatency,
  type PlanningLatencyOptions,
} from './planning-latency.js';
