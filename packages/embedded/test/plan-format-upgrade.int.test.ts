import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { noopLogger, normalizePlan } from '@compactor/core';
import { clearOnePlan } from '@compactor/testkit/stored-plans';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddedStores, type EmbeddedStores } from '../src/index.js';
import { makeTemporaryDirectory } from './temporary-data-directory.js';

const TENANT = 'tenant-a';
const THREAD = 'thread-1';

const plan = clearOnePlan(THREAD);

async function versionFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true });
  return entries.filter((entry) => entry.endsWith('0000000001.json')).map((entry) => join(directory, entry));
}

describe('plans written before a record list existed (ADR-0290)', () => {
  let dataDir: string;
  let remove: () => Promise<void>;
  let stores: EmbeddedStores;

  beforeEach(async () => {
    ({ dataDir, remove } = await makeTemporaryDirectory());
    stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
  });
  afterEach(async () => {
    await stores.close();
    await remove();
  });

  it('read back with the list empty, current and by version, after a restart', async () => {
    expect(await stores.plans.commit(TENANT, THREAD, plan, 0)).toEqual({ committed: true, version: 1 });
    await stores.close();
    // What an earlier release wrote: the same file without `abridgements` (ADR-0265 added it).
    const [file] = await versionFiles(dataDir);
    expect(file).toBeDefined();
    const written = JSON.parse(await readFile(file!, 'utf8')) as { plan: Record<string, unknown> };
    expect(written.plan.abridgements).toEqual([]);
    delete written.plan.abridgements;
    await writeFile(file!, JSON.stringify(written));

    stores = await createEmbeddedStores({ dataDir, logger: noopLogger });
    const current = await stores.plans.getCurrent(TENANT, THREAD);
    expect(current.plan?.abridgements).toEqual([]);
    expect(normalizePlan(current.plan!).actions.get('m1')?.action).toBe('clear');
    expect((await stores.plans.getVersion(TENANT, THREAD, 1))?.abridgements).toEqual([]);
  });
});
