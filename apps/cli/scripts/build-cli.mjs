/**
 * Builds the `compactor` command into ES modules in `dist/` (`compactor.js` plus one chunk per
 * lazily loaded command), so that starting it costs Node's start and no TypeScript transform (tsx
 * spent about two seconds on every call).
 *
 * The bundle is a workspace artifact: the CLI is private and runs from this checkout. So every
 * third-party import is left external but pointed at the file it resolves to from its importer
 * (the bundle's own folder has none of the packages' dependencies), and `import.meta.url` keeps
 * meaning the original source file (the tokenizer loads encodings and testkit finds the corpus
 * relative to it). `dist/compactor.inputs.json` lists the sources, for the launcher's staleness check.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const cliRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outputDirectory = resolve(cliRoot, 'dist');

/** Third-party packages stay outside the bundle, imported by their resolved path. */
const externalDependencies = {
  name: 'external-dependencies-by-path',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@compactor/') || args.pluginData === 'resolving') return undefined;
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      const resolved = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: 'resolving',
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      if (!resolved.path.includes('/node_modules/')) return { path: args.path, external: true };
      const fromOutput = relative(outputDirectory, resolved.path);
      return { path: fromOutput.startsWith('.') ? fromOutput : `./${fromOutput}`, external: true };
    });
  },
};

/** `import.meta.url` in a bundled source keeps naming that source, not the bundle. */
const sourceLocation = {
  name: 'source-import-meta-url',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const url = JSON.stringify(pathToFileURL(args.path).href);
      return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

export async function buildCli() {
  // Chunk names are content hashes: clear the previous build so no stale chunk lingers.
  await rm(outputDirectory, { recursive: true, force: true });
  const result = await build({
    entryPoints: [resolve(cliRoot, 'src/main.ts')],
    outdir: outputDirectory,
    entryNames: 'compactor',
    // Chunks sit beside the entry, so one relative path to a dependency serves every output file.
    chunkNames: 'chunk-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    metafile: true,
    logLevel: 'warning',
    plugins: [externalDependencies, sourceLocation],
  });
  const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(process.cwd(), input));
  await writeFile(resolve(outputDirectory, 'compactor.inputs.json'), JSON.stringify(inputs));
  return resolve(outputDirectory, 'compactor.js');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildCli();
}
