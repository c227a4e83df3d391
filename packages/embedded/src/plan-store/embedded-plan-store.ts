import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Clock,
  type CommitResult,
  type CompactionPlan,
  type CurrentPlan,
  compactionPlanSchema,
  IntegrityError,
  NotFoundError,
  type PlanStore,
  type PlanVersionSummary,
  planAsStored,
  ValidationError,
} from '@compactor/core';
import type { StoreLocks } from '../concurrency/store-locks.js';
import {
  isMissingFileError,
  isTemporaryFileName,
  readFileIfPresent,
  writeFileAtomically,
} from '../files/durable-files.js';
import { ResidentCache, type ResidentCacheStats, stringBytes } from '../memory/resident-cache.js';
import type { DataLayout } from '../paths/data-layout.js';
import { createStoreContext } from '../store-context.js';
import { type EmbeddedStoreOptions, storeClosedError } from '../store-options.js';
import { parseOrThrow } from '../validation.js';

/** One file per committed version: what it holds besides the plan. */
interface PlanVersionFile {
  tenantId: string;
  threadId: string;
  version: number;
  committedAt: string;
  revertedFrom?: number;
  plan: CompactionPlan;
}

interface ThreadPlans {
  tenantId: string;
  threadId: string;
  directory: string;
  versions: PlanVersionSummary[];
  current: CompactionPlan | null;
  /** Rough bytes the current plan holds in memory (its JSON size, as UTF-16). */
  currentBytes: number;
  /** Shared mode: catch-ups of this thread run one at a time, so no version is added twice. */
  catchingUp: Promise<void>;
}

const VERSION_FILE = /^(\d{10})\.json$/;
/** A version summary's share of memory, and the rest of a thread's record. */
const VERSION_SUMMARY_BYTES = 160;
const THREAD_PLANS_BYTES = 512;

/**
 * Freeze a plan the store owns, at every depth: `getCurrent` hands out this one object until the next
 * commit instead of a copy per read (a copy is linear in the plan, and a fresh object defeats every
 * memo keyed by the plan; issue #18). A caller that tries to change it throws instead of corrupting it.
 */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function setCurrent(plans: ThreadPlans, plan: CompactionPlan, bytes: number | undefined): void {
  plans.current = deepFreeze(plan);
  plans.currentBytes = bytes ?? stringBytes(JSON.stringify(plan));
}

function threadPlansBytes(plans: ThreadPlans): number {
  return (
    THREAD_PLANS_BYTES +
    stringBytes(plans.directory) +
    plans.versions.length * VERSION_SUMMARY_BYTES +
    plans.currentBytes
  );
}

function versionFileName(version: number): string {
  return `${String(version).padStart(10, '0')}.json`;
}

/**
 * Plans in a local directory: one immutable file per committed version (temp file, fsync, atomic
 * rename), so a crash leaves either the new version or none. Compare-and-set runs under a
 * per-thread lock; the version list and the current plan are cached after the first read. Shared
 * mode: the lock is also a cross-process lock file, and every call first looks for versions other
 * processes committed since (the next version's file).
 */
export class EmbeddedPlanStore implements PlanStore {
  private readonly layout: DataLayout;
  private readonly clock: Clock;
  private readonly locks: StoreLocks;
  private readonly shared: boolean;
  /** Threads with plans, least recently used dropped past the budget; a thread without any is never kept. */
  private readonly threads: ResidentCache<ThreadPlans>;
  private closed = false;

  /**
   * Open the plan store over the configured data directory (no files are touched until first use).
   *
   * @param options - Store options; see {@link EmbeddedStoreOptions}.
   * @throws ValidationError when `sharing` is not a known mode.
   */
  constructor(options: EmbeddedStoreOptions = {}) {
    const context = createStoreContext(options);
    this.layout = context.layout;
    this.clock = context.clock;
    this.shared = context.shared;
    this.locks = context.locks;
    this.threads = new ResidentCache({
      maxBytes: context.cacheBytes,
      sizeOf: threadPlansBytes,
      worthKeeping: (plans) => plans.versions.length > 0,
    });
  }

  /**
   * How much of its memory budget the plan cache uses.
   *
   * @returns Entries, bytes and the byte limit.
   */
  get cacheStats(): ResidentCacheStats {
    return this.threads.stats;
  }

  async getCurrent(tenantId: string, threadId: string): Promise<CurrentPlan> {
    this.ensureOpen();
    return this.withPlans(tenantId, threadId, async (plans) => ({
      plan: plans.current,
      version: plans.versions.length,
    }));
  }

  async commit(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    expectedVersion: number,
  ): Promise<CommitResult> {
    this.ensureOpen();
    const parsed = parseOrThrow(compactionPlanSchema, plan, 'plan');
    if (parsed.threadId !== threadId) {
      throw new ValidationError(`the plan is for thread ${parsed.threadId}, not ${threadId}`, [
        { path: 'threadId', message: 'does not match the thread' },
      ]);
    }
    requireVersion(expectedVersion, 'expectedVersion');
    return this.locks.run(this.lockKey(tenantId, threadId), () =>
      this.withPlansForWrite(tenantId, threadId, async (plans) => {
        if (plans.versions.length !== expectedVersion)
          return { committed: false, currentVersion: plans.versions.length };
        return this.write(tenantId, threadId, plans, parsed, undefined);
      }),
    );
  }

  async getVersion(tenantId: string, threadId: string, version: number): Promise<CompactionPlan | null> {
    this.ensureOpen();
    requireVersion(version, 'version');
    return this.withPlans(tenantId, threadId, async (plans) => {
      if (version < 1 || version > plans.versions.length) return null;
      return (await this.readVersionFile(plans.directory, version, tenantId, threadId)).plan;
    });
  }

  async listVersions(tenantId: string, threadId: string): Promise<PlanVersionSummary[]> {
    this.ensureOpen();
    return this.withPlans(tenantId, threadId, async (plans) =>
      plans.versions.map((summary) => ({ ...summary })),
    );
  }

  async revertTo(
    tenantId: string,
    threadId: string,
    version: number,
    expectedVersion: number,
  ): Promise<CommitResult> {
    this.ensureOpen();
    requireVersion(version, 'version');
    requireVersion(expectedVersion, 'expectedVersion');
    return this.locks.run(this.lockKey(tenantId, threadId), () =>
      this.withPlansForWrite(tenantId, threadId, async (plans) => {
        if (version < 1 || version > plans.versions.length) {
          throw new NotFoundError('plan version', `${threadId}@${version}`);
        }
        if (plans.versions.length !== expectedVersion)
          return { committed: false, currentVersion: plans.versions.length };
        const earlier = await this.readVersionFile(plans.directory, version, tenantId, threadId);
        return this.write(tenantId, threadId, plans, earlier.plan, version);
      }),
    );
  }

  /** Wait for commits in flight, then refuse new calls. */
  async close(): Promise<void> {
    this.closed = true;
    await this.locks.drain();
  }

  private async write(
    tenantId: string,
    threadId: string,
    plans: ThreadPlans,
    plan: CompactionPlan,
    revertedFrom: number | undefined,
  ): Promise<CommitResult> {
    const version = plans.versions.length + 1;
    const stored: CompactionPlan = { ...plan, version };
    const committedAt = this.clock.now().toISOString();
    const file: PlanVersionFile = {
      tenantId,
      threadId,
      version,
      committedAt,
      ...(revertedFrom === undefined ? {} : { revertedFrom }),
      plan: stored,
    };
    await writeFileAtomically(join(plans.directory, versionFileName(version)), JSON.stringify(file));
    if (this.shared) {
      // A catch-up of this process may have picked the new file up already; let it decide.
      await this.catchUp(plans);
      return { committed: true, version };
    }
    plans.versions.push({ version, basedOnSeq: stored.basedOnSeq, createdAt: committedAt, revertedFrom });
    // Its own copy: the caller's plan (and what zod passed through of it) stays the caller's to change.
    setCurrent(plans, structuredClone(stored), undefined);
    return { committed: true, version };
  }

  private ensureOpen(): void {
    if (this.closed) throw storeClosedError('the embedded plan store');
  }

  private key(tenantId: string, threadId: string): string {
    return `${this.layout.tenantSegment(tenantId)}/${this.layout.threadSegment(threadId)}`;
  }

  private lockKey(tenantId: string, threadId: string): string {
    return `plans/${this.key(tenantId, threadId)}`;
  }

  /**
   * Run `task` with the thread's plans (read from disk when not resident; shared mode: caught up
   * with versions other processes committed). They cannot be dropped while `task` runs.
   */
  private withPlans<T>(
    tenantId: string,
    threadId: string,
    task: (plans: ThreadPlans) => Promise<T>,
  ): Promise<T> {
    return this.threads.use(
      this.key(tenantId, threadId),
      () => this.readThreadPlans(tenantId, threadId),
      async (plans) => {
        if (this.shared) await this.catchUp(plans);
        return task(plans);
      },
    );
  }

  /** Under the thread's lock: shared mode may also remove temp files, nobody else writes them now. */
  private withPlansForWrite<T>(
    tenantId: string,
    threadId: string,
    task: (plans: ThreadPlans) => Promise<T>,
  ): Promise<T> {
    return this.withPlans(tenantId, threadId, async (plans) => {
      if (this.shared) await removeTemporaryFiles(plans.directory);
      return task(plans);
    });
  }

  /** Shared mode: add the versions committed since we last looked (one missing-file check when none). */
  private catchUp(plans: ThreadPlans): Promise<void> {
    const next = plans.catchingUp.then(async () => {
      for (;;) {
        const version = plans.versions.length + 1;
        const bytes = await readFileIfPresent(join(plans.directory, versionFileName(version)));
        if (bytes === null) return;
        const file = parseVersionFile(bytes, join(plans.directory, versionFileName(version)));
        checkVersionFile(file, version, plans.tenantId, plans.threadId, plans.directory);
        plans.versions.push({
          version,
          basedOnSeq: file.plan.basedOnSeq,
          createdAt: file.committedAt,
          revertedFrom: file.revertedFrom,
        });
        setCurrent(plans, file.plan, 2 * bytes.length);
      }
    });
    plans.catchingUp = next.catch(() => undefined);
    return next;
  }

  private async readThreadPlans(tenantId: string, threadId: string): Promise<ThreadPlans> {
    const directory = this.layout.planDirectory(
      this.layout.tenantSegment(tenantId),
      this.layout.threadSegment(threadId),
    );
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if (isMissingFileError(error)) return this.threadPlans(tenantId, threadId, directory, [], null);
      throw error;
    }
    const versionNumbers: number[] = [];
    for (const name of names) {
      const match = VERSION_FILE.exec(name);
      if (match) versionNumbers.push(Number(match[1]));
      // A crash between writing and renaming leaves a temp file and no version: drop it (shared
      // mode: only under the lock, as it may be another process's commit in progress).
      else if (isTemporaryFileName(name) && !this.shared)
        await unlink(join(directory, name)).catch(() => undefined);
    }
    versionNumbers.sort((left, right) => left - right);
    const versions: PlanVersionSummary[] = [];
    let current: { plan: CompactionPlan; bytes: number } | null = null;
    for (const [index, version] of versionNumbers.entries()) {
      if (version !== index + 1)
        throw new IntegrityError(`plan versions of ${directory} skip from ${index} to ${version}`);
      const { file, bytes } = await this.readVersionFileWithSize(directory, version, tenantId, threadId);
      versions.push({
        version,
        basedOnSeq: file.plan.basedOnSeq,
        createdAt: file.committedAt,
        revertedFrom: file.revertedFrom,
      });
      current = { plan: file.plan, bytes: 2 * bytes };
    }
    return this.threadPlans(tenantId, threadId, directory, versions, current);
  }

  private threadPlans(
    tenantId: string,
    threadId: string,
    directory: string,
    versions: PlanVersionSummary[],
    current: { plan: CompactionPlan; bytes: number } | null,
  ): ThreadPlans {
    return {
      tenantId,
      threadId,
      directory,
      versions,
      current: current ? deepFreeze(current.plan) : null,
      currentBytes: current?.bytes ?? 0,
      catchingUp: Promise.resolve(),
    };
  }

  private async readVersionFile(
    directory: string,
    version: number,
    tenantId: string,
    threadId: string,
  ): Promise<PlanVersionFile> {
    return (await this.readVersionFileWithSize(directory, version, tenantId, threadId)).file;
  }

  private async readVersionFileWithSize(
    directory: string,
    version: number,
    tenantId: string,
    threadId: string,
  ): Promise<{ file: PlanVersionFile; bytes: number }> {
    const path = join(directory, versionFileName(version));
    const bytes = await readFileIfPresent(path);
    if (bytes === null) throw new IntegrityError(`plan version file ${path} is missing`);
    const file = parseVersionFile(bytes, path);
    checkVersionFile(file, version, tenantId, threadId, path);
    return { file, bytes: bytes.length };
  }
}

function parseVersionFile(bytes: Buffer, path: string): PlanVersionFile {
  try {
    const file = JSON.parse(bytes.toString('utf8')) as PlanVersionFile;
    return file.plan ? { ...file, plan: planAsStored(file.plan) } : file;
  } catch (error) {
    throw new IntegrityError(`plan version file ${path} is not valid JSON`, { cause: String(error) });
  }
}

function checkVersionFile(
  file: PlanVersionFile,
  version: number,
  tenantId: string,
  threadId: string,
  path: string,
): void {
  if (file.version !== version || file.tenantId !== tenantId || file.threadId !== threadId) {
    throw new IntegrityError(`plan version file ${path} belongs elsewhere`);
  }
}

async function removeTemporaryFiles(directory: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if (isMissingFileError(error)) return;
    throw error;
  }
  for (const name of names) {
    if (isTemporaryFileName(name)) await unlink(join(directory, name)).catch(() => undefined);
  }
}

function requireVersion(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ValidationError(`${field} must be a whole number of at least 0`, [
      { path: field, message: 'invalid' },
    ]);
  }
}
