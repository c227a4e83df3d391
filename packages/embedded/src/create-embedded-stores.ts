import { CompactorError } from '@compactor/core';
import { EmbeddedArtifactStore } from './artifact-store/embedded-artifact-store.js';
import { EmbeddedEventStore } from './event-store/embedded-event-store.js';
import { DataDirectoryLock } from './files/data-directory-lock.js';
import { readFileIfPresent, writeFileAtomically } from './files/durable-files.js';
import { EmbeddedLifecycleEventLog } from './lifecycle-log/embedded-lifecycle-log.js';
import { DataLayout } from './paths/data-layout.js';
import { EmbeddedPlanStore } from './plan-store/embedded-plan-store.js';
import { type EmbeddedSharing, type EmbeddedStoreOptions, resolveStoreOptions } from './store-options.js';
import { EmbeddedSummaryCache } from './summary-cache/embedded-summary-cache.js';

/** Bump when the on-disk layout changes incompatibly. */
export const EMBEDDED_FORMAT_VERSION = 1;

/** Every store port over one data directory, and how to close them together. */
export interface EmbeddedStores {
  events: EmbeddedEventStore;
  plans: EmbeddedPlanStore;
  summaries: EmbeddedSummaryCache;
  artifacts: EmbeddedArtifactStore;
  lifecycle: EmbeddedLifecycleEventLog;
  /** The absolute data directory. */
  dataDir: string;
  /** How the directory is opened: by this process alone, or shared with other processes. */
  sharing: EmbeddedSharing;
  /** Let in-flight writes finish, then release the data directory. */
  close(): Promise<void>;
}

/**
 * Every store port over one local directory (`./.compactor` unless configured), locked to this
 * process (`sharing: 'exclusive'`, the default) or shared with other processes on this host
 * (`sharing: 'shared'`). Durable across restarts; see README.md for the layout and the guarantees.
 *
 * @param options - Directory, sharing mode, lease, cache size, clock and logger.
 * @returns The stores, open and holding the directory's lease.
 * @throws ValidationError when `sharing` is not a known mode.
 * @throws CompactorError (code `unavailable`) when another process holds the directory, or it holds
 *   another format version.
 */
export async function createEmbeddedStores(options: EmbeddedStoreOptions = {}): Promise<EmbeddedStores> {
  const resolved = resolveStoreOptions(options);
  const layout = new DataLayout(resolved.dataDir);
  let closeAfterLostLease = (): void => undefined;
  const lock = await DataDirectoryLock.acquire(
    resolved.dataDir,
    { lockFile: layout.lockFile(), sharersDirectory: layout.sharersDirectory() },
    {
      sharing: resolved.sharing,
      leaseMs: resolved.leaseMs,
      logger: resolved.logger,
      // Another process owns the directory now: stop serving from it rather than fork its data.
      onLost: () => closeAfterLostLease(),
    },
  );
  try {
    await checkFormat(layout);
  } catch (error) {
    await lock.release();
    throw error;
  }
  const stores = {
    events: new EmbeddedEventStore(resolved),
    plans: new EmbeddedPlanStore(resolved),
    summaries: new EmbeddedSummaryCache(resolved),
    artifacts: new EmbeddedArtifactStore(resolved),
    lifecycle: new EmbeddedLifecycleEventLog(resolved),
  };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await Promise.all(Object.values(stores).map((store) => store.close()));
      await lock.release();
    })();
    return closing;
  };
  closeAfterLostLease = () => {
    close().catch((error: unknown) => {
      resolved.logger.error({ err: error }, 'closing the stores after losing the lease failed');
    });
  };
  return { ...stores, dataDir: resolved.dataDir, sharing: resolved.sharing, close };
}

async function checkFormat(layout: DataLayout): Promise<void> {
  const path = layout.formatFile();
  const existing = await readFileIfPresent(path);
  if (existing === null) {
    await writeFileAtomically(
      path,
      JSON.stringify({ format: 'compactor-embedded', version: EMBEDDED_FORMAT_VERSION }),
    );
    return;
  }
  const format = JSON.parse(existing.toString('utf8')) as { format?: string; version?: number };
  if (format.format !== 'compactor-embedded' || format.version !== EMBEDDED_FORMAT_VERSION) {
    throw new CompactorError(
      'unavailable',
      `${layout.root} holds ${format.format ?? 'unknown'} format version ${format.version ?? '?'}, ` +
        `this build reads compactor-embedded version ${EMBEDDED_FORMAT_VERSION}`,
    );
  }
}
