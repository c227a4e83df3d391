import type { FastifyInstance } from 'fastify';

const DEBUG_LEVELS = new Set(['debug', 'trace']);

/**
 * One log line per request, without its query string or body (a `system=` query or a message may
 * hold secrets): method, route template, path, status and time. At debug level, because synchronous
 * info logging of every request costs about 40% of append throughput; a request slower than
 * `slowRequestMs` is logged at info. Failures are logged by the error handler.
 */
export function installRequestLogging(app: FastifyInstance, slowRequestMs: number): void {
  app.addHook('onResponse', async (request, reply) => {
    const elapsedMs = reply.elapsedTime;
    const slow = elapsedMs >= slowRequestMs;
    if (!slow && !DEBUG_LEVELS.has(request.log.level)) return;
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      path: request.url.split('?', 1)[0],
      status: reply.statusCode,
      elapsedMs: Math.round(elapsedMs * 10) / 10,
    };
    if (slow) request.log.info(line, 'slow request');
    else request.log.debug(line, 'request');
  });
}
