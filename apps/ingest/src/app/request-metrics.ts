import type { FastifyInstance } from 'fastify';
import type { IngestMetrics } from '../metrics/ingest-metrics.js';

/** Requests by route template (never the raw URL: ids would explode the label set). */
export function installRequestMetrics(app: FastifyInstance, metrics: IngestMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
}
