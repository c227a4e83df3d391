import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Verbose, so a run without Redis or MONGODB_URI lists each skipped suite by its name and run command.
    reporters: ['verbose'],
  },
});
