import { type FieldIssue, fieldIssuesFrom, ValidationError } from '../errors.js';
import { type EventInput, eventInputSchema, type StoredEvent } from '../schemas/events.js';
import { stableStringify } from '../stable-json.js';

/**
 * The append rules of the `EventStore` port, written once for every adapter (embedded, MongoDB,
 * PostgreSQL; ADR-0074). An adapter's `append` calls them in the port's order:
 *
 * 1. `requireIds({ tenantId, threadId })` and `parseEventBatch(events)` before touching storage;
 * 2. `canonicalEventContent` to compare each batch event with a stored event of the same id
 *    (different content: `IdempotencyConflictError`; all stored: return them as a retry);
 * 3. the expected version;
 * 4. `checkThreadRules(threadExists, fresh, storedMessageIds)` on the events still to store, where
 *    `storedMessageIds` are those of `messageIdsOf(fresh)` the thread already holds.
 *
 * Each throws a `ValidationError` whose issue paths start with the event's position in the batch
 * (e.g. `2.message.role`), listing every issue at once.
 */

/**
 * Tenant and thread ids (or any other named ids) must be non-empty strings.
 *
 * @param ids name → value, e.g. `{ tenantId, threadId }`
 * @throws ValidationError naming each id that is not a non-empty string
 */
export function requireIds(ids: Record<string, unknown>): void {
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(ids)) {
    if (typeof value !== 'string' || value.length === 0) {
      issues.push({ path: name, message: `${name} must be a non-empty string` });
    }
  }
  if (issues.length > 0) throw new ValidationError('invalid identifiers', issues);
}

/**
 * Batches whose every event was parsed by `eventInputSchema` a moment ago, by a caller that then
 * only added fields the schema allows (the ingest's route: its body schema is this schema, then it
 * adds token counts). A WeakSet rather than a type brand alone, so no cast can forge the mark.
 */
const validatedBatches = new WeakSet<readonly EventInput[]>();

/**
 * Mark a batch as already validated against `eventInputSchema`, so `parseEventBatch` (in every
 * store adapter) does not parse each event a second time; ids are still checked for repeats.
 * Only for events parsed by that schema (the ingest's route) and not changed since except by
 * schema-valid fields. See ADR-0096.
 *
 * @returns the same array, marked
 */
export function markEventBatchValidated(events: EventInput[]): EventInput[] {
  validatedBatches.add(events);
  return events;
}

function checkDistinctIds(events: readonly EventInput[]): EventInput[] {
  const seenIds = new Set<string>();
  const issues: FieldIssue[] = [];
  events.forEach((event, index) => {
    if (seenIds.has(event.eventId)) {
      issues.push({ path: `${index}.eventId`, message: `event id ${event.eventId} appears twice` });
    }
    seenIds.add(event.eventId);
  });
  if (issues.length > 0) throw new ValidationError('invalid events', issues);
  return [...events];
}

/**
 * Validate a batch before anything is written: a non-empty array, every event against
 * `eventInputSchema`, each event id once.
 *
 * @param events the batch as the caller sent it
 * @returns the validated events (defaults applied), in batch order
 * @throws ValidationError listing every bad event and repeated id
 */
export function parseEventBatch(events: readonly unknown[]): EventInput[] {
  if (!Array.isArray(events) || events.length === 0) {
    throw new ValidationError('an append needs at least one event', [
      { path: '', message: 'expected a non-empty array of events' },
    ]);
  }
  if (validatedBatches.has(events)) return checkDistinctIds(events as EventInput[]);
  const issues: FieldIssue[] = [];
  const parsed: EventInput[] = [];
  const seenIds = new Set<string>();
  events.forEach((event, index) => {
    const result = eventInputSchema.safeParse(event);
    if (!result.success) {
      issues.push(...fieldIssuesFrom(result.error.issues, index));
      return;
    }
    if (seenIds.has(result.data.eventId)) {
      issues.push({ path: `${index}.eventId`, message: `event id ${result.data.eventId} appears twice` });
    }
    seenIds.add(result.data.eventId);
    parsed.push(result.data);
  });
  if (issues.length > 0) throw new ValidationError('invalid events', issues);
  return parsed;
}

/**
 * What idempotency compares: the validated event without its timestamp and without where it was
 * stored (tenant, thread, seq), so a retry may carry a later client timestamp.
 *
 * @param event a validated input or a stored event
 * @returns a canonical string; equal strings mean "the same event"
 */
export function canonicalEventContent(event: EventInput | StoredEvent): string {
  const {
    timestamp: _timestamp,
    tenantId: _tenantId,
    threadId: _threadId,
    seq: _seq,
    ...content
  } = event as Partial<StoredEvent>;
  return stableStringify(content);
}

/** An event of the batch that is not stored yet, with its position in the batch (for issue paths). */
export interface FreshEvent {
  input: EventInput;
  position: number;
}

/**
 * The thread rules for the events a batch adds: a thread that does not exist starts with
 * `thread.created` and has it nowhere else; a message id is used once per thread.
 *
 * @param threadExists whether the thread already has events (for this tenant)
 * @param fresh the batch's events not stored yet, in batch order
 * @param storedMessageIds the ids among `messageIdsOf(fresh)` the thread already holds
 * @throws ValidationError with every broken rule, at the event's batch position
 */
export function checkThreadRules(
  threadExists: boolean,
  fresh: readonly FreshEvent[],
  storedMessageIds: ReadonlySet<string>,
): void {
  const issues: FieldIssue[] = [];
  const batchMessageIds = new Set<string>();
  fresh.forEach(({ input, position }, index) => {
    const mustCreate = !threadExists && index === 0;
    if (mustCreate && input.type !== 'thread.created') {
      issues.push({
        path: `${position}.type`,
        message: `a new thread must start with thread.created, not ${input.type}`,
      });
    }
    if (!mustCreate && input.type === 'thread.created') {
      issues.push({
        path: `${position}.type`,
        message: 'thread.created may only be the first event of a new thread',
      });
    }
    if (input.type === 'message.appended') {
      const messageId = input.message.id;
      if (storedMessageIds.has(messageId) || batchMessageIds.has(messageId)) {
        issues.push({
          path: `${position}.message.id`,
          message: `message id ${messageId} is already in the thread`,
        });
      }
      batchMessageIds.add(messageId);
    }
  });
  if (issues.length > 0) throw new ValidationError('the batch breaks the thread rules', issues);
}

/**
 * The message ids of the batch's message events (to look up which the thread already holds).
 *
 * @param fresh - The batch's events not stored yet.
 * @returns Their message ids, in order.
 */
export function messageIdsOf(fresh: readonly FreshEvent[]): string[] {
  return fresh.flatMap(({ input }) => (input.type === 'message.appended' ? [input.message.id] : []));
}

/**
 * An append's expected version, checked; -1 and 0 both mean "the thread must not exist yet".
 *
 * @param expected the caller's expected version, if any
 * @returns the version to compare with the stored one (0 for a new thread), or undefined
 * @throws ValidationError when it is not an integer ≥ -1
 */
export function checkExpectedVersion(expected: number | undefined): number | undefined {
  if (expected === undefined) return undefined;
  if (!Number.isInteger(expected) || expected < -1) {
    throw new ValidationError('invalid expectedVersion', [
      { path: 'expectedVersion', message: 'must be an integer ≥ -1' },
    ]);
  }
  return Math.max(expected, 0);
}
