export { inspectThread } from './commands/inspect-command.js';
export type * from './eval/eval-types.js';
export { formatEvaluationReport } from './eval/format-eval-report.js';
export { retentionChart } from './eval/retention-chart.js';
export { type EvaluationOptions, OURS, runEvaluation } from './eval/run-evaluation.js';
export { formatReplayReport } from './replay/format-report.js';
export { replayThroughServer } from './replay/replay-through-server.js';
export {
  type LocalReplayResult,
  providerForModel,
  type ReplayOptions,
  type ReplayReport,
  type ReplayResult,
  replayTranscript,
} from './replay/replay-transcript.js';
