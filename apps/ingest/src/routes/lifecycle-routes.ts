import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { streamLifecycle } from '../lifecycle/lifecycle-stream.js';
import {
  lifecycleQuerySchema,
  lifecycleStreamHeadersSchema,
  lifecycleStreamQuerySchema,
} from '../schemas/inspector-schemas.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { threadParamsSchema } from '../schemas/request-schemas.js';

const DEFAULT_PAGE = 100;
const HEARTBEAT_MS = 15_000;
const POLL_MS = 1_000;

export function registerLifecycleRoutes(app: IngestApp, context: IngestContext): void {
  const { lifecycle } = context.dependencies.stores;
  const openStreams = new Set<() => void>();
  // Open streams never go idle: end them when the app closes, or close would wait for them.
  app.addHook('preClose', async () => {
    for (const end of [...openStreams]) end();
  });

  app.get(
    '/v1/threads/:id/lifecycle',
    {
      schema: {
        summary: "A page of the thread's lifecycle events (what compaction did), oldest first",
        description: 'Each event carries its 1-based `index` in the log; `nextIndex` starts the next page.',
        tags: ['lifecycle'],
        security: securedByApiKey,
        params: threadParamsSchema,
        querystring: lifecycleQuerySchema,
        response: withErrors(
          {
            200: objectResponse('A page of lifecycle events', {
              events: { type: 'array', items: { type: 'object', additionalProperties: true } },
              nextIndex: { type: ['integer', 'null'] },
              total: { type: 'integer' },
            }),
          },
          [400, 401, 404],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      await context.origins.get(caller.tenantId, id);
      const fromIndex = request.query.fromIndex ?? 1;
      const limit = request.query.limit ?? DEFAULT_PAGE;
      const all = await lifecycle.list(caller.tenantId, id);
      const page = all.slice(fromIndex - 1, fromIndex - 1 + limit);
      const next = fromIndex + page.length;
      return {
        events: page.map((event, offset) => ({ index: fromIndex + offset, ...event })),
        nextIndex: next <= all.length ? next : null,
        total: all.length,
      };
    },
  );

  app.get(
    '/v1/threads/:id/lifecycle/stream',
    {
      schema: {
        summary: "The thread's lifecycle events, live, as server-sent events",
        description:
          'text/event-stream: `id: <index>`, `event: lifecycle`, `data: <event JSON with index>`. Without ' +
          'fromIndex or Last-Event-ID only events appended after connecting are sent; a `: keep-alive` ' +
          'comment comes every 15 s. Authenticate with the Authorization header (use a fetch-based ' +
          'EventSource in browsers).',
        tags: ['lifecycle'],
        security: securedByApiKey,
        params: threadParamsSchema,
        querystring: lifecycleStreamQuerySchema,
        headers: lifecycleStreamHeadersSchema,
        response: withErrors(
          {
            200: {
              description: 'An event stream',
              content: { 'text/event-stream': { schema: { type: 'string' } } },
            },
          },
          [400, 401, 404],
        ),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { id } = request.params;
      await context.origins.get(caller.tenantId, id);
      const lastEventId = request.headers['last-event-id'];
      const fromIndex =
        lastEventId !== undefined
          ? Number(lastEventId) + 1
          : (request.query.fromIndex ?? (await lifecycle.list(caller.tenantId, id)).length + 1);
      reply.hijack();
      const end = streamLifecycle({
        log: lifecycle,
        tenantId: caller.tenantId,
        threadId: id,
        fromIndex,
        response: reply.raw,
        logger: context.logger,
        heartbeatMs: HEARTBEAT_MS,
        pollMs: POLL_MS,
      });
      openStreams.add(end);
      reply.raw.on('close', () => openStreams.delete(end));
    },
  );
}
