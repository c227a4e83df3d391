import type { FastifyInstance } from 'fastify';
import type { IngestContext } from '../app/ingest-context.js';
import { withoutFilePaths } from '../errors/redact-paths.js';
import { errorBodyJsonSchema, objectResponse } from '../schemas/openapi-schemas.js';

const PROBE_TENANT = 'compactor-readiness-probe';
const PROBE_THREAD = 'probe';
const PROBE_ARTIFACT = `art_${'0'.repeat(64)}`;
const READINESS_TIMEOUT_MS = 2_000;

/** `root` is the application itself: its `swagger()` document covers every route. */
export function registerOperationsRoutes(
  app: FastifyInstance,
  root: FastifyInstance,
  context: IngestContext,
): void {
  const { stores, storageWriteProbe } = context.dependencies;
  const registry = context.dependencies.metrics;

  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: the process answers',
        tags: ['operations'],
        response: { 200: objectResponse('Alive', { status: { type: 'string' } }) },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: every store answers, and the data directory (if any) takes writes',
        tags: ['operations'],
        response: {
          200: objectResponse('Ready', { status: { type: 'string' }, checks: { type: 'object' } }),
          503: { ...errorBodyJsonSchema, description: 'A store is not usable (details.checks says which)' },
        },
      },
    },
    async (_request, reply) => {
      const probeContext = { requesterId: 'readiness-probe', tenantId: PROBE_TENANT, permissions: [] };
      const probes: Record<string, () => Promise<unknown>> = {
        events: () => stores.events.getThread(PROBE_TENANT, PROBE_THREAD),
        plans: () => stores.plans.getCurrent(PROBE_TENANT, PROBE_THREAD),
        artifacts: () => stores.artifacts.getMetadata(PROBE_ARTIFACT, probeContext),
        lifecycle: () => stores.lifecycle.list(PROBE_TENANT, PROBE_THREAD, { limit: 1 }),
        ...(storageWriteProbe ? { storageWrites: storageWriteProbe } : {}),
      };
      const entries = await Promise.all(
        Object.entries(probes).map(async ([name, probe]) => [name, await check(probe)] as const),
      );
      const checks = Object.fromEntries(entries);
      if (entries.every(([, outcome]) => outcome === 'ok')) return { status: 'ready', checks };
      context.logger.warn({ checks }, 'not ready: a store does not answer');
      reply.code(503).header('retry-after', '1');
      return { error: { code: 'unavailable', message: 'a store is not usable', details: { checks } } };
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics (text exposition format)',
        tags: ['operations'],
        produces: ['text/plain'],
        response: { 200: { description: 'Prometheus text', type: 'string' } },
      },
    },
    async (_request, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    },
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This OpenAPI document',
        tags: ['operations'],
        response: { 200: objectResponse('OpenAPI 3 document') },
      },
    },
    async () => root.swagger(),
  );
}

async function check(probe: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${READINESS_TIMEOUT_MS} ms`)),
      READINESS_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'ok';
  } catch (error) {
    return `error: ${withoutFilePaths(error instanceof Error ? error.message : String(error))}`;
  } finally {
    clearTimeout(timer);
  }
}
