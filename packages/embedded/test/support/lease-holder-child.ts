/**
 * A child process for the lease tests: opens a data directory exclusively with the lease given,
 * reports `{"ready":true}`, then appends one event every 50 ms and reports each new version as
 * `{"version":N}` until it is killed. Run with `node --import tsx`.
 */
import { noopLogger } from '@compactor/core';
import { createEmbeddedStores } from '../../src/index.js';

export interface LeaseHolderArguments {
  dataDir: string;
  leaseMs: number;
  tenantId: string;
  threadId: string;
}

const args = JSON.parse(process.argv[2]!) as LeaseHolderArguments;
const report = (message: unknown): void => {
  process.stdout.write(`${JSON.stringify(message)}\n`);
};

const stores = await createEmbeddedStores({
  dataDir: args.dataDir,
  leaseMs: args.leaseMs,
  logger: noopLogger,
});
await stores.events.append(args.tenantId, args.threadId, [
  { eventId: 'created', type: 'thread.created', model: 'm', contextWindow: 10_000 },
]);
report({ ready: true });
let index = 0;
setInterval(() => {
  index += 1;
  stores.events
    .append(args.tenantId, args.threadId, [
      {
        eventId: `e-${index}`,
        type: 'message.appended',
        message: { id: `m-${index}`, role: 'user', content: [{ type: 'text', text: `hello ${index}` }] },
      },
    ])
    .then(
      (result) => report({ version: result.version }),
      (error: unknown) => report({ error: String(error) }),
    );
}, 50);
