/**
 * Builds the `compactor` bundle once per test run, before any test file starts (ADR-0201): the
 * tests then run the command as a user does (`bin/compactor.js`, plain Node), and no two test files
 * rebuild it at the same time (a build clears `dist/` first).
 */
export default async function setup(): Promise<void> {
  // @ts-expect-error: a plain ES module script without declarations
  const { buildCli } = await import('../scripts/build-cli.mjs');
  await buildCli();
}
