#!/usr/bin/env node
/**
 * The `compactor` command. Runs the bundle in `dist/` with plain Node; builds it first when it is
 * missing or older than any source it was built from, so a fresh checkout and an edited one both
 * run current code without a separate build step (the check stats a few hundred files: milliseconds).
 *
 * CommonJS (see ./package.json), because its first line must run before libuv's thread pool
 * starts: the pool runs every file system call, and `compactor serve` on the embedded store makes
 * one write and one fdatasync per append; with the default four threads, appends to sixteen
 * threads wait for each other's syncs (ADR-0131). An ES module entry is itself read through the
 * pool, which fixes its size before any code runs. A size given in the environment wins.
 */
process.env.UV_THREADPOOL_SIZE ??= '16';

const { existsSync, readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const entry = join(__dirname, '../dist/compactor.js');
const inputs = join(__dirname, '../dist/compactor.inputs.json');

function bundleIsStale() {
  if (!existsSync(entry) || !existsSync(inputs)) return true;
  const builtAt = statSync(entry).mtimeMs;
  const sources = JSON.parse(readFileSync(inputs, 'utf8'));
  return sources.some((source) => !existsSync(source) || statSync(source).mtimeMs > builtAt);
}

(async () => {
  if (bundleIsStale()) {
    const { buildCli } = await import(pathToFileURL(join(__dirname, '../scripts/build-cli.mjs')).href);
    await buildCli();
  }
  await import(pathToFileURL(entry).href);
})().catch((error) => {
  process.exitCode = 1;
  process.stderr.write(`${error?.stack ?? error}\n`);
});
