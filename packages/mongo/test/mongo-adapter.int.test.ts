import { randomUUID } from 'node:crypto';
import { CompactorError, type EventInput } from '@compactor/core';
import { expect, it } from 'vitest';
import { INDEXES } from '../src/index.js';
import { describeWithMongo, useMongoStores } from './support/mongo-harness.js';

const created = (eventId: string): EventInput => ({
  eventId,
  type: 'thread.created',
  model: 'claude-sonnet-4-5',
  contextWindow: 200_000,
});

describeWithMongo('MongoDB adapter specifics', (uri) => {
  const stores = useMongoStores(uri, 'adapter');

  it('creates every index, unique where the stores rely on it, and can do so again', async () => {
    await stores().ensureIndexes();
    for (const [name, expected] of Object.entries(INDEXES)) {
      const collection = stores().collections[name as keyof typeof INDEXES];
      const indexes = await collection.listIndexes().toArray();
      for (const index of expected) {
        const found = indexes.find(
          (candidate) => JSON.stringify(candidate.key) === JSON.stringify(index.key),
        );
        expect(found, `${name} ${JSON.stringify(index.key)}`).toBeDefined();
        expect(found?.unique === true).toBe(index.unique === true);
      }
    }
  });

  it('turns racing creators of one thread into one winner and typed errors, never a raw E11000', async () => {
    const tenantId = `tenant-${randomUUID()}`;
    const threadId = `thread-${randomUUID()}`;
    const settled = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        stores().events.append(tenantId, threadId, [created(`c-${index}`)]),
      ),
    );
    expect(settled.filter((outcome) => outcome.status === 'fulfilled').length).toBe(1);
    for (const outcome of settled) {
      if (outcome.status === 'rejected') {
        expect(CompactorError.isInstance(outcome.reason), String(outcome.reason)).toBe(true);
        expect(['validation', 'concurrency']).toContain((outcome.reason as CompactorError).code);
      }
    }
    expect((await stores().events.readAll(tenantId, threadId)).length).toBe(1);
  });

  it('refuses an event over the 16 MB document limit with a ValidationError and writes nothing', async () => {
    const tenantId = `tenant-${randomUUID()}`;
    const threadId = `thread-${randomUUID()}`;
    await stores().events.append(tenantId, threadId, [created('c')]);
    const huge: EventInput = {
      eventId: 'huge',
      type: 'message.appended',
      message: {
        id: 'm-huge',
        role: 'user',
        content: [{ type: 'text', text: 'x'.repeat(17 * 1024 * 1024) }],
      },
    };
    let caught: unknown;
    try {
      await stores().events.append(tenantId, threadId, [huge]);
    } catch (error) {
      caught = error;
    }
    expect(CompactorError.hasCode(caught, 'validation')).toBe(true);
    expect((await stores().events.getThread(tenantId, threadId))?.version).toBe(1);
  }, 60_000);
});
