import { defineConfig } from 'vitest/config';

// The CLI's tests keep vitest's per-file isolation: baselines.unit.test.ts mocks modules (ADR-0200).
// The bundle the command runs from is built once, before any test file runs (ADR-0201).
export default defineConfig({
  test: {
    globalSetup: ['./test/build-bundle.global-setup.ts'],
  },
});
