import { type FieldIssue, ValidationError } from '../errors.js';
import { type EventInput, eventInputSchema, type StoredEvent } from '../schemas/events.js';
import { stableStringify } from '../stable-json.js';

/**
 * The append rules every EventStore applies before it writes (see the port and its contract
 * suite), for stores written after the embedded one: validate a batch with the schema (issue paths
 * start with the event's index), compare retried events by canonical content, and keep
 * `thread.created` first and message ids unique per thread.
 */
export function parseEventBatch(events: readonly EventInput[]): EventInput[] {
  if (!Array.isArray(events) || events.length === 0) {
    throw new ValidationError('a batch needs at least one event', [{ path: '', message: 'empty batch' }]);
  }
  const issues: FieldIssue[] = [];
  const parsed: EventInput[] = [];
  const seenIds = new Set<string>();
  events.forEach((event, index) => {
    const result = eventInputSchema.safeParse(event);
    if (!result.success) {
      for (const issue of result.error.issues) {
        issues.push({ path: [String(index), ...issue.path.map(String)].join('.'), message: issue.message });
      }
      return;
    }
    if (seenIds.has(result.data.eventId)) {
      issues.push({
        path: `${index}.eventId`,
        message: `event id ${result.data.eventId} appears twice in the batch`,
      });
    }
    seenIds.add(result.data.eventId);
    parsed.push(result.data);
  });
  if (issues.length > 0) throw new ValidationError('invalid events', issues);
  return parsed;
}

/** What idempotency compares: the validated event without where and when it was stored. */
export function canonicalEventContent(event: EventInput | StoredEvent): string {
  const { timestamp: _timestamp, ...content } = event as StoredEvent;
  const { tenantId: _tenantId, threadId: _threadId, seq: _seq, ...rest } = content as Partial<StoredEvent>;
  return stableStringify(rest);
}

/** thread.created opens a thread and appears nowhere else; message ids are unique per thread. */
export function checkThreadRules(
  thread: { version: number; messageIds: ReadonlySet<string> },
  fresh: readonly EventInput[],
): void {
  const isNew = thread.version === 0;
  if (isNew && fresh[0]?.type !== 'thread.created') {
    throw new ValidationError('a new thread must start with a thread.created event', [
      { path: '0.type', message: 'expected thread.created' },
    ]);
  }
  const batchMessageIds = new Set<string>();
  fresh.forEach((event, index) => {
    if (event.type === 'thread.created' && !(isNew && index === 0)) {
      throw new ValidationError('thread.created may only start a new thread', [
        { path: `${index}.type`, message: 'thread already exists' },
      ]);
    }
    if (event.type === 'message.appended') {
      const messageId = event.message.id;
      if (thread.messageIds.has(messageId) || batchMessageIds.has(messageId)) {
        throw new ValidationError(`message id ${messageId} is already in the thread`, [
          { path: `${index}.message.id`, message: 'duplicate message id' },
        ]);
      }
      batchMessageIds.add(messageId);
    }
  });
}
