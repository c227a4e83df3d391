import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Verbose, so a run without Redis lists each skipped suite by its name and install command.
    reporters: ['verbose'],
  },
});
