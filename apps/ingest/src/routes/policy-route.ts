import { randomUUID } from 'node:crypto';
import { NotFoundError, type PolicyPatch } from '@compactor/core';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { enqueueCheckOrMarkPending } from '../compaction/enqueue-check.js';
import { expectedVersionFromIfMatch, versionTag } from '../http/if-match.js';
import { policyPatchBodySchema } from '../schemas/inspector-schemas.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { ifMatchHeadersSchema, threadParamsSchema } from '../schemas/request-schemas.js';
import { requireRoomForInput } from '../threads/window-room.js';

export function registerPolicyRoute(app: IngestApp, context: IngestContext): void {
  const { events } = context.dependencies.stores;
  app.patch(
    '/v1/threads/:id/policy',
    {
      schema: {
        summary:
          "Change the thread's mutable policy fields (autoCompact and the thresholds); If-Match guards",
        description:
          'Appends a policy.updated event (the log stays append-only; ADR-0092): the next compaction ' +
          'check, render and plan use the patched policy. autoCompact false stops automatic compaction; ' +
          'manual POST .../compact still runs. Answers the policy as configured now.',
        tags: ['threads'],
        security: securedByApiKey,
        params: threadParamsSchema,
        headers: ifMatchHeadersSchema,
        body: policyPatchBodySchema,
        response: withErrors(
          {
            200: objectResponse('The patched policy', {
              version: { type: 'integer' },
              policy: { type: 'object', additionalProperties: true },
            }),
          },
          [400, 401, 404, 409],
        ),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const expectedVersion = expectedVersionFromIfMatch(request.headers['if-match']);
      const patch: PolicyPatch = request.body;
      const before = await events.getThread(caller.tenantId, id);
      if (!before) throw new NotFoundError('thread', id);
      // The reserves are the only fields that can leave a window without room for input.
      if (patch.outputReserveTokens !== undefined || patch.safetyBufferTokens !== undefined) {
        requireRoomForInput(before.contextWindow, patch);
      }
      const result = await events.append(
        caller.tenantId,
        id,
        [
          {
            eventId: `policy.${randomUUID()}`,
            type: 'policy.updated',
            patch,
            requesterId: caller.requesterId,
          },
        ],
        expectedVersion === undefined ? {} : { expectedVersion },
      );
      // Switching auto-compaction back on (or lowering a threshold) may make a check due now.
      await enqueueCheckOrMarkPending(context.enqueue, {
        tenantId: caller.tenantId,
        threadId: id,
        version: result.version,
        reason: 'append',
      });
      const after = await events.getThread(caller.tenantId, id);
      reply.header('etag', versionTag(result.version));
      return {
        threadId: id,
        version: result.version,
        policy: await context.policies.configured(after ?? before),
      };
    },
  );
}
