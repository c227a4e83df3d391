import { configDefaults, defineConfig } from 'vitest/config';

// The end-to-end and fault files each start servers, workers or a browser of their own, and two
// of them measure (the memory soak's peak RSS, the scale-out run): one file at a time keeps them
// from starving each other on a two-core machine, at little cost in total time.
// packed-install/ is a package of its own with its own turbo task (ADR-0202).
export default defineConfig({
  test: {
    fileParallelism: false,
    exclude: [...configDefaults.exclude, 'packed-install/**'],
  },
});
