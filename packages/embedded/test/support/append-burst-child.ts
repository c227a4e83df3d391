/**
 * A child process for the group-commit crash test: opens a data directory (exclusive mode) and
 * appends single events to many threads at once, forever, printing each event's id on stdout the
 * moment its append is acknowledged. The parent SIGKILLs it mid-burst. Run with `node --import tsx`.
 */
import { noopLogger } from '@compactor/core';
import { createEmbeddedStores } from '../../src/index.js';

const { dataDir, threads, inFlightPerThread } = JSON.parse(process.argv[2]!) as {
  dataDir: string;
  threads: number;
  inFlightPerThread: number;
};
const stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
const threadIds = Array.from({ length: threads }, (_, index) => `burst-${index}`);
for (const threadId of threadIds) {
  await stores.events.append('tenant-a', threadId, [
    { eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow: 200_000 },
  ]);
}
process.stdout.write('ready\n');
let next = 0;
await Promise.all(
  threadIds.flatMap((threadId) =>
    Array.from({ length: inFlightPerThread }, async () => {
      for (;;) {
        const eventId = `${threadId}:e${next++}`;
        await stores.events.append('tenant-a', threadId, [
          {
            eventId,
            type: 'message.appended',
            message: { id: `m-${eventId}`, role: 'user', content: [{ type: 'text', text: eventId }] },
          },
        ]);
        process.stdout.write(`${eventId}\n`);
      }
    }),
  ),
);
