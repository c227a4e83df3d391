import {
  type EventInput,
  eventInputSchema,
  type FieldIssue,
  fieldIssuesFrom,
  type StoredEvent,
  stableStringify,
  ValidationError,
} from '@compactor/core';

/** Validate a batch with core's schema; issue paths start with the event's index in the batch. */
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
      issues.push(...fieldIssuesFrom(result.error.issues, index));
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
