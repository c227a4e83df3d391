import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Verbose, so a run without PostgreSQL lists each skipped suite by its name and the reason.
      reporters: ['verbose'],
    },
  }),
);
