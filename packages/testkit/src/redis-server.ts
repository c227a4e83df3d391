import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/**
 * Redis for tests: `REDIS_URL` when set, otherwise a private `redis-server` from PATH on a free
 * loopback port (isolated from whatever else uses 6379), otherwise nothing, and the suites that
 * need it are skipped by name with the install command below.
 */
export interface RedisForTests {
  url: string;
  stop(): Promise<void>;
}

/** Append to the name of a suite that is skipped because no Redis is available. */
export const redisInstallHint = '(needs Redis: set REDIS_URL or apt-get install -y redis-server)';

const startupTimeoutMs = 5_000;

/**
 * Whether Redis can be had for tests; synchronous, so it can decide `describe.skipIf` at collection time.
 *
 * @returns True when `REDIS_URL` is set or `redis-server` is on PATH.
 */
export function redisAvailableForTests(): boolean {
  return Boolean(process.env.REDIS_URL) || findRedisServerBinary() !== undefined;
}

/**
 * Redis for a suite: `REDIS_URL` when set (its `stop` does nothing), else a private `redis-server`
 * on a free loopback port.
 *
 * @returns The server, or null when neither is available.
 * @throws Error when `redis-server` exists but does not start (three ports tried).
 */
export async function startRedisForTests(): Promise<RedisForTests | null> {
  const externalUrl = process.env.REDIS_URL;
  if (externalUrl) return { url: externalUrl, stop: async () => {} };
  const binary = findRedisServerBinary();
  if (binary === undefined) return null;
  // The free port can be taken between our probe and redis binding it; try a few ports.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await startPrivateRedis(binary, await findFreeLoopbackPort());
    } catch (error) {
      lastError = error;
    }
  }
  throw new Error(`could not start redis-server: ${String(lastError)}`, { cause: lastError });
}

function findRedisServerBinary(): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (!directory) continue;
    const candidate = join(directory, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function findFreeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

async function startPrivateRedis(binary: string, port: number): Promise<RedisForTests> {
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    await stopChild(child);
  };
  try {
    await waitForPing(port, child);
  } catch (error) {
    await stop();
    throw new Error(`redis-server on port ${port} did not answer PING: ${String(error)} ${stderr}`.trim());
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}

async function waitForPing(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + startupTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    if (await answersPing(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no answer within ${startupTimeoutMs} ms`);
}

/** One raw RESP round trip, so the testkit needs no Redis client library. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const forceKill = setTimeout(() => child.kill('SIGKILL'), 2_000);
    child.once('exit', () => {
      clearTimeout(forceKill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * For suites already skipped by name when Redis is unavailable: start it, or fail the suite loudly.
 *
 * @returns The server.
 * @throws Error when Redis cannot be started.
 */
export async function requireRedisForTests(): Promise<RedisForTests> {
  const started = await startRedisForTests();
  if (!started) throw new Error('redis-server was found (or REDIS_URL set) but Redis did not answer');
  return started;
}

/** A private redis-server that a test can take down and bring back on the same port (an outage). */
export interface RestartableRedisForTests extends RedisForTests {
  /** Stop the server; clients see connection refused until `restart`. */
  takeDown(): Promise<void>;
  /** Start a fresh, empty server on the same port. */
  restart(): Promise<void>;
}

/**
 * Synchronous, for `describe.skipIf`: outages need a private `redis-server` (not an external REDIS_URL).
 *
 * @returns True when `redis-server` is on PATH.
 */
export function restartableRedisAvailableForTests(): boolean {
  return findRedisServerBinary() !== undefined;
}

/**
 * A private `redis-server` on a free loopback port that a test can take down and restart.
 *
 * @returns The server.
 * @throws Error when `redis-server` is not on PATH or does not start.
 */
export async function startRestartableRedisForTests(): Promise<RestartableRedisForTests> {
  const binary = findRedisServerBinary();
  if (binary === undefined) throw new Error(`no redis-server on PATH ${redisInstallHint}`);
  const port = await findFreeLoopbackPort();
  let current: RedisForTests | undefined = await startPrivateRedis(binary, port);
  return {
    url: `redis://127.0.0.1:${port}`,
    async takeDown() {
      await current?.stop();
      current = undefined;
    },
    async restart() {
      if (current) return;
      current = await startPrivateRedis(binary, port);
    },
    async stop() {
      await current?.stop();
      current = undefined;
    },
  };
}
