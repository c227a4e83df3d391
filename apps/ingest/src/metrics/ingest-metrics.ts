import { Counter, Histogram, type Registry } from 'prom-client';

/** The ingest's Prometheus metrics. */
export interface IngestMetrics {
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  appends: Counter<'outcome'>;
  eventsAppended: Counter;
  enqueueFailures: Counter<'reason'>;
}

function reuse<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}

/**
 * The ingest's metrics in `registry`. Registering twice in one registry returns the same
 * metrics, so an app and a worker in one process can share a registry.
 *
 * @param registry - The Prometheus registry.
 * @returns The metrics.
 */
export function createIngestMetrics(registry: Registry): IngestMetrics {
  const registers = [registry];
  return {
    httpRequests: reuse(
      registry,
      'compactor_http_requests_total',
      () =>
        new Counter({
          name: 'compactor_http_requests_total',
          help: 'HTTP requests answered, by method, route template and status',
          labelNames: ['method', 'route', 'status'],
          registers,
        }),
    ),
    httpDuration: reuse(
      registry,
      'compactor_http_request_duration_seconds',
      () =>
        new Histogram({
          name: 'compactor_http_request_duration_seconds',
          help: 'HTTP request duration, by method and route template',
          labelNames: ['method', 'route'],
          buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
          registers,
        }),
    ),
    appends: reuse(
      registry,
      'compactor_appends_total',
      () =>
        new Counter({
          name: 'compactor_appends_total',
          help: 'Append batches accepted, by outcome (stored = new events, retry = all duplicates)',
          labelNames: ['outcome'],
          registers,
        }),
    ),
    eventsAppended: reuse(
      registry,
      'compactor_events_appended_total',
      () =>
        new Counter({
          name: 'compactor_events_appended_total',
          help: 'New events stored by the ingest (duplicates of earlier appends not counted)',
          registers,
        }),
    ),
    enqueueFailures: reuse(
      registry,
      'compactor_enqueue_failures_total',
      () =>
        new Counter({
          name: 'compactor_enqueue_failures_total',
          help: 'Compaction checks that could not be enqueued (the thread was marked pending)',
          labelNames: ['reason'],
          registers,
        }),
    ),
  };
}
