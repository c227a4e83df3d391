import { randomUUID } from 'node:crypto';
import { noopLogger } from '@compactor/core';
import { asInputs, codingSession } from '@compactor/testkit/sessions';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createRuntime, loadRuntimeConfig } from '../src/index.js';
import { temporaryDirectory } from './support/temporary-directory.js';

const mongoUri = process.env.MONGODB_URI;
const runCommand =
  'MONGODB_URI=mongodb://127.0.0.1:27017/?replicaSet=rs0 pnpm --filter @compactor/runtime test';
const suiteName = mongoUri
  ? 'createRuntime with MongoDB'
  : `createRuntime with MongoDB — SKIPPED: MONGODB_URI is not set; run it with: ${runCommand}`;

describe.skipIf(!mongoUri)(suiteName, () => {
  const dbName = `compactor_runtime_test_${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    const client = new MongoClient(mongoUri!);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });

  it('ensures indexes, stores events and plans in MongoDB, compacts, and reports ready', async () => {
    const directory = await temporaryDirectory('compactor-runtime-mongo-');
    const config = loadRuntimeConfig({
      COMPACTOR_STORE: 'mongo',
      MONGODB_URI: mongoUri!,
      MONGODB_DB: dbName,
      COMPACTOR_DATA_DIR: directory.path,
    });
    const runtime = await createRuntime(config, { logger: noopLogger });
    try {
      const { events } = codingSession('thread-mongo');
      await runtime.stores.events.append('tenant-a', 'thread-mongo', asInputs(events));
      const result = await runtime.engine.check('tenant-a', 'thread-mongo');
      expect(result.commit).toEqual({ status: 'committed', version: 1 });
      expect(await runtime.ready()).toEqual({
        ok: true,
        checks: { store: 'ok', artifacts: 'ok', queue: 'ok' },
      });
      const client = new MongoClient(mongoUri!);
      try {
        const indexes = await client.db(dbName).collection('events').indexes();
        expect(indexes.length).toBeGreaterThan(1);
        expect(await client.db(dbName).collection('events').countDocuments()).toBe(events.length);
      } finally {
        await client.close();
      }
    } finally {
      await runtime.close();
      await directory.remove();
    }
  });
});
