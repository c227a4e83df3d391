import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { eventInputIntersectionSchema, eventInputSchema } from '../src/index.js';
import { arbitraryThreadEvents } from './support/testkit.js';

/** What a client could send: events of every type, well formed or broken in one or two places. */
const storedEvents = arbitraryThreadEvents().map((events) =>
  events.map(({ tenantId: _tenant, threadId: _thread, seq: _seq, ...input }) => input),
);

const otherEvents = fc.constantFrom<Record<string, unknown>[]>([
  { eventId: 'b', type: 'thread.branched', sourceThreadId: 's', fromMessageId: 'm', sourceVersion: 2 },
  { eventId: 'p', type: 'plan.committed', planVersion: 1, basedOnSeq: 3, tokensBefore: 9, tokensAfter: 4 },
  { eventId: 'l', type: 'lifecycle', name: 'compaction_completed', details: { a: 1 } },
  { eventId: 'l2', type: 'lifecycle', name: 'compaction_failed' },
  { eventId: 'u', type: 'policy.updated', patch: { keepRecentTurns: 2 }, requesterId: 'key-1' },
  { eventId: 'c', type: 'context.registered', system: 'be brief' },
  { eventId: 'c2', type: 'context.registered', tools: [{ name: 't', inputSchema: { type: 'object' } }] },
]);

const breakage = fc.oneof(
  fc.constant({ field: 'eventId', value: '' }),
  fc.constant({ field: 'eventId', value: 'x'.repeat(201) }),
  fc.constant({ field: 'eventId', value: undefined }),
  fc.constant({ field: 'timestamp', value: 'yesterday' }),
  fc.constant({ field: 'timestamp', value: '2025-01-01T00:00:00+02:00' }),
  fc.constant({ field: 'tokens', value: -1 }),
  fc.constant({ field: 'tokens', value: 2.5 }),
  fc.constant({ field: 'tokens', value: 7 }),
  fc.constant({ field: 'type', value: 'message.deleted' }),
  fc.constant({ field: 'type', value: 42 }),
  fc.constant({ field: 'message', value: { id: 'm', role: 'tool', content: [] } }),
  fc.constant({ field: 'unknownField', value: 'dropped by both' }),
  fc.constant({ field: 'model', value: '' }),
  fc.constant({ field: 'name', value: 'compaction_exploded' }),
  fc.constant({ field: 'planVersion', value: 0 }),
);

const inputs = fc
  .tuple(
    fc.oneof(storedEvents, otherEvents),
    fc.array(fc.tuple(fc.nat(), fc.array(breakage, { maxLength: 2 })), { maxLength: 4 }),
  )
  .map(([events, breaks]) => {
    const list: unknown[] = events.map((event) => ({ ...event }));
    for (const [at, changes] of breaks) {
      const event = list[at % list.length] as Record<string, unknown>;
      for (const { field, value } of changes) {
        if (value === undefined) delete event[field];
        else event[field] = value;
      }
    }
    return list;
  });

function issueKeys(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.')} ${issue.code}`).sort();
}

describe('eventInputSchema (ADR-0241)', () => {
  it('agrees with the intersection of the envelope and eventPayloadSchema on every input', () => {
    fc.assert(
      fc.property(inputs, (events) => {
        for (const event of events) {
          const fast = eventInputSchema.safeParse(event);
          const reference = eventInputIntersectionSchema.safeParse(event);
          expect(fast.success).toBe(reference.success);
          if (fast.success && reference.success) {
            // The same value, keys in the same order (the log stores it as JSON).
            expect(JSON.stringify(fast.data)).toBe(JSON.stringify(reference.data));
            expect(fast.data).toEqual(reference.data);
          } else if (!fast.success && !reference.success) {
            const type = (event as { type?: unknown }).type;
            const knownType = eventInputSchema.options.some((option) => option.shape.type.value === type);
            if (knownType) expect(issueKeys(fast.error)).toEqual(issueKeys(reference.error));
            // An unknown type is reported alone: the envelope of an event of no type is not checked.
            else expect(issueKeys(fast.error)).toEqual(['type invalid_union']);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
