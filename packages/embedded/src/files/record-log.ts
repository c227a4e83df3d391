import { constants } from 'node:fs';
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
   */
  async append(values: readonly unknown[]): Promise<RecordLocation[]> {
    if (this.unusableBecause !== undefined) {
      throw new CompactorError('unavailable', `log ${this.path} could not be repaired after a failed write`, {
        cause: this.unusableBecause,
        isRetryable: true,
      });
    }
    const lines = values.map((value, index) => encodeRecordLine(value, values.length - 1 - index));
    const data = lines.length === 1 ? lines[0]! : Buffer.concat(lines);
    const start = this.end;
    const creating = start === 0;
    if (creating) await ensureDirectory(dirname(this.path));
    const handle = await this.acquireHandle(constants.O_RDWR | constants.O_CREAT);
    try {
      try {
        let written = 0;
        while (written < data.length) {
          const { bytesWritten } = await handle.write(data, written, data.length - written, start + written);
          written += bytesWritten;
        }
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
    const locations: ScannedRecord[] = [];
    let offset = start;
    for (const [index, line] of lines.entries()) {
      locations.push({ offset, length: line.length, value: values[index] });
      offset += line.length;
    }
    if (this.shared) {
      // A catch-up of this process may already have folded the batch in (it was readable before
      // the fsync returned); the serialized catch-up folds it exactly once either way.
      await this.catchUp(false);
      if (this.end < offset) throw new IntegrityError(`log ${this.path} lost a batch just written`);
    } else {
      this.end = offset;
      this.onBatch(locations);
    }
    return locations.map(({ offset: at, length }) => ({ offset: at, length }));
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
