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
  /**
   * Events written to the log but not yet durable (ADR-0130): they hold their seqs, ids and
   * message ids for the appends behind them, but no reader sees them until they are folded in
   * (`add`) — or forgotten (`forget`) when their sync failed.
   */
  private readonly pendingEventIds = new Set<string>();
  private readonly pendingMessageIds = new Set<string>();
  private pendingCount = 0;

  /** `path` names the log in errors; the log itself is attached once opened. */
  constructor(private readonly path: string) {}

  get log(): RecordLogFile {
    if (!this.attachedLog) throw new Error(`log ${this.path} is not open yet`);
    return this.attachedLog;
  }

  attach(log: RecordLogFile): void {
    this.attachedLog = log;
  }

  /** The durable version: what readers see. */
  get version(): number {
    return this.recordOffsets.length;
  }

  /** The version once every written event is durable: the next event's seq is this plus one. */
  get writtenVersion(): number {
    return this.recordOffsets.length + this.pendingCount;
  }

  get hasPending(): boolean {
    return this.pendingCount > 0;
  }

  /** True when the event id or the message id is held by an event written but not yet durable. */
  isPending(eventId: string, messageId: string | undefined): boolean {
    return (
      this.pendingEventIds.has(eventId) || (messageId !== undefined && this.pendingMessageIds.has(messageId))
    );
  }

  /** Events were written (seqs from `writtenVersion + 1`), not yet durable. */
  addPending(events: readonly StoredEvent[]): void {
    for (const event of events) {
      this.pendingEventIds.add(event.eventId);
      if (event.type === 'message.appended') this.pendingMessageIds.add(event.message.id);
    }
    this.pendingCount += events.length;
  }

  /** Pending events that were cut off the log (their sync failed): their seqs are free again. */
  forget(events: readonly StoredEvent[]): void {
    for (const event of events) {
      if (!this.pendingEventIds.delete(event.eventId)) continue;
      if (event.type === 'message.appended') this.pendingMessageIds.delete(event.message.id);
      this.pendingCount -= 1;
    }
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
    if (this.pendingEventIds.delete(event.eventId)) {
      this.pendingCount -= 1;
      if (event.type === 'message.appended') this.pendingMessageIds.delete(event.message.id);
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
