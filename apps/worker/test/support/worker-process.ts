import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LogLine {
  msg?: string;
  [field: string]: unknown;
}

export interface WorkerChild {
  child: ChildProcess;
  /** Every pino line the child wrote, parsed. */
  logs: LogLine[];
  /** Resolves with the first log line whose message is `message` (waiting for it if needed). */
  waitForLog(message: string, timeoutMs?: number): Promise<LogLine>;
  /** Resolves when the child has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it printed, for failure messages. */
  output(): string;
}

const workerDirectory = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `src/main.ts` in a child process, exactly as `pnpm start` runs it (tsx), with only `environment`
 * (plus PATH and HOME) in its environment, so nothing leaks in from the test's own.
 */
export function spawnWorker(environment: Record<string, string>): WorkerChild {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: workerDirectory,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  let text = '';
  let pending = '';
  const waiters: Array<() => void> = [];
  child.stdout?.on('data', (chunk: Buffer) => {
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
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      for (const wake of waiters.splice(0)) wake();
      resolve({ code, signal });
    });
  });
  const waitForLog = async (message: string, timeoutMs = 20_000): Promise<LogLine> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = logs.find((line) => line.msg === message);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`the worker exited before logging "${message}":\n${text}`);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no "${message}" from the worker within ${timeoutMs} ms:\n${text}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, 250));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return { child, logs, waitForLog, exited, output: () => text };
}
