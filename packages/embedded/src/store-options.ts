import { resolve } from 'node:path';
import { type Clock, CompactorError, type Logger, noopLogger, systemClock } from '@compactor/core';

export interface EmbeddedStoreOptions {
  /** The data directory; `./.compactor` when not given. */
  dataDir?: string;
  clock?: Clock;
  logger?: Logger;
}

export const DEFAULT_DATA_DIR = './.compactor';

export function resolveStoreOptions(options: EmbeddedStoreOptions): Required<EmbeddedStoreOptions> {
  return {
    dataDir: resolve(options.dataDir ?? DEFAULT_DATA_DIR),
    clock: options.clock ?? systemClock,
    logger: options.logger ?? noopLogger,
  };
}

export function storeClosedError(store: string): CompactorError {
  return new CompactorError('unavailable', `${store} is closed`);
}
