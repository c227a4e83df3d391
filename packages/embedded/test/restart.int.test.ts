import {
  ARTIFACT_PERMISSION_CONFIDENTIAL,
  compactionPlanSchema,
  type EventInput,
  fixedClock,
  noopLogger,
} from '@compactor/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores, type EmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const TENANT = 'Tenant/One';
const OTHER_TENANT = 'tenant-two';

function message(thread: string, index: number, tokens = 7): EventInput {
  return {
    eventId: `${thread}-e-${index}`,
    type: 'message.appended',
    tokens,
    message: {
      id: `${thread}-m-${index}`,
      role: index % 2 ? 'assistant' : 'user',
      content: [{ type: 'text', text: `hello ${index} 🌍` }],
    },
  };
}

describe('restart: close, reopen, read everything back', () => {
  let dataDir: string;
  let remove: () => Promise<void>;
  let stores: EmbeddedStores;
  const clock = fixedClock('2025-03-01T00:00:00.000Z');

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
    stores = await createEmbeddedStores({ dataDir, clock, logger: noopLogger });
  });

  afterEach(async () => {
    await stores.close();
    await remove();
  });

  async function restart(): Promise<void> {
    await stores.close();
    stores = await createEmbeddedStores({ dataDir, clock, logger: noopLogger });
  }

  it('keeps events, thread metadata, pending flags and idempotency across a restart', async () => {
    const threads = ['alpha', 'Beta', 'gamma/../delta'];
    for (const thread of threads) {
      await stores.events.append(TENANT, thread, [
        { eventId: `${thread}-created`, type: 'thread.created', model: 'gpt-5', contextWindow: 400_000 },
        ...Array.from({ length: 30 }, (_, index) => message(thread, index)),
      ]);
      await stores.events.append(TENANT, thread, [message(thread, 30, 1)]);
    }
    await stores.events.append(OTHER_TENANT, 'alpha', [
      { eventId: 'created', type: 'thread.created', model: 'm', contextWindow: 1000 },
    ]);
    await stores.events.setCompactionPending(TENANT, 'Beta', true);
    const before = await Promise.all(threads.map((thread) => stores.events.readAll(TENANT, thread)));
    const metadataBefore = await stores.events.listThreads(TENANT);

    await restart();

    const after = await Promise.all(threads.map((thread) => stores.events.readAll(TENANT, thread)));
    expect(after).toEqual(before);
    expect(await stores.events.listThreads(TENANT)).toEqual(metadataBefore);
    expect(metadataBefore.threads.map((thread) => thread.messageTokens)).toEqual([
      30 * 7 + 1,
      30 * 7 + 1,
      30 * 7 + 1,
    ]);
    expect(await stores.events.listCompactionPending()).toEqual([{ tenantId: TENANT, threadId: 'Beta' }]);
    expect((await stores.events.getThread(OTHER_TENANT, 'alpha'))?.version).toBe(1);

    const retry = await stores.events.append(TENANT, 'alpha', [message('alpha', 3)]);
    expect(retry).toMatchObject({ duplicates: 1, version: 32 });
    expect(retry.events[0]).toEqual(before[0]![4]);
    const reusedMessageId = message('alpha', 99);
    if (reusedMessageId.type === 'message.appended') reusedMessageId.message.id = 'alpha-m-3';
    await expect(stores.events.append(TENANT, 'alpha', [reusedMessageId])).rejects.toMatchObject({
      code: 'validation',
      issues: [{ path: '0.message.id', message: 'message id alpha-m-3 is already in the thread' }],
    });
    const next = await stores.events.append(TENANT, 'alpha', [message('alpha', 31)], { expectedVersion: 32 });
    expect(next.events[0]?.seq).toBe(33);
  });

  it('keeps plans, summaries, artifacts with their audit, and lifecycle events across a restart', async () => {
    const plan = compactionPlanSchema.parse({
      threadId: 'alpha',
      version: 0,
      basedOnSeq: 12,
      createdAt: '2025-03-01T00:00:00.000Z',
    });
    await stores.plans.commit(TENANT, 'alpha', plan, 0);
    await stores.plans.commit(TENANT, 'alpha', { ...plan, basedOnSeq: 20 }, 1);
    await stores.plans.revertTo(TENANT, 'alpha', 1, 2);
    const key = {
      contentHash: 'abc',
      schemaVersion: 'v1',
      policyVersion: '1',
      modelId: 'haiku',
      promptVersion: 'p1',
    };
    const summary = {
      summary: {
        schemaVersion: 'v1' as const,
        facts: [],
        decisions: [],
        openItems: [],
        artifacts: [],
        toolOutcomes: [],
        currentTask: 'x',
        currentPlan: null,
        filesRead: [],
        filesModified: [],
      },
      summaryTokenCount: 3,
      costUsd: 0,
      createdAt: '2025-03-01T00:00:00.000Z',
    };
    await stores.summaries.set(TENANT, key, summary);
    const artifact = await stores.artifacts.put('secret output', {
      tenantId: TENANT,
      threadId: 'alpha',
      sensitivity: 'confidential',
      ttlSeconds: 3600,
    });
    const reader = {
      requesterId: 'agent',
      tenantId: TENANT,
      permissions: [ARTIFACT_PERMISSION_CONFIDENTIAL],
    };
    await stores.artifacts.retrieve(artifact.artifactId, reader);
    await stores.artifacts.retrieve(artifact.artifactId, { ...reader, permissions: [] });
    await stores.lifecycle.append({
      tenantId: TENANT,
      threadId: 'alpha',
      name: 'compaction_completed',
      at: 't1',
      tokensFreed: 5,
    });
    const versionsBefore = await stores.plans.listVersions(TENANT, 'alpha');
    const auditBefore = await stores.artifacts.listAudit(TENANT);

    await restart();

    expect(await stores.plans.listVersions(TENANT, 'alpha')).toEqual(versionsBefore);
    expect(versionsBefore.map((version) => version.revertedFrom)).toEqual([undefined, undefined, 1]);
    expect(await stores.plans.getCurrent(TENANT, 'alpha')).toEqual({
      plan: { ...plan, version: 3 },
      version: 3,
    });
    expect(await stores.plans.commit(TENANT, 'alpha', plan, 2)).toEqual({
      committed: false,
      currentVersion: 3,
    });
    expect(await stores.summaries.get(TENANT, key)).toEqual(summary);
    expect(await stores.artifacts.retrieve(artifact.artifactId, reader)).toMatchObject({
      status: 'ok',
      content: 'secret output',
    });
    const auditAfter = await stores.artifacts.listAudit(TENANT);
    expect(auditAfter.slice(0, 2)).toEqual(auditBefore);
    expect(auditAfter.map((event) => event.action)).toEqual(['read', 'denied', 'read']);
    expect(await stores.lifecycle.list(TENANT, 'alpha')).toEqual([
      { tenantId: TENANT, threadId: 'alpha', name: 'compaction_completed', at: 't1', tokensFreed: 5 },
    ]);
    clock.advance(3_600_000);
    expect((await stores.artifacts.retrieve(artifact.artifactId, reader)).status).toBe('not_found');
  });
});
