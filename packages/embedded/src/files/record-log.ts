import { constants, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { CompactorError, IntegrityError, type Logger } from '@compactor/core';
import { ensureDirectory, isMissingFileError, syncDirectory } from './durable-files.js';
import type { GroupCommit } from './group-commit.js';

/**
 * An append-only file of JSON records, written in batches with one fsync per batch.
 *
 * Each record is one line: `<crc32 of the rest, 8 hex> <records left in its batch> <JSON>\n`.
 * The count lets a reader tell a whole batch from one cut short by a crash; the CRC tells a
 * whole record from a torn or garbage one. On open, a damaged or incomplete tail (everything
 * from the start of the first incomplete batch) is cut off; damage followed by intact records
 * is not a crash tail and raises IntegrityError instead of silently losing data.
 */

export interface RecordLocation {
  offset: number;
  length: number;
}

export interface ScannedRecord extends RecordLocation {
  value: unknown;
}

const NEWLINE = 0x0a;
const SPACE = 0x20;
const SCAN_CHUNK_BYTES = 4 * 1024 * 1024;
const DEFAULT_IDLE_CLOSE_MS = 250;
/**
 * Batches up to this size are written with one synchronous `write` on the event loop (a copy into
 * the page cache: microseconds) instead of a round trip through libuv's thread pool; larger ones
 * are written asynchronously. Durability is the sync's job either way (ADR-0130).
 */
const SYNCHRONOUS_WRITE_MAX_BYTES = 64 * 1024;

export function encodeRecordLine(value: unknown, recordsLeftInBatch: number): Buffer {
  const body = Buffer.from(`${recordsLeftInBatch} ${JSON.stringify(value)}`, 'utf8');
  const line = Buffer.allocUnsafe(9 + body.length + 1);
  line.write(crc32(body).toString(16).padStart(8, '0'), 0, 'latin1');
  line[8] = SPACE;
  body.copy(line, 9);
  line[line.length - 1] = NEWLINE;
  return line;
}

/** A line without its newline, or null when it is torn, garbage or fails its CRC. */
export function decodeRecordLine(line: Buffer): { recordsLeftInBatch: number; value: unknown } | null {
  if (line.length < 12 || line[8] !== SPACE) return null;
  const expectedCrc = Number.parseInt(line.toString('latin1', 0, 8), 16);
  const body = line.subarray(9);
  if (Number.isNaN(expectedCrc) || crc32(body) !== expectedCrc) return null;
  const countEnd = body.indexOf(SPACE);
  if (countEnd <= 0) return null;
  const recordsLeftInBatch = Number(body.toString('latin1', 0, countEnd));
  if (!Number.isSafeInteger(recordsLeftInBatch) || recordsLeftInBatch < 0) return null;
  try {
    return { recordsLeftInBatch, value: JSON.parse(body.toString('utf8', countEnd + 1)) };
  } catch {
    return null;
  }
}

/** Every line of the file with its offset; a last line without a newline comes with `complete: false`. */
async function* readLines(
  handle: FileHandle,
  from: number,
  size: number,
): AsyncGenerator<{ offset: number; line: Buffer; complete: boolean }> {
  let pending = Buffer.alloc(0);
  let pendingOffset = from;
  let position = from;
  while (position < size) {
    const chunk = Buffer.allocUnsafe(Math.min(SCAN_CHUNK_BYTES, size - position));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const buffer =
      pending.length === 0
        ? chunk.subarray(0, bytesRead)
        : Buffer.concat([pending, chunk.subarray(0, bytesRead)]);
    let start = 0;
    for (
      let newline = buffer.indexOf(NEWLINE, start);
      newline !== -1;
      newline = buffer.indexOf(NEWLINE, start)
    ) {
      yield { offset: pendingOffset + start, line: buffer.subarray(start, newline), complete: true };
      start = newline + 1;
    }
    pending = Buffer.from(buffer.subarray(start));
    pendingOffset += start;
  }
  if (pending.length > 0) yield { offset: pendingOffset, line: pending, complete: false };
}

export type BatchListener = (records: ScannedRecord[]) => void;

/**
 * A batch written to the log but not necessarily durable yet (exclusive mode, {@link RecordLogFile.write}).
 * `durable` resolves once it is on stable storage and folded in (after every batch written before
 * it), and rejects when it, or a batch written before it, could not be made durable: then it was
 * cut off the file and never folded in.
 */
export interface WrittenBatch {
  durable: Promise<RecordLocation[]>;
}

export interface RecordLogOptions {
  /**
   * Other processes may append to this file (shared mode). Opening then never cuts a tail (it may
   * be another process's batch in progress); `catchUp` folds in what they appended.
   */
  shared?: boolean;
  /**
   * Keep one file handle open for appends and reads instead of opening the file each time; the
   * owner must `close()` the log when it drops it.
   */
  keepOpen?: boolean;
  /** keepOpen: close the handle once no append or read has used it for this long (default 250 ms). */
  idleCloseMs?: number;
  /** Sync appends through this group commit (shared with the store's other logs) instead of alone. */
  groupCommit?: GroupCommit;
  /**
   * Exclusive mode: called with a written batch's values when it is cut off the file because it,
   * or a batch before it, could not be made durable — in order, before any later batch is written.
   */
  onCutOff?: (values: readonly unknown[]) => void;
}

export class RecordLogFile {
  private unusableBecause: unknown;
  /** Catch-ups run one at a time, so no batch is folded in twice. */
  private catchingUp: Promise<void> = Promise.resolve();
  /** keepOpen: the handle appends and reads share, opened on first use. */
  private kept: Promise<FileHandle> | undefined;
  /** Appends and reads using the kept handle right now; it is closed only when none is. */
  private handleUsers = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Exclusive mode: where the next batch goes; past `end` while written batches await their sync. */
  private written = 0;
  /** Exclusive mode: settles once every batch written so far is folded in or cut off. */
  private settledTail: Promise<void> = Promise.resolve();
  /** Exclusive mode: written batches not yet folded in or cut off. */
  private outstanding = 0;
  /** Exclusive mode: a sync failed; no batch is written until every outstanding one is cut off. */
  private rollingBackBecause: unknown;
  /** Exclusive mode: an asynchronous write in progress (large batches), awaited before a cut. */
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private end: number,
    private readonly onBatch: BatchListener,
    private readonly logger: Logger,
    private readonly shared: boolean,
    private readonly options: RecordLogOptions,
  ) {}

  /** Bytes of whole batches: everything a reader may see. */
  get endOffset(): number {
    return this.end;
  }

  /**
   * Open (or prepare to create) the log, calling `onBatch` with every whole batch in order, now
   * and for every batch appended later (by this object, or found by `catchUp`). Exclusive mode
   * cuts a crash-torn tail here.
   */
  static async open(
    path: string,
    onBatch: BatchListener,
    logger: Logger,
    options: RecordLogOptions = {},
  ): Promise<RecordLogFile> {
    const shared = options.shared ?? false;
    const log = new RecordLogFile(path, 0, onBatch, logger, shared, options);
    // Exclusive: nobody else writes, so a damaged tail is a crash tail. Shared: it may be a batch
    // being written right now; only a writer holding the lock may cut it (catchUp with the lock).
    await log.scanFrom(shared ? 'lenient' : 'repair');
    log.written = log.end;
    return log;
  }

  /**
   * Shared mode: fold in the whole batches other processes appended since we last looked (one
   * `stat` when nothing changed). `holdingLock`: the caller holds the file's cross-process write
   * lock, so nobody is writing and a damaged tail is a crash tail to cut off (as on open in
   * exclusive mode); without it, scanning stops quietly at the first incomplete batch.
   */
  catchUp(holdingLock: boolean): Promise<void> {
    const next = this.catchingUp.then(() => this.scanFrom(holdingLock ? 'repair' : 'lenient'));
    this.catchingUp = next.catch(() => undefined);
    return next;
  }

  /**
   * Append one batch atomically (all or, after a crash, nothing), fsync it and fold it in.
   * Shared mode: call with the file's cross-process lock held, after `catchUp(true)`.
   * Exclusive mode: `write` and wait until it is durable.
   */
  async append(values: readonly unknown[]): Promise<RecordLocation[]> {
    if (!this.shared) return (await this.write(values)).durable;
    this.ensureUsable();
    const lines = values.map((value, index) => encodeRecordLine(value, values.length - 1 - index));
    const data = lines.length === 1 ? lines[0]! : Buffer.concat(lines);
    const start = this.end;
    const creating = start === 0;
    if (creating) await ensureDirectory(dirname(this.path));
    const handle = await this.acquireHandle(constants.O_RDWR | constants.O_CREAT);
    try {
      try {
        await writeFully(handle, data, start);
        if (this.options.groupCommit) await this.options.groupCommit.sync(handle);
        else await handle.datasync();
      } catch (error) {
        // Leave no partial batch behind for the next append to land after; if even that fails (or,
        // shared, a reader already folded the batch in), refuse further appends until a reopen.
        if (this.end !== start) this.unusableBecause = error;
        await handle.truncate(start).catch((truncateError: unknown) => {
          this.unusableBecause = truncateError;
        });
        throw error;
      }
    } finally {
      await this.releaseHandle(handle);
    }
    if (creating) await syncDirectory(dirname(this.path));
    const locations = locate(lines, values, start);
    // A catch-up of this process may already have folded the batch in (it was readable before
    // the fsync returned); the serialized catch-up folds it exactly once either way.
    await this.catchUp(false);
    if (this.end < start + data.length)
      throw new IntegrityError(`log ${this.path} lost a batch just written`);
    return locations.map(({ offset: at, length }) => ({ offset: at, length }));
  }

  /**
   * Exclusive mode: write one batch after every batch written so far and return once its bytes
   * are in the file; its `durable` promise settles after the sync (ADR-0130). The caller
   * serializes calls per log (the event store's thread lock) but need not wait for `durable`
   * before the next `write`, so appends to one log share syncs. `beforeWrite` runs right before
   * the bytes are written, with nothing awaited in between; throwing there writes nothing. Readers see a batch only once it
   * is durable and folded in; batches are folded in the order they were written. When a sync
   * fails, the batch and every batch written after it are cut off the file and rejected, and no
   * batch is written until all of them are.
   */
  async write(values: readonly unknown[], beforeWrite?: () => void): Promise<WrittenBatch> {
    if (this.shared) throw new Error(`log ${this.path} is shared: use append`);
    this.ensureUsable();
    const lines = values.map((value, index) => encodeRecordLine(value, values.length - 1 - index));
    const data = lines.length === 1 ? lines[0]! : Buffer.concat(lines);
    const start = this.written;
    const creating = start === 0;
    if (creating) await ensureDirectory(dirname(this.path));
    const handle = await this.acquireHandle(constants.O_RDWR | constants.O_CREAT);
    try {
      // A sync may have failed while we waited; a concurrent write is the caller's bug.
      this.ensureUsable();
      if (this.written !== start) throw new Error(`log ${this.path}: concurrent writes`);
      // The caller's last word, synchronously before the bytes go in (e.g. its seqs still hold).
      beforeWrite?.();
      this.written = start + data.length;
      if (data.length <= SYNCHRONOUS_WRITE_MAX_BYTES) {
        let done = 0;
        while (done < data.length) done += writeSync(handle.fd, data, done, data.length - done, start + done);
      } else {
        const writing = writeFully(handle, data, start);
        this.writing = writing.catch(() => undefined);
        await writing;
      }
    } catch (error) {
      if (this.written === start + data.length) {
        // Nothing was written after us (writes are serialized): cut our partial batch off.
        this.written = start;
        await handle.truncate(start).catch((truncateError: unknown) => {
          this.unusableBecause = truncateError;
        });
      }
      await this.releaseHandle(handle);
      throw error;
    }
    this.outstanding += 1;
    const previous = this.settledTail;
    const durable = this.settle(handle, start, data.length, lines, values, creating, previous);
    this.settledTail = durable.then(
      () => undefined,
      () => undefined,
    );
    return { durable };
  }

  /** Wait until every batch written so far is durable and folded in, or cut off. */
  settled(): Promise<void> {
    return this.settledTail;
  }

  /** Sync one written batch, then (after every earlier batch) fold it in or cut it off. */
  private async settle(
    handle: FileHandle,
    start: number,
    length: number,
    lines: Buffer[],
    values: readonly unknown[],
    creating: boolean,
    previous: Promise<void>,
  ): Promise<RecordLocation[]> {
    let syncError: unknown;
    let synced = true;
    try {
      if (this.options.groupCommit) await this.options.groupCommit.sync(handle);
      else await handle.datasync();
    } catch (error) {
      synced = false;
      syncError = error;
      // From now on nothing is written until this batch and all after it are cut off.
      this.rollingBackBecause ??= error;
    }
    await previous;
    try {
      if (this.end !== start) {
        // An earlier batch could not be made durable and was cut off with everything after it.
        this.options.onCutOff?.(values);
        throw new CompactorError('unavailable', `log ${this.path}: an earlier write failed; retry`, {
          cause: this.rollingBackBecause,
          isRetryable: true,
        });
      }
      if (synced && creating) {
        try {
          await syncDirectory(dirname(this.path));
        } catch (error) {
          synced = false;
          syncError = error;
          this.rollingBackBecause ??= error;
        }
      }
      if (!synced) {
        // Cut this batch and every batch written after it (all rejected above) off the file.
        await this.writing;
        this.written = start;
        await handle.truncate(start).catch((truncateError: unknown) => {
          this.unusableBecause = truncateError;
        });
        this.options.onCutOff?.(values);
        throw syncError;
      }
      const locations = locate(lines, values, start);
      this.end = start + length;
      this.onBatch(locations);
      return locations.map(({ offset: at, length: bytes }) => ({ offset: at, length: bytes }));
    } finally {
      this.outstanding -= 1;
      if (this.outstanding === 0) this.rollingBackBecause = undefined;
      await this.releaseHandle(handle);
    }
  }

  private ensureUsable(): void {
    if (this.unusableBecause !== undefined) {
      throw new CompactorError('unavailable', `log ${this.path} could not be repaired after a failed write`, {
        cause: this.unusableBecause,
        isRetryable: true,
      });
    }
    if (this.rollingBackBecause !== undefined) {
      throw new CompactorError('unavailable', `log ${this.path}: a sync failed; retry`, {
        cause: this.rollingBackBecause,
        isRetryable: true,
      });
    }
  }

  /** The records in a byte range of whole records, each checked against its CRC. */
  async read(offset: number, length: number): Promise<unknown[]> {
    if (length === 0) return [];
    const handle = await this.acquireHandle('r');
    const buffer = Buffer.allocUnsafe(length);
    try {
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
        if (bytesRead === 0)
          throw new IntegrityError(`log ${this.path} is shorter than its index`, { offset, length });
        filled += bytesRead;
      }
    } finally {
      await this.releaseHandle(handle);
    }
    const values: unknown[] = [];
    let start = 0;
    while (start < buffer.length) {
      const newline = buffer.indexOf(NEWLINE, start);
      const decoded = newline === -1 ? null : decodeRecordLine(buffer.subarray(start, newline));
      if (!decoded) throw new IntegrityError(`damaged record in ${this.path}`, { offset: offset + start });
      values.push(decoded.value);
      start = newline + 1;
    }
    return values;
  }

  /** Close the kept handle (keepOpen); the next append or read opens it again. */
  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const kept = this.kept;
    this.kept = undefined;
    if (kept) await (await kept.catch(() => undefined))?.close();
  }

  /** The kept handle (keepOpen), else a handle of its own for one append or read. */
  private async acquireHandle(unkeptFlags: string | number): Promise<FileHandle> {
    if (!this.options.keepOpen) return open(this.path, unkeptFlags);
    this.handleUsers += 1;
    try {
      if (!this.kept) {
        const opening = open(this.path, constants.O_RDWR | constants.O_CREAT);
        // A failed open is not kept: the next call tries again.
        opening.catch(() => {
          if (this.kept === opening) this.kept = undefined;
        });
        this.kept = opening;
      }
      return await this.kept;
    } catch (error) {
      this.handleUsers -= 1;
      throw error;
    }
  }

  private async releaseHandle(handle: FileHandle): Promise<void> {
    if (!this.options.keepOpen) {
      await handle.close();
      return;
    }
    this.handleUsers -= 1;
    if (this.handleUsers > 0) return;
    // Idle logs give their descriptor back: a store with thousands of resident threads holds open
    // only the files in use, and a file system can be remounted read-only once writes pause.
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = undefined;
        if (this.handleUsers === 0) void this.close().catch(() => undefined);
      }, this.options.idleCloseMs ?? DEFAULT_IDLE_CLOSE_MS);
      this.idleTimer.unref();
    }
  }

  /** Every record of every whole batch (shared mode: including other processes' latest). */
  async readAll(): Promise<unknown[]> {
    if (this.shared) await this.catchUp(false);
    return this.read(0, this.end);
  }

  /**
   * Scan from the end of the last whole batch known to the end of the file. `repair`: damage
   * followed by intact records raises IntegrityError, a damaged or incomplete tail is cut off.
   * `lenient`: stop at the first incomplete batch or damage, change nothing.
   */
  private async scanFrom(mode: 'repair' | 'lenient'): Promise<void> {
    let handle: FileHandle;
    try {
      handle = await open(this.path, constants.O_RDWR);
    } catch (error) {
      if (isMissingFileError(error)) {
        if (this.end > 0) throw new IntegrityError(`log ${this.path} disappeared`);
        return;
      }
      throw error;
    }
    try {
      const size = (await handle.stat()).size;
      if (size === this.end) return;
      if (size < this.end) {
        throw new IntegrityError(`log ${this.path} is shorter than its index`, { size, end: this.end });
      }
      const validEnd = await scanBatches(handle, this.end, size, this.path, mode, (records) => {
        this.onBatch(records);
        const last = records.at(-1)!;
        this.end = last.offset + last.length;
      });
      if (mode === 'repair' && validEnd < size) {
        await handle.truncate(validEnd);
        await handle.sync();
        this.logger.warn(
          { path: this.path, keptBytes: validEnd, droppedBytes: size - validEnd },
          'cut a torn tail off a log file',
        );
      }
    } finally {
      await handle.close();
    }
  }
}

async function writeFully(handle: FileHandle, data: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await handle.write(data, written, data.length - written, position + written);
    written += bytesWritten;
  }
}

/** Where each line of a batch written at `start` lands, with its value. */
function locate(lines: readonly Buffer[], values: readonly unknown[], start: number): ScannedRecord[] {
  const locations: ScannedRecord[] = [];
  let offset = start;
  for (const [index, line] of lines.entries()) {
    locations.push({ offset, length: line.length, value: values[index] });
    offset += line.length;
  }
  return locations;
}

/** Walk the file batch by batch; returns where the intact part ends. */
async function scanBatches(
  handle: FileHandle,
  from: number,
  size: number,
  path: string,
  mode: 'repair' | 'lenient',
  onBatch: (records: ScannedRecord[]) => void,
): Promise<number> {
  let validEnd = from;
  let batch: ScannedRecord[] = [];
  let expectedLeft: number | null = null;
  let damagedAt: number | null = null;
  for await (const { offset, line, complete } of readLines(handle, from, size)) {
    const decoded = complete ? decodeRecordLine(line) : null;
    if (damagedAt !== null) {
      if (mode === 'lenient') break;
      if (decoded) {
        throw new IntegrityError(`log ${path} is damaged at byte ${damagedAt}, before intact records`, {
          path,
          damagedAt,
          intactRecordAt: offset,
        });
      }
      continue;
    }
    if (!decoded || (expectedLeft !== null && decoded.recordsLeftInBatch !== expectedLeft)) {
      damagedAt = offset;
      continue;
    }
    batch.push({ offset, length: line.length + 1, value: decoded.value });
    if (decoded.recordsLeftInBatch === 0) {
      onBatch(batch);
      validEnd = offset + line.length + 1;
      batch = [];
      expectedLeft = null;
    } else {
      expectedLeft = decoded.recordsLeftInBatch - 1;
    }
  }
  return validEnd;
}
