import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Start `compactor serve` as a user would and wait until it says where it listens. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', resolve(repositoryRoot, 'apps/cli/src/main.ts'), 'serve', ...args],
    {
      cwd: repositoryRoot,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stdout}\n${stderr}`)), 60_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearInterval(poll);
        clearTimeout(timer);
        resolvePromise(match[1]!);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${stdout}\n${stderr}`));
    });
  });
  return {
    url,
    child,
    output: () => `${stdout}\n${stderr}`,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolvePromise) => {
        if (child.exitCode !== null) return resolvePromise(child.exitCode);
        child.once('exit', (code) => resolvePromise(code));
        child.kill(signal);
      }),
  };
}
