import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Verbose, so a run without PostgreSQL lists each skipped suite by its name and the reason.
    reporters: ['verbose'],
  },
});
