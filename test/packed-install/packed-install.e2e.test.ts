/**
 * The published form, as an integrator gets it: every public package is built, packed with
 * `pnpm pack` (which applies each package's `publishConfig`: exports, main and types point at
 * `dist/`), and installed with npm from the tarballs into a fresh project outside the workspace.
 * Third-party dependencies come from the registry (or npm's cache). The consumer then type-checks
 * an agent loop against the installed declarations, runs it on this Node, and imports every
 * package in plain ESM. Skipped by name only when the npm registry does not answer.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);

/** `execFile`, whose failure says what the command wrote to stderr (the last 2,000 characters). */
async function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; maxBuffer?: number; timeout?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { encoding: 'utf8', ...options });
    return { stdout: String(stdout), stderr: String(stderr) };
  } catch (error) {
    const output = error as { stderr?: unknown; stdout?: unknown };
    const detail = `${String(output.stderr ?? '')}\n${String(output.stdout ?? '')}`.trim().slice(-2_000);
    throw new Error(`${command} ${args.join(' ')} failed in ${options.cwd ?? '.'}:\n${detail}`, {
      cause: error,
    });
  }
}
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const consumerSources = resolve(repositoryRoot, 'test/packed-install/packed-consumer');

/** npm and pnpm pass their own settings down as npm_* variables; the consumer must not inherit them. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('npm_') || key.startsWith('PNPM_') || key === 'INIT_CWD') continue;
    environment[key] = value;
  }
  return environment;
}

/**
 * Whether npm reaches its registry, asked of npm itself (`npm ping`): npm reads its own CA file and
 * proxy settings from its config files, which Node's fetch would not (a TLS-intercepting proxy's
 * CA reaches Node only through NODE_EXTRA_CA_CERTS, which Turborepo's strict environment strips
 * unless the task passes it through). Returns why not, or undefined when it answers.
 */
async function registryProblem(): Promise<string | undefined> {
  try {
    await run('npm', ['ping'], { env: cleanEnvironment(), timeout: 30_000 });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    const reason = stderr.split('\n').find((line) => /npm (error|ERR!)/.test(line)) ?? String(error);
    return reason.replace(/\s+/g, ' ').trim().slice(0, 160);
  }
}

interface PublicPackage {
  name: string;
  directory: string;
}

async function publicPackages(): Promise<PublicPackage[]> {
  const packagesDirectory = resolve(repositoryRoot, 'packages');
  const found: PublicPackage[] = [];
  for (const entry of (await readdir(packagesDirectory)).sort()) {
    const directory = join(packagesDirectory, entry);
    const manifest = JSON.parse(await readFile(join(directory, 'package.json'), 'utf8').catch(() => '{}'));
    if (manifest.name && manifest.private !== true) found.push({ name: manifest.name, directory });
  }
  return found;
}

describe('public package manifests (checked without the registry)', () => {
  it('a public package depends only on public packages of ours, and publishes what it exports', async () => {
    const packages = await publicPackages();
    const publicNames = new Set(packages.map((entry) => entry.name));
    const problems: string[] = [];
    for (const entry of packages) {
      const manifest = JSON.parse(await readFile(join(entry.directory, 'package.json'), 'utf8'));
      for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }))
        if (dependency.startsWith('@compactor/') && !publicNames.has(dependency))
          problems.push(
            `${entry.name} depends on ${dependency}, which is private (its tarball would not install)`,
          );
      // Every workspace entry point but ./bench (workspace-only, ADR-0080) is published from dist/.
      for (const subpath of Object.keys(manifest.exports ?? {}))
        if (subpath !== './bench' && manifest.publishConfig?.exports?.[subpath] === undefined)
          problems.push(`${entry.name} exports ${subpath} in the workspace but not in publishConfig`);
      if (manifest.scripts?.build === undefined) problems.push(`${entry.name} has no build script`);
    }
    expect(problems).toEqual([]);
  });
});

const unreachable = await registryProblem();
const suiteName =
  unreachable === undefined
    ? 'packed install outside the workspace'
    : `packed install outside the workspace (skipped: npm does not reach its registry: ${unreachable})`;

describe.skipIf(unreachable !== undefined)(suiteName, () => {
  let consumer = '';
  let packages: PublicPackage[] = [];

  beforeAll(async () => {
    packages = await publicPackages();
    const filters = packages.flatMap((entry) => ['--filter', entry.name]);
    await run('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only', ...filters], {
      cwd: repositoryRoot,
      maxBuffer: 64 * 1024 * 1024,
    });

    consumer = await mkdtemp(join(tmpdir(), 'compactor-packed-consumer-'));
    const tarballs = join(consumer, 'tarballs');
    await mkdir(tarballs);
    // One pnpm process packs them all (a process per package cost a second or more of start-up each).
    await run('pnpm', ['--recursive', ...filters, 'pack', '--pack-destination', tarballs], {
      cwd: repositoryRoot,
      maxBuffer: 64 * 1024 * 1024,
    });

    const dependencies: Record<string, string> = { '@types/node': '^20.19.0' };
    const overrides: Record<string, string> = {};
    for (const file of await readdir(tarballs)) {
      const manifest = await tarballManifest(join(tarballs, file));
      dependencies[manifest.name] = `file:./tarballs/${file}`;
      // The packed manifests depend on each other by version; point those at the tarballs too.
      overrides[manifest.name] = `$${manifest.name}`;
    }
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'packed-consumer', private: true, type: 'module', dependencies, overrides }),
    );
    for (const file of ['agent-loop.ts', 'run.ts', 'tsconfig.json']) {
      await copyFile(join(consumerSources, file), join(consumer, file));
    }
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: consumer,
      env: cleanEnvironment(),
      maxBuffer: 64 * 1024 * 1024,
    });
    // Building every package after a change to core, and npm fetching what its cache lacks, takes
    // 1.5–5 minutes on the shared two-core machine under load.
  }, 600_000);

  afterAll(async () => {
    if (consumer) await rm(consumer, { recursive: true, force: true });
  });

  it('installs every public package from its tarball, outside the workspace', async () => {
    expect(consumer.startsWith(repositoryRoot)).toBe(false);
    expect(packages.map((entry) => entry.name)).toEqual(
      expect.arrayContaining([
        '@compactor/core',
        '@compactor/tokenizer',
        '@compactor/render',
        '@compactor/summarizer',
        '@compactor/engine',
        '@compactor/client',
        '@compactor/embedded',
        '@compactor/runtime',
      ]),
    );
    for (const entry of packages) {
      const installed = JSON.parse(
        await readFile(join(consumer, 'node_modules', entry.name, 'package.json'), 'utf8'),
      );
      expect(installed.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' });
      expect(installed.private).toBeUndefined();
      expect(installed.license).toBe('MIT');
      expect(installed.sideEffects).toBe(false);
    }
  });

  it('every package loads in plain Node ESM, without tsx', async () => {
    const names = [...packages.map((entry) => entry.name), '@compactor/render/validate'];
    const script = `for (const name of ${JSON.stringify(names)}) {
  const exported = Object.keys(await import(name));
  if (exported.length === 0) throw new Error(name + ' exports nothing');
  process.stdout.write(name + ' ' + exported.length + '\\n');
}`;
    await writeFile(join(consumer, 'import-all.mjs'), script);
    const { stdout } = await run(process.execPath, ['import-all.mjs'], { cwd: consumer });
    expect(stdout.trim().split('\n')).toHaveLength(names.length);
  }, 60_000);

  it('type-checks an agent loop against the installed declarations and runs it within budget', async () => {
    const tsc = resolve(repositoryRoot, 'node_modules/typescript/bin/tsc');
    // One tsc run is the type check and the build: the consumer's tsconfig sets noEmitOnError, and
    // skipLibCheck is off, so every shipped .d.ts is checked too.
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer });
    const { stdout } = await run(process.execPath, ['out/run.js', '40'], { cwd: consumer });
    const result = JSON.parse(stdout) as {
      steps: number;
      commits: number;
      ceiling: number;
      largestRequestTokens: number;
    };
    expect(result.steps).toBe(40);
    expect(result.commits).toBeGreaterThan(0);
    expect(result.largestRequestTokens).toBeLessThanOrEqual(result.ceiling);
  }, 180_000);
});

async function tarballManifest(file: string): Promise<{ name: string }> {
  const { stdout } = await run('tar', ['-xOzf', file, 'package/package.json']);
  return JSON.parse(stdout);
}
