/**
 * No-op compaction checks per second through each queue: enqueue N checks for N threads, then time
 * until the worker has finished them all. Run: pnpm --filter @compactor/queue bench [count] [concurrency]
 */
import { randomUUID } from 'node:crypto';
import type { CompactionCheckJob, JobQueue } from '@compactor/core';
import { startRedisForTests } from '@compactor/testkit/redis-server';
import { Queue } from 'bullmq';
import {
  type CompactionWorker,
  type CompactionWorkerOptions,
  createBullmqJobQueue,
  createInProcessCompactionQueue,
  startBullmqCompactionWorker,
} from '../src/index.js';

const count = Number(process.argv[2] ?? 5_000);
const concurrency = Number(process.argv[3] ?? 100);

async function measure(
  name: string,
  producer: JobQueue,
  startWorker: (options: CompactionWorkerOptions) => Promise<CompactionWorker>,
): Promise<void> {
  let finished = 0;
  let resolveAll = () => {};
  const allDone = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const jobs: CompactionCheckJob[] = Array.from({ length: count }, (_, index) => ({
    tenantId: 'bench',
    threadId: `thread-${index}`,
    version: 1,
    reason: 'append',
  }));
  const enqueueStart = performance.now();
  await Promise.all(jobs.map((job) => producer.enqueueCompactionCheck(job, { debounceMs: 0 })));
  const enqueueMs = performance.now() - enqueueStart;

  const processStart = performance.now();
  const worker = await startWorker({
    concurrency,
    handler: async () => ({ status: 'unchanged' }),
    onJobFinished: () => {
      finished += 1;
      if (finished === count) resolveAll();
    },
  });
  await allDone;
  const processMs = performance.now() - processStart;
  await worker.close();
  const rate = (items: number, ms: number) => Math.round((items / ms) * 1000);
  console.log(
    `${name}: enqueued ${count} in ${Math.round(enqueueMs)} ms (${rate(count, enqueueMs)}/s); ` +
      `processed at concurrency ${concurrency} in ${Math.round(processMs)} ms (${rate(count, processMs)}/s)`,
  );
}

const inProcess = createInProcessCompactionQueue();
await measure('in-process', inProcess, (options) => inProcess.startCompactionWorker(options));
await inProcess.close();

const redis = await startRedisForTests();
if (!redis) {
  console.log('BullMQ: skipped (needs Redis: set REDIS_URL or apt-get install -y redis-server)');
} else {
  const location = { connection: { url: redis.url }, prefix: `{bench-${randomUUID()}}` };
  const producer = createBullmqJobQueue(location);
  await measure('bullmq', producer, (options) => startBullmqCompactionWorker({ ...location, ...options }));
  await producer.close();
  const inspector = new Queue('compaction-check', location);
  await inspector.obliterate({ force: true });
  await inspector.close();
  await redis.stop();
}
