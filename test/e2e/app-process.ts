import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { repositoryRoot } from './serve-process.js';

export interface LogLine {
  msg?: string;
  [field: string]: unknown;
}

export interface AppProcess {
  child: ChildProcess;
  /** Every pino line the process wrote, parsed. */
  logs: LogLine[];
  /** The first log line matching `matches`, waiting for it (fails if the process exits first). */
  waitForLog(matches: (line: LogLine) => boolean, what: string, timeoutMs?: number): Promise<LogLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  /** Send `signal` (unless it has exited) and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `node --import tsx <main>` of an app (e.g. `apps/ingest/src/main.ts`), as `pnpm start` runs it,
 * with only `environment` (plus PATH and HOME), so nothing leaks in from the test's own.
 */
export function startApp(main: string, environment: Record<string, string>): AppProcess {
  const appDirectory = resolve(repositoryRoot, main, '../..');
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(repositoryRoot, main)], {
    cwd: appDirectory,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  let text = '';
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        // not a log line
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolvePromise) => {
    child.once('exit', (code, signal) => resolvePromise({ code, signal }));
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    logs,
    exited,
    output: () => text,
    async waitForLog(matches, what, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logs.find(matches);
        if (found) return found;
        if (!running()) throw new Error(`${main} exited before logging ${what}:\n${text}`);
        if (Date.now() > deadline)
          throw new Error(`no ${what} from ${main} within ${timeoutMs} ms:\n${text}`);
        await new Promise((resolvePromise) => setTimeout(resolvePromise, 25));
      }
    },
    async stop(signal = 'SIGTERM') {
      if (running()) child.kill(signal);
      return exited;
    },
  };
}
