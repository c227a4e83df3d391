/**
 * A child process for the multi-process tests: opens a data directory in shared mode and does one
 * job, given as a JSON argument; reports on stdout as JSON lines. Run with `node --import tsx`.
 */
import { createInterface } from 'node:readline';
import { CompactorError, compactionPlanSchema, noopLogger } from '@compactor/core';
import { StoreLocks } from '../../src/concurrency/store-locks.js';
import { createEmbeddedStores } from '../../src/index.js';
import { encodePathSegment } from '../../src/paths/path-segment.js';

export type ChildJob =
  | { kind: 'append'; prefix: string; batches: number }
  | { kind: 'append-expecting'; prefix: string; wins: number }
  | { kind: 'commit-rounds'; rounds: number }
  | { kind: 'append-on-request'; prefix: string }
  | { kind: 'die-holding-lock'; prefix: string };

export interface ChildArguments {
  dataDir: string;
  tenantId: string;
  threadId: string;
  lockStaleMs: number;
  job: ChildJob;
}

const args = JSON.parse(process.argv[2]!) as ChildArguments;
const { dataDir, tenantId, threadId, job } = args;
const report = (message: unknown): void => {
  process.stdout.write(`${JSON.stringify(message)}\n`);
};

function message(eventId: string) {
  return {
    eventId,
    type: 'message.appended' as const,
    message: {
      id: `m-${eventId}`,
      role: 'user' as const,
      content: [{ type: 'text' as const, text: eventId }],
    },
  };
}

const stores = await createEmbeddedStores({
  dataDir,
  sharing: 'shared',
  lockStaleMs: args.lockStaleMs,
  logger: noopLogger,
});

if (job.kind === 'append') {
  // Batches of 1-3 events, no expected version: every one must land.
  const eventIds: string[] = [];
  for (let batch = 0; batch < job.batches; batch += 1) {
    const events = Array.from({ length: 1 + (batch % 3) }, (_, index) =>
      message(`${job.prefix}-${batch}-${index}`),
    );
    await stores.events.append(tenantId, threadId, events);
    eventIds.push(...events.map((event) => event.eventId));
  }
  report({ eventIds });
} else if (job.kind === 'append-expecting') {
  // Read the version, append one event expecting it, retry on a conflict: every win names its version.
  const wonAt: number[] = [];
  let conflicts = 0;
  while (wonAt.length < job.wins) {
    const version = (await stores.events.getThread(tenantId, threadId))?.version ?? 0;
    try {
      await stores.events.append(tenantId, threadId, [message(`${job.prefix}-${wonAt.length}`)], {
        expectedVersion: version,
      });
      wonAt.push(version);
    } catch (error) {
      if (!CompactorError.hasCode(error, 'concurrency')) throw error;
      conflicts += 1;
    }
  }
  report({ wonAt, conflicts });
} else if (job.kind === 'commit-rounds') {
  // Round r: wait until version r is current, then every process commits expecting r.
  const won: number[] = [];
  for (let round = 0; round < job.rounds; round += 1) {
    while ((await stores.plans.getCurrent(tenantId, threadId)).version < round) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const plan = compactionPlanSchema.parse({
      threadId,
      version: 0,
      basedOnSeq: round + 1,
      createdAt: '2025-02-03T04:05:06.000Z',
      drops: [],
      clearings: [],
      originalTokenCount: 100,
      compactedTokenCount: 50,
    });
    const result = await stores.plans.commit(tenantId, threadId, plan, round);
    if (result.committed) won.push(result.version);
  }
  report({ won });
} else if (job.kind === 'append-on-request') {
  // One batch per line on stdin; report the version once the append is acknowledged.
  const lines = createInterface({ input: process.stdin });
  let count = 0;
  for await (const _line of lines) {
    const eventId = `${job.prefix}-${count++}`;
    const result = await stores.events.append(tenantId, threadId, [message(eventId)]);
    report({ eventId, version: result.version });
  }
} else if (job.kind === 'die-holding-lock') {
  // Take the thread's append lock the way the event store does, start a batch, never finish it.
  const { appendFile } = await import('node:fs/promises');
  const { DataLayout } = await import('../../src/index.js');
  const layout = new DataLayout(stores.dataDir);
  const tenantSegment = encodePathSegment(tenantId, 'tenantId');
  const threadSegment = encodePathSegment(threadId, 'threadId');
  const locks = new StoreLocks({
    root: dataDir,
    sharing: 'shared',
    staleMs: args.lockStaleMs,
    logger: noopLogger,
  });
  await locks.run(`events/${tenantSegment}/${threadSegment}`, async () => {
    // The first line of a two-record batch, cut in the middle: what a kill mid-write leaves.
    await appendFile(layout.eventLog(tenantSegment, threadSegment), '0badc0de 1 {"half":');
    report({ locked: true });
    // Wait for SIGKILL; the interval keeps the process alive (the lock's refresh timer is unref'd).
    await new Promise(() => setInterval(() => {}, 1_000));
  });
}
await stores.close();
