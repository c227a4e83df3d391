/** The testkit's arbitraries and builder (a dev-only cycle: testkit depends on core, core's tests on testkit). */
export * from '@compactor/testkit/arbitraries';
export * from '@compactor/testkit/thread-builder';
