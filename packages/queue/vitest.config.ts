import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Verbose, so a run without Redis lists each skipped suite with its install command.
      reporters: ['verbose'],
    },
  }),
);
