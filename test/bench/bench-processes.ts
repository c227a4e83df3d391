/** Process helpers the ingest benchmarks share: start, stop, wait for health, and run the load process. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { repositoryRoot } from '../e2e/serve-process.js';

/** Stop a child with SIGTERM and wait until it has exited. */
export function stop(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

/**
 * Run the separate load process (`append-load.ts`) and return the figures it prints last.
 * `onMeasuring` is called when its warm-up is over and the measured run starts.
 */
export function runLoad(options: object, onMeasuring?: () => void): Promise<Record<string, unknown>> {
  return new Promise((resolvePromise, reject) => {
    const load = spawn(
      process.execPath,
      ['--import', 'tsx', resolve(repositoryRoot, 'test/bench/append-load.ts'), JSON.stringify(options)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    load.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (onMeasuring && output.includes('"phase":"measuring"')) {
        onMeasuring();
        onMeasuring = undefined;
      }
    });
    load.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`the load process exited with ${code}`));
      resolvePromise(JSON.parse(output.trim().split('\n').at(-1)!));
    });
  });
}

/** Wait up to 60 s for `/healthz` to answer. */
export async function waitForHealth(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`${url} did not become healthy`);
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePromise(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const clockTicksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, closed by the last ')').
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return Number.NaN;
  }
}
