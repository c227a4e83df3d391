import type { ThreadMetadata } from '@compactor/core';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { listThreadsQuerySchema } from '../schemas/inspector-schemas.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { threadRow } from '../threads/thread-row.js';

const DEFAULT_PAGE = 20;
/** Store pages scanned per request while filtering by prefix: a request's work stays bounded. */
const MAX_PAGES_SCANNED = 20;

export function registerThreadListRoute(app: IngestApp, context: IngestContext): void {
  const { events, plans, lifecycle } = context.dependencies.stores;
  const sources = { events, plans, lifecycle, origins: context.origins, policies: context.policies };
  app.get(
    '/v1/threads',
    {
      schema: {
        summary:
          "The caller tenant's threads, a page at a time, ordered by id; filter by id prefix or by source thread",
        description:
          'Each row: model, window, tokens now (the plan measure plus messages since) against the ceiling ' +
          '(window less output reserve and safety buffer), plan version, last compaction, auto-compaction, ' +
          'and status (pending: a check waits for the sweeper; failed: the last lifecycle event is ' +
          'compaction_failed). branchedFrom keeps the branches of one thread (its ' +
          'branch points). With a filter, a page may hold fewer rows than limit while nextCursor is set.',
        tags: ['threads'],
        security: securedByApiKey,
        querystring: listThreadsQuerySchema,
        response: withErrors(
          {
            200: objectResponse('A page of threads', {
              threads: { type: 'array', items: { type: 'object', additionalProperties: true } },
              nextCursor: { type: ['string', 'null'] },
            }),
          },
          [400, 401],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { query } = request;
      const limit = query.limit ?? DEFAULT_PAGE;
      const { prefix, branchedFrom } = query;
      const matching = async (threads: ThreadMetadata[]) => {
        const named = prefix ? threads.filter((thread) => thread.threadId.startsWith(prefix)) : threads;
        if (branchedFrom === undefined) return named;
        const origins = await Promise.all(
          named.map((thread) => context.origins.get(caller.tenantId, thread.threadId)),
        );
        return named.filter((_, index) => origins[index]!.branched?.sourceThreadId === branchedFrom);
      };
      const found: ThreadMetadata[] = [];
      let cursor = query.cursor;
      let nextCursor: string | null = null;
      for (let scanned = 0; scanned < MAX_PAGES_SCANNED; scanned += 1) {
        const page = await events.listThreads(caller.tenantId, {
          limit: limit - found.length,
          ...(cursor !== undefined ? { cursor } : {}),
        });
        found.push(...(await matching(page.threads)));
        nextCursor = page.nextCursor;
        if (nextCursor === null || found.length >= limit) break;
        cursor = nextCursor;
      }
      const threads = await Promise.all(found.map((thread) => threadRow(sources, thread)));
      return { threads, nextCursor };
    },
  );
}
