import { noopLogger } from '@compactor/core';
import { type RunningS3rver, startS3rver } from '@compactor/testkit/s3rver';
import { asInputs, codingSession } from '@compactor/testkit/sessions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, loadRuntimeConfig, type Runtime } from '../src/index.js';
import { temporaryDirectory } from './support/temporary-directory.js';

describe('createRuntime with S3 artifacts (s3rver on loopback)', () => {
  let s3: RunningS3rver;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    s3 = await startS3rver();
    await s3.createBucket('compactor-artifacts');
  });
  afterAll(async () => {
    await s3?.stop();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function s3Runtime(bucket: string): Promise<Runtime> {
    const directory = await temporaryDirectory('compactor-runtime-s3-');
    cleanups.push(directory.remove);
    const config = loadRuntimeConfig({
      COMPACTOR_DATA_DIR: directory.path,
      COMPACTOR_ARTIFACTS: 's3',
      S3_BUCKET: bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_PREFIX: 'runtime-test',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    });
    const runtime = await createRuntime(config, { logger: noopLogger });
    cleanups.push(() => runtime.close());
    return runtime;
  }

  it('stores artifacts in the bucket under the prefix, and reads them back', async () => {
    const runtime = await s3Runtime('compactor-artifacts');
    const stored = await runtime.stores.artifacts.put('the full tool output', {
      tenantId: 'tenant-a',
      threadId: 'thread-1',
      sensitivity: 'internal',
    });
    const read = await runtime.stores.artifacts.retrieve(stored.artifactId, {
      requesterId: 'test',
      tenantId: 'tenant-a',
      permissions: [],
    });
    expect(read).toMatchObject({ status: 'ok', content: 'the full tool output' });
    const keys = await s3.listKeys('compactor-artifacts', 'runtime-test/');
    expect(keys).toContain(`runtime-test/_records/tenant-a/${stored.artifactId}.json`);
    expect(keys.some((key) => key.startsWith('runtime-test/tenant-a/'))).toBe(true);
  });

  it('externalizes a compacted thread’s tool results to the bucket', async () => {
    const runtime = await s3Runtime('compactor-artifacts');
    const { events } = codingSession('thread-s3');
    await runtime.stores.events.append('tenant-s3', 'thread-s3', asInputs(events));
    const result = await runtime.engine.check('tenant-s3', 'thread-s3');
    expect(result.commit.status).toBe('committed');
    const { plan } = await runtime.stores.plans.getCurrent('tenant-s3', 'thread-s3');
    const records = await s3.listKeys('compactor-artifacts', 'runtime-test/_records/');
    for (const externalization of plan!.externalizations) {
      expect(records).toContain(`runtime-test/_records/tenant-s3/${externalization.artifactId}.json`);
    }
    expect(plan!.externalizations.length).toBeGreaterThan(0);
  });

  it('is ready when the bucket answers, and says which dependency fails when it does not', async () => {
    expect(await (await s3Runtime('compactor-artifacts')).ready()).toEqual({
      ok: true,
      checks: { store: 'ok', artifacts: 'ok', queue: 'ok' },
    });
    const missing = await (await s3Runtime('no-such-bucket')).ready();
    expect(missing.ok).toBe(false);
    expect(missing.checks.store).toBe('ok');
    expect(missing.checks.artifacts).toMatch(/^failed: /);
  });
});
