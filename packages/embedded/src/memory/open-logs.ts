import type { Logger } from '@compactor/core';
import { RecordLogFile } from '../files/record-log.js';
import { ResidentCache, type ResidentCacheStats, stringBytes } from './resident-cache.js';

/** A log object's own fields besides its path. */
const OPEN_LOG_BYTES = 256;

/**
 * Record logs a store has opened (each remembers where its last whole batch ends, so an append
 * does not rescan the file), least recently used dropped past the budget. A log that does not
 * exist yet is not kept, so asking about unknown threads leaves nothing behind.
 */
export class OpenLogs {
  readonly #logs: ResidentCache<RecordLogFile>;

  constructor(private readonly options: { maxBytes: number; logger: Logger; shared: boolean }) {
    this.#logs = new ResidentCache({
      maxBytes: options.maxBytes,
      sizeOf: (log) => OPEN_LOG_BYTES + stringBytes(log.path),
      worthKeeping: (log) => log.endOffset > 0,
    });
  }

  /** Run `task` with the log at `path`, opened (and, exclusive mode, repaired) when not resident. */
  use<T>(path: string, task: (log: RecordLogFile) => Promise<T>): Promise<T> {
    return this.#logs.use(
      path,
      () => RecordLogFile.open(path, () => undefined, this.options.logger, { shared: this.options.shared }),
      task,
    );
  }

  get stats(): ResidentCacheStats {
    return this.#logs.stats;
  }
}
