#!/usr/bin/env node
/**
 * The `compactor` command. Runs the bundle in `dist/` with plain Node; builds it first when it is
 * missing or older than any source it was built from, so a fresh checkout and an edited one both
 * run current code without a separate build step (the check stats a few hundred files: milliseconds).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';

const entry = new URL('../dist/compactor.js', import.meta.url);
const inputs = new URL('../dist/compactor.inputs.json', import.meta.url);

function bundleIsStale() {
  if (!existsSync(entry) || !existsSync(inputs)) return true;
  const builtAt = statSync(entry).mtimeMs;
  const sources = JSON.parse(readFileSync(inputs, 'utf8'));
  return sources.some((source) => !existsSync(source) || statSync(source).mtimeMs > builtAt);
}

if (bundleIsStale()) {
  const { buildCli } = await import('../scripts/build-cli.mjs');
  await buildCli();
}
await import(entry.href);
