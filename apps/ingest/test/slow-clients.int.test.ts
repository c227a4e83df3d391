import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_A, listenOnLoopback, startTestIngest, type TestIngest } from './support.js';

// Short deadlines so the test takes seconds; production defaults are in defaultIngestTimeouts.
const timeouts = {
  headersMs: 1_000,
  requestMs: 2_000,
  idleMs: 4_000,
  keepAliveMs: 600,
  checkIntervalMs: 200,
};
const TRICKLE_EVERY_MS = 100;
let ingest: TestIngest;
let port: number;

beforeAll(async () => {
  ingest = await startTestIngest({ timeouts });
  ({ port } = await listenOnLoopback(ingest.app));
});
afterAll(async () => {
  await ingest.cleanup();
});

interface Trickle {
  socket: Socket;
  /** Resolves with ms from connect to close, and what the server wrote. */
  closed: Promise<{ afterMs: number; received: string }>;
  stop(): void;
}

/** Connect, send `opening`, then one byte every TRICKLE_EVERY_MS: a client that never finishes. */
function trickle(opening: string, byte = 'a'): Trickle {
  const socket = connect({ host: '127.0.0.1', port });
  const started = Date.now();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    socket.write(opening);
    timer = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(byte);
    }, TRICKLE_EVERY_MS);
  });
  const closed = new Promise<{ afterMs: number; received: string }>((resolve) => {
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ afterMs: Date.now() - started, received: Buffer.concat(chunks).toString('utf8') });
    });
  });
  return { socket, closed, stop: () => socket.destroy() };
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms),
    ),
  ]);
}

describe('slow clients', () => {
  it('closes a connection whose headers trickle in one byte at a time (408 in our envelope)', async () => {
    const client = trickle('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 'z');
    const { afterMs, received } = await within(client.closed, 8_000);
    expect(afterMs).toBeGreaterThanOrEqual(timeouts.headersMs - 100);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toContain('"code":"request_timeout"');
  });

  it('closes a connection whose body trickles in after complete headers', async () => {
    const client = trickle(
      `POST /v1/threads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY_A}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"model":"',
    );
    const { afterMs } = await within(client.closed, 8_000);
    expect(afterMs).toBeGreaterThanOrEqual(timeouts.requestMs - 100);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const client = trickle('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '');
    const { afterMs, received } = await within(client.closed, 8_000);
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(afterMs).toBeLessThan(timeouts.idleMs);
  });

  it('closes 100 trickling connections while /healthz keeps answering', async () => {
    const clients = Array.from({ length: 100 }, () =>
      trickle('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '),
    );
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    const results = await within(Promise.all(clients.map((client) => client.closed)), 10_000);
    expect(results).toHaveLength(100);
    for (const client of clients) client.stop();
  });
});
