import type { Message } from '@compactor/core';
import { toIsoTimestamp } from '../shared/timestamps.js';
import { asNumber, asString, type JsonObject } from '../shared/values.js';
import type { PiCompaction } from '../types.js';

/** A session record with its position among the session's records (header = 0). */
export interface PiEntry {
  value: JsonObject;
  /** The unit of `firstKeptEntryIndex`. */
  index: number;
  line: number;
}

/** Point a compaction record at the thread's messages: where it happened, what it kept. */
export function resolveCompaction(
  entry: PiEntry,
  messages: readonly Message[],
  recordIndexByDraftId: Map<string, number>,
  all: PiEntry[],
): PiCompaction {
  const { value } = entry;
  const firstKeptEntryIndex = asNumber(value.firstKeptEntryIndex);
  const firstKeptEntryId = asString(value.firstKeptEntryId);
  const keptIndex =
    firstKeptEntryIndex ??
    (firstKeptEntryId === undefined ? undefined : all.find((e) => e.value.id === firstKeptEntryId)?.index);
  let atMessageId: string | undefined;
  let firstKeptMessageId: string | undefined;
  // Messages added by repairs have no record of their own: they sit where their neighbours do.
  let position = -1;
  for (const message of messages) {
    position = recordIndexByDraftId.get(message.id) ?? position;
    if (position < entry.index) atMessageId = message.id;
    if (
      firstKeptMessageId === undefined &&
      keptIndex !== undefined &&
      recordIndexByDraftId.has(message.id) &&
      position >= keptIndex
    ) {
      firstKeptMessageId = message.id;
    }
  }
  return {
    atMessageId,
    summary: asString(value.summary) ?? '',
    tokensBefore: asNumber(value.tokensBefore),
    firstKeptEntryIndex,
    firstKeptEntryId,
    firstKeptMessageId,
    timestamp: toIsoTimestamp(value.timestamp),
  };
}
