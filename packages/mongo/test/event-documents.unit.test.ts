import type { EventInput, StoredEvent } from '@compactor/core';
import { arbitraryThreadEvents } from '@compactor/testkit/arbitraries';
import fc from 'fast-check';
import { BSON } from 'mongodb';
import { describe, expect, it } from 'vitest';
import {
  documentToEvent,
  eventContentHash,
  eventToDocument,
  eventTotals,
  messageIdsOfDocuments,
  storedEventFromInput,
} from '../src/event-documents.js';

/** What an insert then a find do to a document: BSON out (undefined dropped, as the store inserts) and back. */
function throughBson(document: object): Record<string, unknown> {
  const bytes = BSON.serialize({ _id: new BSON.ObjectId(), ...document }, { ignoreUndefined: true });
  return BSON.deserialize(bytes);
}

function withoutPlace(event: StoredEvent): EventInput {
  const { tenantId, threadId, seq, ...input } = event;
  return input as EventInput;
}

describe('event documents', () => {
  it('give back every event exactly after a trip through BSON', () => {
    fc.assert(
      fc.property(arbitraryThreadEvents({ hugeToolResults: false }), (events) => {
        for (const event of events) {
          const document = throughBson(eventToDocument(event, eventContentHash(withoutPlace(event))));
          expect(document.contentHash).toMatch(/^[0-9a-f]{64}$/);
          expect(documentToEvent(document)).toStrictEqual(JSON.parse(JSON.stringify(event)));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('keep the payload at the top level so it is queryable', () => {
    const event = storedEventFromInput(
      {
        eventId: 'e-1',
        type: 'message.appended',
        message: { id: 'm-1', role: 'user', content: [] },
        tokens: 3,
      },
      { tenantId: 't', threadId: 'th', seq: 2, timestamp: '2025-01-01T00:00:00.000Z' },
    );
    const document = eventToDocument(event, 'hash');
    expect(document).toMatchObject({
      tenantId: 't',
      threadId: 'th',
      seq: 2,
      type: 'message.appended',
      tokens: 3,
    });
    expect((document as { message?: { id?: string } }).message?.id).toBe('m-1');
  });

  it('keep a client timestamp and set a missing one', () => {
    const place = { tenantId: 't', threadId: 'th', seq: 1, timestamp: '2025-01-01T00:00:00.000Z' };
    const base = { eventId: 'c', type: 'thread.created', model: 'm', contextWindow: 10 } as const;
    expect(storedEventFromInput(base, place).timestamp).toBe(place.timestamp);
    expect(storedEventFromInput({ ...base, timestamp: '2024-02-02T00:00:00Z' }, place).timestamp).toBe(
      '2024-02-02T00:00:00Z',
    );
  });
});

describe('eventContentHash', () => {
  const input: EventInput = {
    eventId: 'k-1',
    type: 'message.appended',
    tokens: 5,
    message: { id: 'm', role: 'user', content: [{ type: 'text', text: 'same' }], metadata: { a: 1, b: 2 } },
  };

  it('ignores key order and the client timestamp', () => {
    const reordered = JSON.parse(
      '{"timestamp":"2030-01-01T00:00:00Z","message":{"metadata":{"b":2,"a":1},"content":[{"text":"same","type":"text"}],"role":"user","id":"m"},"tokens":5,"type":"message.appended","eventId":"k-1"}',
    ) as EventInput;
    expect(eventContentHash(reordered)).toBe(eventContentHash(input));
  });

  it('changes with any content change, token counts included', () => {
    const variants: EventInput[] = [
      { ...input, tokens: 6 },
      { ...input, eventId: 'k-2' },
      { ...input, message: { ...(input as { message: object }).message, id: 'm2' } } as EventInput,
      { eventId: 'k-1', type: 'message.appended', message: { id: 'm', role: 'user', content: [] } },
    ];
    const hashes = new Set([input, ...variants].map(eventContentHash));
    expect(hashes.size).toBe(variants.length + 1);
  });
});

describe('eventTotals', () => {
  it('counts message events and their tokens only', () => {
    expect(
      eventTotals({
        eventId: 'a',
        type: 'message.appended',
        message: { id: 'm', role: 'user', content: [] },
        tokens: 7,
      }),
    ).toEqual({ messageCount: 1, messageTokens: 7 });
    expect(
      eventTotals({
        eventId: 'b',
        type: 'message.appended',
        message: { id: 'n', role: 'user', content: [] },
      }),
    ).toEqual({ messageCount: 1, messageTokens: 0 });
    expect(
      eventTotals({
        eventId: 'c',
        type: 'lifecycle',
        name: 'compaction_completed',
        details: {},
        tokens: 900,
      }),
    ).toEqual({ messageCount: 0, messageTokens: 0 });
  });
});

describe('messageIdsOfDocuments', () => {
  it('reads the ids a `message.id` projection leaves, and nothing else', () => {
    const projected = [
      { message: { id: 'm-1' } },
      { message: { id: 'm-2' } },
      {},
      { message: {} },
      { message: { id: 7 } },
    ];
    expect(messageIdsOfDocuments(projected)).toEqual(new Set(['m-1', 'm-2']));
  });
});
