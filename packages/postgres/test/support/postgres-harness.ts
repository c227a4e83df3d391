import { type Clock, systemClock } from '@compactor/core';
import { dropSchema, uniqueSchemaName } from '@compactor/testkit/postgres';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresStores, type PostgresStores } from '../../src/index.js';

/**
 * Stores on a fresh schema per suite, migrated before its tests and dropped afterwards: registers
 * beforeAll/afterAll in the enclosing describe and returns an accessor valid inside its tests.
 */
export function usePostgresStores(
  url: string,
  purpose: string,
  clock: Clock = systemClock,
): () => PostgresStores {
  const schema = uniqueSchemaName(purpose);
  let stores: PostgresStores | undefined;
  beforeAll(async () => {
    stores = createPostgresStores({ connectionString: url, schema, clock });
    await stores.migrate();
  });
  afterAll(async () => {
    await stores?.close();
    await dropSchema(url, schema);
  });
  return () => {
    if (stores === undefined) throw new Error('the PostgreSQL stores are not open yet');
    return stores;
  };
}
