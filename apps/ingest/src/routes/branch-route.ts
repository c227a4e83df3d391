import { branchThread } from '@compactor/engine';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { enqueueCheckOrMarkPending } from '../compaction/enqueue-check.js';
import { versionTag } from '../http/if-match.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { branchBodySchema, threadParamsSchema } from '../schemas/request-schemas.js';

export function registerBranchRoute(app: IngestApp, context: IngestContext): void {
  app.post(
    '/v1/threads/:id/branch',
    {
      schema: {
        summary: 'Branch: a new thread with the messages up to and including fromMessageId',
        description:
          'The branch keeps the latest source plan made from no later message; a compaction made ' +
          'after fromMessageId does not apply (branching before a compaction undoes it). Retrying ' +
          'with the same newThreadId returns the same branch.',
        tags: ['threads'],
        security: securedByApiKey,
        params: threadParamsSchema,
        body: branchBodySchema,
        response: withErrors(
          {
            201: objectResponse('The branch', {
              threadId: { type: 'string' },
              version: { type: 'integer' },
              planVersion: { type: 'integer' },
              sourcePlanVersion: { type: ['integer', 'null'] },
            }),
          },
          [400, 401, 404, 409],
        ),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const body = request.body;
      const { stores, clock } = context.dependencies;
      const result = await branchThread(
        { events: stores.events, plans: stores.plans, clock },
        caller.tenantId,
        id,
        body,
      );
      if (result.created) {
        // A new branch's events were all stored now: its version is how many.
        context.metrics.appends.inc({ outcome: 'stored' });
        context.metrics.eventsAppended.inc(result.version);
        await enqueueCheckOrMarkPending(context.enqueue, {
          tenantId: caller.tenantId,
          threadId: result.threadId,
          version: result.version,
          reason: 'append',
        });
      }
      reply.header('etag', versionTag(result.version));
      reply.code(201);
      return result;
    },
  );
}
