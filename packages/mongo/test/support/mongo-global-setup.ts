import type { TestProject } from 'vitest/node';
import { findMongoForTests, type MongoForTests } from './mongo-for-tests.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongo: MongoForTests;
  }
}

/**
 * Once per test run, before any suite: the MongoDB the suites use (MONGODB_URI, or a
 * mongodb-memory-server replica set), or why there is none. Stopped after the last suite.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { mongo, stop } = await findMongoForTests();
  project.provide('mongo', mongo);
  return stop;
}
