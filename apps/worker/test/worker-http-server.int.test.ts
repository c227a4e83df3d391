import { noopLogger } from '@compactor/core';
import type { Readiness } from '@compactor/runtime';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startWorkerHttpServer, type WorkerHttpServer } from '../src/index.js';

const servers: WorkerHttpServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function serve(readiness: Readiness, metrics = new Registry()): Promise<string> {
  const server = await startWorkerHttpServer({
    port: 0,
    host: '127.0.0.1',
    metrics,
    ready: async () => readiness,
    logger: noopLogger,
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

describe('the worker’s HTTP listener', () => {
  it('serves the registry in the Prometheus text format', async () => {
    const metrics = new Registry();
    new Counter({ name: 'test_things_total', help: 'things', registers: [metrics] }).inc(3);
    const base = await serve({ ok: true, checks: {} }, metrics);
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(metrics.contentType);
    expect(await response.text()).toContain('test_things_total 3');
  });

  it('answers /readyz with 200 when every dependency answers and 503 with the failing check otherwise', async () => {
    const ready = await serve({ ok: true, checks: { store: 'ok', queue: 'ok' } });
    expect((await fetch(`${ready}/readyz`)).status).toBe(200);
    const failing: Readiness = { ok: false, checks: { store: 'ok', queue: 'no answer within 2000 ms' } };
    const notReady = await serve(failing);
    const response = await fetch(`${notReady}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual(failing);
    // Liveness does not depend on the dependencies.
    expect((await fetch(`${notReady}/healthz`)).status).toBe(200);
  });

  it('answers 404 to other paths and 405 to other methods', async () => {
    const base = await serve({ ok: true, checks: {} });
    expect((await fetch(`${base}/jobs`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
