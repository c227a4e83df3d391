export { describeRuntimeConfig, redactUrl } from './config/describe-runtime-config.js';
export { loadRuntimeConfig } from './config/load-runtime-config.js';
export {
  type ArtifactsConfig,
  LOG_LEVELS,
  type LogLevel,
  type QueueConfig,
  type RuntimeConfig,
  type StoreConfig,
  type SummarizerConfig,
  type WorkerSettings,
} from './config/runtime-config.js';
export {
  RUNTIME_ENVIRONMENT_VARIABLES,
  type RuntimeEnvironment,
  runtimeConfigSchema,
  runtimeEnvironmentSchema,
} from './config/runtime-config-schema.js';
export { type CreateRuntimeOptions, createRuntime, type Runtime } from './create-runtime.js';
export type { ConsumerOptions, StartConsumer } from './queue/open-queue.js';
export { TimedJobQueue } from './queue/timed-job-queue.js';
export type { Readiness } from './readiness/readiness.js';
export type { RuntimeStores } from './stores/runtime-stores.js';
export { buildSummarizer } from './summarizer/build-summarizer.js';
