import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { CompactorError, IntegrityError, type Logger } from '@compactor/core';
import { ensureDirectory, isMissingFileError, syncDirectory } from './durable-files.js';

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
  size: number,
): AsyncGenerator<{ offset: number; line: Buffer; complete: boolean }> {
  let pending = Buffer.alloc(0);
  let pendingOffset = 0;
  let position = 0;
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

export class RecordLogFile {
  private unusableBecause: unknown;

  private constructor(
    readonly path: string,
    private end: number,
  ) {}

  /** Bytes of whole batches: everything a reader may see. */
  get endOffset(): number {
    return this.end;
  }

  /**
   * Open (or prepare to create) the log, calling `onBatch` with every whole batch in order,
   * and cut off a crash-torn tail.
   */
  static async open(
    path: string,
    onBatch: (records: ScannedRecord[]) => void,
    logger: Logger,
  ): Promise<RecordLogFile> {
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_RDWR);
    } catch (error) {
      if (isMissingFileError(error)) return new RecordLogFile(path, 0);
      throw error;
    }
    try {
      const size = (await handle.stat()).size;
      const validEnd = await scanBatches(handle, size, path, onBatch);
      if (validEnd < size) {
        await handle.truncate(validEnd);
        await handle.sync();
        logger.warn(
          { path, keptBytes: validEnd, droppedBytes: size - validEnd },
          'cut a torn tail off a log file',
        );
      }
      return new RecordLogFile(path, validEnd);
    } finally {
      await handle.close();
    }
  }

  /** Append one batch atomically (all or, after a crash, nothing) and fsync it. */
  async append(values: readonly unknown[]): Promise<RecordLocation[]> {
    if (this.unusableBecause !== undefined) {
      throw new CompactorError('unavailable', `log ${this.path} could not be repaired after a failed write`, {
        cause: this.unusableBecause,
        isRetryable: true,
      });
    }
    const lines = values.map((value, index) => encodeRecordLine(value, values.length - 1 - index));
    const data = lines.length === 1 ? lines[0]! : Buffer.concat(lines);
    const creating = this.end === 0;
    if (creating) await ensureDirectory(dirname(this.path));
    const handle = await open(this.path, constants.O_RDWR | constants.O_CREAT);
    try {
      try {
        let written = 0;
        while (written < data.length) {
          const { bytesWritten } = await handle.write(
            data,
            written,
            data.length - written,
            this.end + written,
          );
          written += bytesWritten;
        }
        await handle.datasync();
      } catch (error) {
        // Leave no partial batch behind for the next append to land after; if even that fails,
        // refuse further appends until a reopen has cut the tail.
        await handle.truncate(this.end).catch((truncateError: unknown) => {
          this.unusableBecause = truncateError;
        });
        throw error;
      }
    } finally {
      await handle.close();
    }
    if (creating) await syncDirectory(dirname(this.path));
    const locations: RecordLocation[] = [];
    let offset = this.end;
    for (const line of lines) {
      locations.push({ offset, length: line.length });
      offset += line.length;
    }
    this.end = offset;
    return locations;
  }

  /** The records in a byte range of whole records, each checked against its CRC. */
  async read(offset: number, length: number): Promise<unknown[]> {
    if (length === 0) return [];
    const handle = await open(this.path, 'r');
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
      await handle.close();
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

  /** Every record of every whole batch. */
  async readAll(): Promise<unknown[]> {
    return this.read(0, this.end);
  }
}

/** Walk the file batch by batch; returns where the intact part ends. */
async function scanBatches(
  handle: FileHandle,
  size: number,
  path: string,
  onBatch: (records: ScannedRecord[]) => void,
): Promise<number> {
  let validEnd = 0;
  let batch: ScannedRecord[] = [];
  let expectedLeft: number | null = null;
  let damagedAt: number | null = null;
  for await (const { offset, line, complete } of readLines(handle, size)) {
    const decoded = complete ? decodeRecordLine(line) : null;
    if (damagedAt !== null) {
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
