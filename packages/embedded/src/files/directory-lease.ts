import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Logger } from '@compactor/core';
import { readFileIfPresent, removeFileDurably, writeFileAtomically } from './durable-files.js';

/**
 * A lease on a data directory, kept in a small JSON file: who holds it, and proof that it is still
 * alive: the holder rewrites the file every quarter lease (`renewals` counts up). Nobody decides
 * from a pid or a hostname alone that a holder is alive (a container on another host, or a pid
 * reused after a restart, would hold the directory forever); a holder is alive when its lease
 * file changes. One that stops renewing for a whole lease is dead and its lease can be taken over.
 */
export interface LeaseRecord {
  pid: number;
  hostname: string;
  since: string;
  /** Random per holder: a renewal or release never touches another holder's lease. */
  leaseId?: string;
  /** Wall-clock time of the last renewal (informative across hosts; see `isLeaseLive`). */
  renewedAt?: string;
  leaseMs?: number;
  renewals?: number;
}

/** The shortest lease: renewals every quarter lease must fit between two event-loop stalls. */
export const MIN_LEASE_MS = 1_000;

export function newLeaseRecord(leaseMs: number): LeaseRecord {
  const now = new Date().toISOString();
  return {
    pid: process.pid,
    hostname: hostname(),
    since: now,
    leaseId: randomBytes(8).toString('hex'),
    renewedAt: now,
    leaseMs,
    renewals: 0,
  };
}

export function parseLeaseRecord(bytes: Buffer): LeaseRecord | null {
  try {
    const record = JSON.parse(bytes.toString('utf8')) as Partial<LeaseRecord>;
    if (typeof record.pid === 'number' && typeof record.hostname === 'string') return record as LeaseRecord;
  } catch {
    // A record torn by a crash protects nothing.
  }
  return null;
}

/**
 * Whether the holder of the lease in `path` is alive. Immediate answers: no readable record (dead);
 * a record of this very process (left by stores it never closed: not alive); a holder on this
 * host whose process is gone or a zombie (dead); a lease last renewed more than two leases ago by
 * the clock (dead, even allowing a lease of clock skew between hosts). Otherwise watch the file
 * for up to one lease (`leaseMs`, or the record's own if longer): a renewal means alive; a
 * release, a lease without change, or (this host) the holder's process ending meanwhile means dead.
 */
export async function isLeaseLive(
  path: string,
  leaseMs: number,
): Promise<{ live: boolean; holder: LeaseRecord | null }> {
  const bytes = await readFileIfPresent(path);
  const holder = bytes === null ? null : parseLeaseRecord(bytes);
  if (holder === null) return { live: false, holder };
  if (holder.hostname === hostname()) {
    if (holder.pid === process.pid) return { live: false, holder };
    if (!(await processIsRunning(holder.pid))) return { live: false, holder };
  }
  const lease = Math.max(leaseMs, holder.leaseMs ?? 0);
  const renewedAt = holder.renewedAt === undefined ? Number.NaN : Date.parse(holder.renewedAt);
  if (Date.now() - renewedAt > 2 * lease) return { live: false, holder };
  // A process of this host killed a moment ago may not have died yet: look again on every poll.
  const gone =
    holder.hostname === hostname() ? async () => !(await processIsRunning(holder.pid)) : async () => false;
  return { live: await renewedWithin(path, bytes!, lease, gone), holder };
}

/**
 * Whether the lease file changes within `ms`: it disappearing (a release) or `gone()` saying the
 * holder's process has ended both answer no at once.
 */
async function renewedWithin(
  path: string,
  seen: Buffer,
  ms: number,
  gone: () => Promise<boolean>,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  const pollMs = Math.max(20, Math.min(100, Math.floor(ms / 20)));
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    const now = await readFileIfPresent(path);
    if (now === null) return false;
    if (!now.equals(seen)) return true;
    if (await gone()) return false;
  }
  return false;
}

/** Whether a process of this host is running: not gone, and not a zombie waiting to be reaped. */
async function processIsRunning(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
  try {
    // Linux: `pid (comm) S ...`; state Z (zombie) or X (dead) is a process that has already exited.
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (or it just exited): the signal check above said it was there
  }
}

/**
 * The renewal side: rewrites its lease file every quarter lease. If it finds the file holding
 * another lease (this process stalled for a whole lease and another took the directory over), it
 * stops and calls `onLost`: the caller must stop writing to the directory.
 */
export class LeaseKeeper {
  readonly #timer: NodeJS.Timeout;
  #renewing: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(
    private readonly path: string,
    private readonly record: LeaseRecord,
    private readonly logger: Logger,
    private readonly onLost: () => void,
  ) {
    const every = Math.max(50, Math.floor((record.leaseMs ?? MIN_LEASE_MS) / 4));
    this.#timer = setInterval(() => {
      this.#renewing = this.#renewing.then(() => this.#renew());
    }, every);
    // A lease alone must not keep the process alive.
    this.#timer.unref();
  }

  /** Stop renewing and remove the lease file, if it is still ours. */
  async release(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#renewing;
    if (await this.#stillOurs()) await removeFileDurably(this.path);
  }

  async #renew(): Promise<void> {
    if (this.#stopped) return;
    try {
      if (!(await this.#stillOurs())) {
        this.#stopped = true;
        clearInterval(this.#timer);
        this.logger.error(
          { lease: this.path },
          'lost the data directory lease: another process took it over',
        );
        this.onLost();
        return;
      }
      this.record.renewals = (this.record.renewals ?? 0) + 1;
      this.record.renewedAt = new Date().toISOString();
      await writeFileAtomically(this.path, JSON.stringify(this.record));
    } catch (error) {
      // A missed renewal is survivable (three more fit in a lease); say so, try again next time.
      this.logger.warn({ lease: this.path, err: error }, 'could not renew the data directory lease');
    }
  }

  async #stillOurs(): Promise<boolean> {
    const bytes = await readFileIfPresent(this.path);
    return bytes !== null && parseLeaseRecord(bytes)?.leaseId === this.record.leaseId;
  }
}
