export { inspectThread } from './commands/inspect-command.js';
export { formatReplayReport } from './replay/format-report.js';
export { replayThroughServer } from './replay/replay-through-server.js';
export {
  providerForModel,
  type ReplayOptions,
  type ReplayReport,
  type ReplayResult,
  replayTranscript,
} from './replay/replay-transcript.js';
