import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Verbose, so a run without MongoDB lists each skipped suite by its name, reason and run command.
      reporters: ['verbose'],
      // Finds MongoDB once per run: MONGODB_URI, or a mongodb-memory-server replica set.
      globalSetup: ['./test/support/mongo-global-setup.ts'],
    },
  }),
);
