import { IntegrityError, type StoredEvent, type ThreadMetadata } from '@compactor/core';
import type { RecordLocation, RecordLogFile } from '../files/record-log.js';
import { stringBytes } from '../memory/resident-cache.js';

/** The index's own objects, its log handle and its metadata strings. */
const BASE_BYTES = 1_024;
/** One slot of `recordOffsets` plus a Map or Set entry's own overhead. */
const PER_ENTRY_BYTES = 40;

/**
 * What the store keeps in memory per thread: where each event's record starts in the log, the
 * ids it has seen, and the running totals of the thread's metadata. Events themselves stay on disk.
 */
export class ThreadIndex {
  tenantId: string | undefined;
  threadId: string | undefined;
  /** recordOffsets[seq - 1] is where event `seq` starts in the log. */
  readonly recordOffsets: number[] = [];
  /**
   * Where the last indexed event ends. Kept here rather than read from the log, whose end moves
   * a moment before the index catches up: a reader must never see bytes the index does not cover.
   */
  private indexedEnd = 0;
  readonly seqByEventId = new Map<string, number>();
  readonly messageIds = new Set<string>();
  model = '';
  contextWindow = 0;
  createdAt = '';
  updatedAt = '';
  messageCount = 0;
  messageTokens = 0;
  compactionPending = false;
  /** What the index holds in memory, roughly: the event cache's budget is counted in these. */
  approximateBytes = BASE_BYTES;

  private attachedLog: RecordLogFile | undefined;

  /** `path` names the log in errors; the log itself is attached once opened. */
  constructor(private readonly path: string) {}

  get log(): RecordLogFile {
    if (!this.attachedLog) throw new Error(`log ${this.path} is not open yet`);
    return this.attachedLog;
  }

  attach(log: RecordLogFile): void {
    this.attachedLog = log;
  }

  get version(): number {
    return this.recordOffsets.length;
  }

  /** Byte range of events `fromSeq`..`toSeq` (inclusive) in the log. */
  byteRange(fromSeq: number, toSeq: number): { offset: number; length: number } {
    const offset = this.recordOffsets[fromSeq - 1]!;
    const end = toSeq < this.version ? this.recordOffsets[toSeq]! : this.indexedEnd;
    return { offset, length: end - offset };
  }

  recordLength(seq: number): number {
    return this.byteRange(seq, seq).length;
  }

  /** Fold one stored event in (on load, and after each append). */
  add(event: StoredEvent, location: RecordLocation): void {
    const expectedSeq = this.version + 1;
    if (event.seq !== expectedSeq) {
      throw new IntegrityError(`log ${this.path} has seq ${event.seq} where ${expectedSeq} belongs`);
    }
    if (this.tenantId === undefined) {
      this.tenantId = event.tenantId;
      this.threadId = event.threadId;
    } else if (event.tenantId !== this.tenantId || event.threadId !== this.threadId) {
      throw new IntegrityError(`log ${this.path} holds an event of another thread`, { seq: event.seq });
    }
    this.recordOffsets.push(location.offset);
    this.indexedEnd = location.offset + location.length;
    this.seqByEventId.set(event.eventId, event.seq);
    this.approximateBytes += PER_ENTRY_BYTES + stringBytes(event.eventId);
    this.updatedAt = event.timestamp;
    if (event.type === 'thread.created') {
      this.model = event.model;
      this.contextWindow = event.contextWindow;
      this.createdAt = event.timestamp;
    } else if (event.type === 'message.appended') {
      this.messageIds.add(event.message.id);
      this.approximateBytes += PER_ENTRY_BYTES + stringBytes(event.message.id);
      this.messageCount += 1;
      this.messageTokens += event.tokens ?? 0;
    }
  }

  metadata(): ThreadMetadata {
    return {
      tenantId: this.tenantId!,
      threadId: this.threadId!,
      model: this.model,
      contextWindow: this.contextWindow,
      version: this.version,
      eventCount: this.version,
      messageCount: this.messageCount,
      messageTokens: this.messageTokens,
      createdAt: this.createdAt,
      updatedAt: this.updatedAt,
      compactionPending: this.compactionPending,
    };
  }
}
