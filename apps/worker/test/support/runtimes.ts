import { type Logger, noopLogger, type Summarizer } from '@compactor/core';
import { createRuntime, loadRuntimeConfig, type Runtime } from '@compactor/runtime';
import { temporaryDirectory } from './temporary-directory.js';

/**
 * A runtime over a fresh data directory, configured from `environment` exactly as the app would
 * be; `cleanups` receives what to close and remove afterwards.
 */
export async function testRuntime(
  cleanups: Array<() => Promise<void>>,
  environment: Record<string, string> = {},
  options: { summarizer?: Summarizer; logger?: Logger } = {},
): Promise<Runtime> {
  const directory = await temporaryDirectory('compactor-worker-');
  cleanups.push(directory.remove);
  const config = loadRuntimeConfig({
    COMPACTOR_DATA_DIR: directory.path,
    COMPACTOR_DEBOUNCE_MS: '0',
    ...environment,
  });
  const runtime = await createRuntime(config, {
    logger: options.logger ?? noopLogger,
    ...(options.summarizer ? { summarizer: options.summarizer } : {}),
  });
  cleanups.push(() => runtime.close());
  return runtime;
}
