import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Verbose, so a run without Redis lists each skipped suite with its install command.
    reporters: ['verbose'],
  },
});
