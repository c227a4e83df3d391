import { compactionPlanSchema } from '@compactor/core';
import { createPostgresStores } from '@compactor/postgres';

/** Open the stores, append a thread, commit a plan and follow lifecycle events from any process. */
export async function quickStart(connectionString: string, schema = 'compactor') {
  const stores = createPostgresStores({ connectionString, schema });
  await stores.migrate(); // once at startup: applies the shipped migrations not yet applied
  try {
    const seen: string[] = [];
    const subscription = await stores.subscribeToLifecycle((event) => seen.push(event.name));

    const appended = await stores.events.append('tenant-a', 'thread-1', [
      { eventId: 'e1', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
      {
        eventId: 'e2',
        type: 'message.appended',
        message: { id: 'm1', role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      },
    ]);
    // A retry with the same event ids stores nothing and returns the original events.
    const retried = await stores.events.append('tenant-a', 'thread-1', [
      {
        eventId: 'e2',
        type: 'message.appended',
        message: { id: 'm1', role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      },
    ]);
    const newest = await stores.events.readNewest('tenant-a', 'thread-1', 1);

    const commit = await stores.plans.commit(
      'tenant-a',
      'thread-1',
      compactionPlanSchema.parse({
        threadId: 'thread-1',
        version: 0,
        basedOnSeq: appended.version,
        createdAt: new Date().toISOString(),
      }),
      0, // the plan version this commit expects to replace: of racing committers, one wins
    );
    await stores.lifecycle.append({
      tenantId: 'tenant-a',
      threadId: 'thread-1',
      name: 'compaction_completed',
      at: new Date().toISOString(),
    });
    await new Promise((resolve) => setTimeout(resolve, 200)); // notifications arrive after commit
    await subscription.close();
    return { version: appended.version, duplicates: retried.duplicates, newest, commit, seen };
  } finally {
    await stores.close();
  }
}
