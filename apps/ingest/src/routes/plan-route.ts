import { NotFoundError } from '@compactor/core';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { threadParamsSchema } from '../schemas/request-schemas.js';

export function registerPlanRoute(app: IngestApp, context: IngestContext): void {
  const { events, plans } = context.dependencies.stores;
  app.get(
    '/v1/threads/:id/plan',
    {
      schema: {
        summary: 'The current compaction plan and the history of plan versions',
        tags: ['plans'],
        security: securedByApiKey,
        params: threadParamsSchema,
        response: withErrors(
          {
            200: objectResponse('Current plan (null before the first compaction) and every version', {
              current: {
                type: 'object',
                properties: {
                  version: { type: 'integer' },
                  plan: { type: ['object', 'null'], additionalProperties: true },
                },
              },
              history: { type: 'array', items: { type: 'object', additionalProperties: true } },
            }),
          },
          [401, 404],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      // The plan store answers version 0 for any id: the thread must exist for this tenant.
      if (!(await events.getThread(caller.tenantId, id))) throw new NotFoundError('thread', id);
      const [current, history] = await Promise.all([
        plans.getCurrent(caller.tenantId, id),
        plans.listVersions(caller.tenantId, id),
      ]);
      return { current: { version: current.version, plan: current.plan }, history };
    },
  );
}
