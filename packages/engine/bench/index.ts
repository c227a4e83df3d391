/** What `compactor bench` reuses from this package's benchmarks (`@compactor/engine/bench`). */

export { piThread } from './pi-thread.js';
export {
  measurePlanningLatency,
  type PlanningLatency,
  type PlanningLatencyOptions,
} from './planning-latency.js';
