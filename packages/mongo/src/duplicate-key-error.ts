/** MongoDB's duplicate key error code (E11000). */
export const DUPLICATE_KEY_CODE = 11000;

/** Which unique index a duplicate key error clashed on. */
export interface DuplicateKeyInfo {
  /** The fields of the unique index that clashed, e.g. ['tenantId', 'threadId', 'seq']. */
  fields: string[];
  /** The clashing values when the server reported them. */
  keyValue: Record<string, unknown> | undefined;
}

/**
 * Recognise an E11000 — a MongoServerError, or a MongoBulkWriteError whose write errors hold it —
 * and name the unique index fields that clashed: from `keyPattern` when the server sends it, else
 * from the index name in the message (our indexes keep MongoDB's default `field_1_field_1` names).
 * Reads plain objects too, so the mapping is unit-testable without a server.
 *
 * @param error - Anything caught from the driver.
 * @returns The clash, with no fields when none could be read; null when it is not an E11000.
 */
export function duplicateKeyInfo(error: unknown): DuplicateKeyInfo | null {
  for (const candidate of errorCandidates(error)) {
    if (candidate.code !== DUPLICATE_KEY_CODE) continue;
    const keyValue = isRecord(candidate.keyValue) ? candidate.keyValue : undefined;
    if (isRecord(candidate.keyPattern)) return { fields: Object.keys(candidate.keyPattern), keyValue };
    if (keyValue !== undefined) return { fields: Object.keys(keyValue), keyValue };
    const fields = fieldsFromMessage(messageOf(candidate));
    if (fields.length > 0) return { fields, keyValue };
  }
  const first = errorCandidates(error)[0];
  return first?.code === DUPLICATE_KEY_CODE ? { fields: [], keyValue: undefined } : null;
}

/** True when the clash was on an index whose fields include `field`. */
export function isDuplicateOn(info: DuplicateKeyInfo, field: string): boolean {
  return info.fields.includes(field);
}

// The error itself first, then each bulk write error and the raw server document it wraps.
function errorCandidates(error: unknown): Record<string, unknown>[] {
  if (!isRecord(error)) return [];
  const candidates: Record<string, unknown>[] = [error];
  const writeErrors = error.writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors === undefined ? [] : [writeErrors];
  for (const writeError of list) {
    if (!isRecord(writeError)) continue;
    if (isRecord(writeError.err)) candidates.push(writeError.err);
    candidates.push(writeError);
  }
  return candidates;
}

function messageOf(candidate: Record<string, unknown>): string {
  if (typeof candidate.errmsg === 'string') return candidate.errmsg;
  return typeof candidate.message === 'string' ? candidate.message : '';
}

// "E11000 duplicate key error collection: db.events index: tenantId_1_threadId_1_seq_1 dup key: { ... }"
function fieldsFromMessage(message: string): string[] {
  const indexName = /index: (\S+)/.exec(message)?.[1];
  if (indexName === undefined) return [];
  return indexName.split('_').filter((_, position) => position % 2 === 0);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
