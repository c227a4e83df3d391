import { noopLogger } from '@compactor/core';
import { asInputs, codingSession } from '@compactor/testkit/sessions';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startWorker } from '../src/index.js';
import { metricValue } from './support/metric-values.js';
import { testRuntime } from './support/runtimes.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the worker on the embedded runtime (in-process queue)', () => {
  it('compacts a long thread when a check is enqueued, and counts it', async () => {
    const runtime = await testRuntime(cleanups);
    const metrics = new Registry();
    const worker = await startWorker({ runtime, metrics, logger: noopLogger, sweepIntervalMs: 0 });
    cleanups.push(() => worker.close());
    const { events } = codingSession('thread-1');
    const appended = await runtime.stores.events.append('tenant-a', 'thread-1', asInputs(events));

    await runtime.queue.enqueueCompactionCheck({
      tenantId: 'tenant-a',
      threadId: 'thread-1',
      version: appended.version,
      reason: 'append',
    });

    await expect
      .poll(() => metricValue(metrics, 'compactor_worker_jobs_total', { outcome: 'completed' }), {
        timeout: 10_000,
      })
      .toBe(1);
    const versions = await runtime.stores.plans.listVersions('tenant-a', 'thread-1');
    expect(versions.map((version) => version.version)).toEqual([1]);
    expect(await metricValue(metrics, 'compactor_worker_jobs_total', { status: 'compacted' })).toBe(1);
    expect(await metricValue(metrics, 'compactor_worker_compactions_committed_total')).toBe(1);
    // The tokens counted are the ones the engine reported in its lifecycle record of this compaction.
    const completed = (await runtime.stores.lifecycle.list('tenant-a', 'thread-1')).find(
      (event) => event.name === 'compaction_completed',
    );
    const freed = completed!.tokensBefore! - completed!.tokensAfter!;
    expect(freed).toBeGreaterThan(0);
    expect(await metricValue(metrics, 'compactor_worker_tokens_freed_total')).toBe(freed);
  });

  it('fails a check of a thread that does not exist at once, without retrying', async () => {
    const runtime = await testRuntime(cleanups);
    const metrics = new Registry();
    const worker = await startWorker({ runtime, metrics, logger: noopLogger, sweepIntervalMs: 0 });
    cleanups.push(() => worker.close());

    await runtime.queue.enqueueCompactionCheck({
      tenantId: 'tenant-a',
      threadId: 'ghost',
      version: 3,
      reason: 'append',
    });

    await expect
      .poll(() => metricValue(metrics, 'compactor_worker_jobs_total', { outcome: 'failed' }), {
        timeout: 10_000,
      })
      .toBe(1);
    expect(await metricValue(metrics, 'compactor_worker_jobs_total', { status: 'not_found' })).toBe(1);
    expect(await metricValue(metrics, 'compactor_worker_jobs_total', { outcome: 'retrying' })).toBe(0);
  });

  it('sweeps a thread left pending at start: enqueued, compacted, mark cleared', async () => {
    const runtime = await testRuntime(cleanups);
    const { events } = codingSession('left-behind');
    await runtime.stores.events.append('tenant-a', 'left-behind', asInputs(events));
    await runtime.stores.events.setCompactionPending('tenant-a', 'left-behind', true);
    const metrics = new Registry();

    const worker = await startWorker({ runtime, metrics, logger: noopLogger, sweepIntervalMs: 60_000 });
    cleanups.push(() => worker.close());

    await expect
      .poll(() => runtime.stores.plans.getCurrent('tenant-a', 'left-behind').then((plan) => plan.version), {
        timeout: 10_000,
      })
      .toBe(1);
    expect(await runtime.stores.events.listCompactionPending()).toEqual([]);
    expect(
      await metricValue(metrics, 'compactor_worker_sweeper_enqueues_total', { outcome: 'enqueued' }),
    ).toBe(1);
  });
});
