import { type FieldIssue, ValidationError } from '../errors.js';
import { type EventInput, eventInputSchema } from '../schemas/events.js';
import { stableStringify } from '../stable-json.js';

/**
 * Validate a batch before anything is written: every event against core's schema, and each
 * event id once per batch. All issues are reported together; paths start with the event's index
 * in the batch, e.g. `2.message.role`.
 */
export function parseEventBatch(events: readonly unknown[]): EventInput[] {
  if (!Array.isArray(events) || events.length === 0) {
    throw new ValidationError('an append needs at least one event', [
      { path: '', message: 'expected a non-empty array of events' },
    ]);
  }
  const issues: FieldIssue[] = [];
  const parsed: EventInput[] = [];
  const seenIds = new Set<string>();
  events.forEach((event, index) => {
    const result = eventInputSchema.safeParse(event);
    if (!result.success) {
      for (const issue of result.error.issues) {
        issues.push({ path: [index, ...issue.path.map(String)].join('.'), message: issue.message });
      }
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

/** Tenant and thread ids are required non-empty strings on every call. */
export function requireIds(ids: Record<string, unknown>): void {
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(ids)) {
    if (typeof value !== 'string' || value.length === 0) {
      issues.push({ path: name, message: `${name} must be a non-empty string` });
    }
  }
  if (issues.length > 0) throw new ValidationError('invalid identifiers', issues);
}

/** An event of the batch that is not stored yet, with its position in the batch (for issue paths). */
export interface FreshEvent {
  input: EventInput;
  position: number;
}

/**
 * The thread rules for the events a batch adds: a thread that does not exist starts with
 * `thread.created` and has it nowhere else; a message id is used once per thread
 * (`storedMessageIds` are the ids of the batch's messages already in the thread).
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

/** The message ids of the batch's message events. */
export function messageIdsOf(fresh: readonly FreshEvent[]): string[] {
  return fresh.flatMap(({ input }) => (input.type === 'message.appended' ? [input.message.id] : []));
}

/** An append's expected version, checked; -1 and 0 both mean "the thread must not exist yet". */
export function checkExpectedVersion(expected: number | undefined): number | undefined {
  if (expected === undefined) return undefined;
  if (!Number.isInteger(expected) || expected < -1) {
    throw new ValidationError('invalid expectedVersion', [
      { path: 'expectedVersion', message: 'must be an integer ≥ -1' },
    ]);
  }
  return Math.max(expected, 0);
}

/**
 * What idempotency compares: the validated input without its timestamp, canonically ordered, so
 * a retry with other key order or a later client timestamp is the same content.
 */
export function canonicalEventContent(input: EventInput): string {
  const { timestamp: _timestamp, ...content } = input;
  return stableStringify(content);
}
