import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@compactor/core';
import type { Readiness } from '@compactor/runtime';
import type { Registry } from 'prom-client';

/** The running operator listener. */
export interface WorkerHttpServer {
  /** The port listened on (useful with port 0). */
  port: number;
  /** Stop listening. */
  close(): Promise<void>;
}

/** Where the operator listener listens and what it serves. */
export interface WorkerHttpServerOptions {
  /** 0 = any free port. */
  port: number;
  host: string;
  /** Served at `/metrics`. */
  metrics: Registry;
  /** For `/readyz`: the runtime's dependency checks. */
  ready: () => Promise<Readiness>;
  logger: Logger;
}

/**
 * A small listener for operators: `GET /metrics` (Prometheus text format), `GET /healthz` (the
 * process is up) and `GET /readyz` (every dependency answers; 503 otherwise).
 *
 * @param options - Port, host, registry, readiness check and logger.
 * @returns The listener, once it listens.
 */
export async function startWorkerHttpServer(options: WorkerHttpServerOptions): Promise<WorkerHttpServer> {
  const server = createServer((request, response) => {
    route(request, response, options).catch((error: unknown) => {
      options.logger.error({ err: error, url: request.url }, 'worker http request failed');
      if (!response.headersSent) send(response, 500, 'application/json', '{"status":"error"}');
      else response.destroy();
    });
  });
  await listen(server, options.port, options.host);
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ port, host: options.host }, 'worker metrics listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

async function route(
  request: IncomingMessage,
  response: ServerResponse,
  options: WorkerHttpServerOptions,
): Promise<void> {
  const path = new URL(request.url ?? '/', 'http://worker').pathname;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    send(response, 405, 'application/json', '{"status":"method not allowed"}');
    return;
  }
  if (path === '/metrics') {
    send(response, 200, options.metrics.contentType, await options.metrics.metrics());
  } else if (path === '/healthz') {
    send(response, 200, 'application/json', '{"status":"ok"}');
  } else if (path === '/readyz') {
    const readiness = await options.ready();
    send(response, readiness.ok ? 200 : 503, 'application/json', JSON.stringify(readiness));
  } else {
    send(response, 404, 'application/json', '{"status":"not found"}');
  }
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType });
  response.end(body);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
