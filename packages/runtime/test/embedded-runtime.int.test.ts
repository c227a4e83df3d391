import { CompactorError, noopLogger } from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { asInputs, codingSession, longConversation } from '@compactor/testkit/sessions';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, loadRuntimeConfig, type Runtime } from '../src/index.js';
import { countingSummarizer } from './support/counting-summarizer.js';
import { temporaryDirectory } from './support/temporary-directory.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function embeddedRuntime(
  environment: Record<string, string> = {},
  options: Partial<Parameters<typeof createRuntime>[1]> = {},
): Promise<{ runtime: Runtime; dataDir: string }> {
  const directory = await temporaryDirectory('compactor-runtime-');
  cleanups.push(directory.remove);
  const config = loadRuntimeConfig({ COMPACTOR_DATA_DIR: directory.path, ...environment });
  const runtime = await createRuntime(config, { logger: noopLogger, ...options });
  cleanups.push(() => runtime.close());
  return { runtime, dataDir: directory.path };
}

describe('createRuntime on the embedded defaults', () => {
  it('wires stores, engine and summarizer: a long thread is compacted and its artifacts are readable', async () => {
    const { runtime } = await embeddedRuntime();
    const { events } = codingSession('thread-1');
    await runtime.stores.events.append('tenant-a', 'thread-1', asInputs(events));
    const result = await runtime.engine.check('tenant-a', 'thread-1');
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    const { plan } = await runtime.stores.plans.getCurrent('tenant-a', 'thread-1');
    const externalized = plan!.externalizations;
    expect(externalized.length).toBeGreaterThan(0);
    const artifactId = externalized[0]!.artifactId;
    const read = await runtime.stores.artifacts.retrieve(artifactId, {
      requesterId: 'test',
      tenantId: 'tenant-a',
      permissions: [],
    });
    expect(read.status).toBe('ok');
    const lifecycle = await runtime.stores.lifecycle.list('tenant-a', 'thread-1');
    expect(lifecycle.slice(-2).map((event) => event.name)).toEqual([
      'compaction_completed',
      'compaction_committed',
    ]);
  });

  it('puts the summarizer behind the summary cache: the same span is summarized once', async () => {
    const summarizer = countingSummarizer();
    const { runtime } = await embeddedRuntime({}, { summarizer });
    for (const threadId of ['first', 'second']) {
      const { events } = longConversation(threadId);
      await runtime.stores.events.append('tenant-a', threadId, asInputs(events));
    }
    const first = await runtime.engine.check('tenant-a', 'first');
    expect(first.commit.status).toBe('committed');
    const callsForFirst = summarizer.calls.length;
    expect(callsForFirst).toBeGreaterThan(0);
    // Same messages (ids and content) in another thread of the tenant: every span is a cache hit.
    const second = await runtime.engine.check('tenant-a', 'second');
    expect(second.commit.status).toBe('committed');
    expect(summarizer.calls.length).toBe(callsForFirst);
    expect(second.planner?.summarizerCalls).toBe(0);
    // Another tenant never gets the first tenant's summaries.
    const { events } = longConversation('first');
    await runtime.stores.events.append('tenant-b', 'first', asInputs(events));
    await runtime.engine.check('tenant-b', 'first');
    expect(summarizer.calls.length).toBe(callsForFirst * 2);
  });

  it('marks the threads of checks still debouncing at close pending, so the next start sweeps them', async () => {
    const directory = await temporaryDirectory('compactor-runtime-');
    cleanups.push(directory.remove);
    const config = loadRuntimeConfig({ COMPACTOR_DATA_DIR: directory.path, COMPACTOR_DEBOUNCE_MS: '60000' });
    const first = await createRuntime(config, { logger: noopLogger });
    await first.stores.events.append('tenant-a', 'queued', asInputs(longConversation('queued').events));
    await first.queue.enqueueCompactionCheck({
      tenantId: 'tenant-a',
      threadId: 'queued',
      version: 1,
      reason: 'append',
    });
    await first.close();
    const second = await createRuntime(config, { logger: noopLogger });
    cleanups.push(() => second.close());
    expect(await second.stores.events.listCompactionPending()).toEqual([
      { tenantId: 'tenant-a', threadId: 'queued' },
    ]);
  });

  it('consumes checks through the in-process queue with the configured debounce', async () => {
    const { runtime } = await embeddedRuntime({ COMPACTOR_DEBOUNCE_MS: '0' });
    const seen: string[] = [];
    await runtime.startConsumer(async (job) => {
      seen.push(`${job.tenantId}/${job.threadId}/${job.version}`);
      return { status: 'skipped' };
    });
    await runtime.queue.enqueueCompactionCheck({
      tenantId: 'tenant-a',
      threadId: 't',
      version: 3,
      reason: 'append',
    });
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual(['tenant-a/t/3']);
  });

  it('is ready while open, not ready once closed, and releases the data directory', async () => {
    const { runtime, dataDir } = await embeddedRuntime();
    expect(await runtime.ready()).toEqual({
      ok: true,
      checks: { store: 'ok', artifacts: 'ok', queue: 'ok' },
    });
    // One process per data directory: a second open is refused while the runtime holds it.
    await expect(createEmbeddedStores({ dataDir })).rejects.toSatisfy((error) =>
      CompactorError.hasCode(error, 'unavailable'),
    );
    await runtime.close();
    await runtime.close();
    const readiness = await runtime.ready();
    expect(readiness.ok).toBe(false);
    expect(readiness.checks.store).toMatch(/^failed: /);
    expect(readiness.checks.queue).toMatch(/^failed: /);
    const reopened = await createEmbeddedStores({ dataDir });
    await reopened.close();
  });

  it('shares the data directory with COMPACTOR_EMBEDDED_SHARING=shared: each sees the other’s writes', async () => {
    const { runtime: first, dataDir } = await embeddedRuntime({ COMPACTOR_EMBEDDED_SHARING: 'shared' });
    const config = loadRuntimeConfig({ COMPACTOR_DATA_DIR: dataDir, COMPACTOR_EMBEDDED_SHARING: 'shared' });
    const second = await createRuntime(config, { logger: noopLogger });
    cleanups.push(() => second.close());
    // An exclusive open is refused while shared openers hold the directory.
    await expect(createEmbeddedStores({ dataDir })).rejects.toSatisfy((error) =>
      CompactorError.hasCode(error, 'unavailable'),
    );
    const { events } = codingSession('thread-s');
    await first.stores.events.append('tenant-a', 'thread-s', asInputs(events));
    expect((await second.stores.events.getThread('tenant-a', 'thread-s'))?.version).toBe(events.length);
    const result = await second.engine.check('tenant-a', 'thread-s');
    expect(result.commit).toEqual({ status: 'committed', version: 1 });
    expect((await first.stores.plans.getCurrent('tenant-a', 'thread-s')).version).toBe(1);
  });
});

describe('the session service’s failure callback in the running service', () => {
  it('onSummarizationFailure on the runtime hears a failed summary; compaction_failed is in the lifecycle log', async () => {
    const failures: unknown[] = [];
    const { runtime } = await embeddedRuntime(
      {},
      {
        // The model is down (the runtime still puts its fallbacks behind it).
        summarizer: {
          id: 'down',
          modelId: 'down-model',
          promptVersion: 'down-1',
          summarize: () => Promise.reject(new Error('the summary model is down')),
        },
        onSummarizationFailure: (failure) => failures.push(failure),
      },
    );
    const { events } = longConversation('thread-f');
    const created = asInputs(events).map((event) =>
      event.type === 'thread.created'
        ? { ...event, policy: { preset: 'seed-004-recursive' as const } }
        : event,
    );
    await runtime.stores.events.append('tenant-a', 'thread-f', created);
    const result = await runtime.engine.check('tenant-a', 'thread-f');
    expect(result.trigger.fire).toBe(true);
    expect(result.commit).toEqual({ status: 'not_needed' });
    expect(failures).toEqual([
      { tenantId: 'tenant-a', threadId: 'thread-f', error: new Error('the summary model is down') },
    ]);
    const lifecycle = await runtime.stores.lifecycle.list('tenant-a', 'thread-f');
    expect(lifecycle.map((event) => event.name)).toContain('compaction_failed');
  });
});
