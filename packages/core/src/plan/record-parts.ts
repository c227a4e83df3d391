import type { CompactionRecord } from './records.js';

/**
 * The records a record was made of, when its span names exactly the ids their spans name together (a merged
 * summary block is its two inputs' union, a re-trimmed block its one input's span): an owner map that holds
 * those parts points their ids at the new record without reading them (ADR-0455). Recorded by the maker,
 * in this process only; a record without parts here is read id by id.
 */
const partsOfRecords = new WeakMap<CompactionRecord, readonly CompactionRecord[]>();

/**
 * Records that `record` names exactly the ids `parts` name together (each id once, any order).
 *
 * @param record - A record just made.
 * @param parts - The records it was made of.
 */
export function rememberRecordParts(record: CompactionRecord, parts: readonly CompactionRecord[]): void {
  partsOfRecords.set(record, parts);
}

/**
 * The records `record` was made of, as `rememberRecordParts` recorded them.
 *
 * @param record - A record.
 * @returns Its parts, or undefined when its maker recorded none.
 */
export function recordParts(record: CompactionRecord): readonly CompactionRecord[] | undefined {
  return partsOfRecords.get(record);
}
