import { defineConfig } from 'vitest/config';

/**
 * Settings every package's vitest.config.ts merges in (ADR-0200).
 *
 * `isolate: false`: a worker keeps its module graph from one test file to the next instead of
 * importing every module again per file. Re-importing cost more than the tests themselves in most
 * packages (core: 16 s of CPU isolated against 5.5 s shared; the tokenizer rebuilt its encodings for
 * every file). No test file mocks a module but the CLI's baselines test, which runs isolated in its
 * own config. `COMPACTOR_TEST_ISOLATE=1` turns isolation back on, to tell an order-dependent failure
 * from a real one.
 */
export default defineConfig({
  test: {
    isolate: process.env.COMPACTOR_TEST_ISOLATE === '1',
  },
});
