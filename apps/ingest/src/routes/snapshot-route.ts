import { takeSnapshot } from '@compactor/engine';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { threadParamsSchema } from '../schemas/request-schemas.js';

/**
 * `POST /v1/threads/:id/snapshots` (ADR-0180): pin the thread's current version and plan version for
 * delegated agents, who then render with `snapshot` on the prompt route and see the same bytes.
 */
export function registerSnapshotRoute(app: IngestApp, context: IngestContext): void {
  app.post(
    '/v1/threads/:id/snapshots',
    {
      schema: {
        summary: 'Pin the current thread and plan versions; renders from the snapshot are byte-identical',
        description:
          'The id encodes the versions (the log is append-only and plan versions are kept), so it is ' +
          'valid on every replica. Give it as `snapshot` to `GET`/`POST .../prompt`.',
        tags: ['prompt'],
        security: securedByApiKey,
        params: threadParamsSchema,
        response: withErrors(
          {
            201: objectResponse('The snapshot', {
              snapshotId: { type: 'string' },
              threadVersion: { type: 'integer' },
              planVersion: { type: 'integer' },
            }),
          },
          [400, 401, 404],
        ),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { id } = request.params;
      await context.origins.get(caller.tenantId, id);
      const snapshot = await takeSnapshot(context.dependencies.stores, caller.tenantId, id);
      reply.code(201);
      return snapshot;
    },
  );
}
