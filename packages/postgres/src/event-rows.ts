import { createHash } from 'node:crypto';
import {
  canonicalEventContent,
  type EventInput,
  type StoredEvent,
  type ThreadMetadata,
} from '@compactor/core';

/** An input of the batch with the hash idempotent retries compare. */
export interface HashedInput {
  input: EventInput;
  contentHash: string;
}

export function hashInput(input: EventInput): HashedInput {
  return { input, contentHash: createHash('sha256').update(canonicalEventContent(input)).digest('hex') };
}

/** The stored event for an input placed at `seq`; the store sets the timestamp when the client did not. */
export function storedEventFromInput(
  input: EventInput,
  place: { tenantId: string; threadId: string; seq: number; timestamp: string },
): StoredEvent {
  return { ...input, ...place, timestamp: input.timestamp ?? place.timestamp } as StoredEvent;
}

/** A `threads` row as the driver returns it (bigint arrives as a string). */
export interface ThreadRow {
  tenant_id: string;
  thread_id: string;
  model: string;
  context_window: number;
  version: number;
  event_count: number;
  message_count: number;
  message_tokens: string | number;
  created_at: string;
  updated_at: string;
  compaction_pending: boolean;
}

export const THREAD_COLUMNS =
  'tenant_id, thread_id, model, context_window, version, event_count, message_count, message_tokens, created_at, updated_at, compaction_pending';

export function threadRowToMetadata(row: ThreadRow): ThreadMetadata {
  return {
    tenantId: row.tenant_id,
    threadId: row.thread_id,
    model: row.model,
    contextWindow: row.context_window,
    version: row.version,
    eventCount: row.event_count,
    messageCount: row.message_count,
    messageTokens: Number(row.message_tokens),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    compactionPending: row.compaction_pending,
  };
}

/** What a batch of new events adds to its thread's totals. */
export function batchTotals(events: readonly StoredEvent[]): { messageCount: number; messageTokens: number } {
  let messageCount = 0;
  let messageTokens = 0;
  for (const event of events) {
    if (event.type !== 'message.appended') continue;
    messageCount += 1;
    messageTokens += event.tokens ?? 0;
  }
  return { messageCount, messageTokens };
}
