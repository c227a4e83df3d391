import { CompactorError, NotFoundError, type SecurityContext } from '@compactor/core';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { artifactParamsSchema } from '../schemas/request-schemas.js';

export function registerArtifactRoute(app: IngestApp, context: IngestContext): void {
  const { artifacts } = context.dependencies.stores;
  app.get(
    '/v1/artifacts/:id',
    {
      schema: {
        summary: 'Read an externalized artifact (read_artifact), under the caller tenant and permissions',
        description:
          'Confidential and restricted artifacts need the key to carry artifacts:read:confidential / ' +
          'artifacts:read:restricted (403 otherwise). Another tenant artifact answers 404, as an unknown ' +
          'one does, so ids cannot be probed; every refusal is audited by the store.',
        tags: ['artifacts'],
        security: securedByApiKey,
        params: artifactParamsSchema,
        response: withErrors(
          {
            200: objectResponse('The artifact', {
              artifactId: { type: 'string' },
              content: { type: 'string' },
              metadata: { type: 'object', additionalProperties: true },
            }),
          },
          [400, 401, 403, 404],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const securityContext: SecurityContext = {
        requesterId: caller.requesterId,
        tenantId: caller.tenantId,
        permissions: caller.permissions,
      };
      const read = await artifacts.retrieve(id, securityContext);
      if (read.status === 'ok') return { artifactId: id, content: read.content, metadata: read.metadata };
      if (read.status === 'denied') {
        // The store audited the refusal. Another tenant's artifact is invisible to this caller
        // (getMetadata answers null): say "not found", so its existence does not leak.
        const visible = await artifacts.getMetadata(id, securityContext);
        if (visible) {
          throw new CompactorError('access_denied', `access to artifact ${id} was denied`, {
            details: { sensitivity: visible.sensitivity },
          });
        }
      }
      throw new NotFoundError('artifact', id);
    },
  );
}
