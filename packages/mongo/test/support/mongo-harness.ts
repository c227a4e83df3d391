import { randomUUID } from 'node:crypto';
import { type Clock, systemClock } from '@compactor/core';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, inject, it } from 'vitest';
import { createMongoStores, type MongoStores } from '../../src/index.js';

/**
 * The MongoDB under test (a replica set: transactions), found once per run by the global setup:
 * MONGODB_URI, or a mongodb-memory-server replica set where its binary can be had.
 */
const mongo = inject('mongo');

/** The exact command that runs these suites (see README.md for starting a one-node replica set). */
export const MONGO_TEST_COMMAND =
  'MONGODB_URI=mongodb://127.0.0.1:27017/?replicaSet=rs0 pnpm --filter @compactor/mongo test';

/**
 * A suite against that MongoDB. Without one the suite is reported as skipped under a name that
 * says why and how to run it. Nothing is faked: a mock of the driver would prove nothing about
 * the adapter.
 */
export function describeWithMongo(suiteName: string, body: (uri: string) => void): void {
  if (!mongo.available) {
    describe.skip(`${suiteName} — SKIPPED: MONGODB_URI is not set and ${mongo.reason}; run it with: ${MONGO_TEST_COMMAND}`, () => {
      it(`${suiteName} needs a MongoDB replica set`, () => {});
    });
    return;
  }
  const { uri } = mongo;
  describe(`${suiteName} (${mongo.source})`, () => body(uri));
}

/**
 * Stores on a fresh database per suite (dropped afterwards): registers beforeAll/afterAll in the
 * enclosing describe and returns an accessor valid inside its tests.
 */
export function useMongoStores(uri: string, suite: string, clock: Clock = systemClock): () => MongoStores {
  let client: MongoClient | undefined;
  let stores: MongoStores | undefined;
  const dbName = `compactor_test_${suite}_${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    client = new MongoClient(uri);
    await client.connect();
    stores = createMongoStores({ client, dbName, clock });
    await stores.ensureIndexes();
  }, 60_000);
  afterAll(async () => {
    await client?.db(dbName).dropDatabase();
    await stores?.close();
    await client?.close();
  }, 60_000);
  return () => {
    if (stores === undefined) throw new Error('the MongoDB stores are not open yet');
    return stores;
  };
}
