import { randomUUID } from 'node:crypto';
import {
  CompactorError,
  type EventInput,
  NotFoundError,
  TOKENIZER_FAMILY_METADATA_KEY,
} from '@compactor/core';
import { findModelInfo, resolveModelInfo } from '@compactor/tokenizer';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { versionTag } from '../http/if-match.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { createThreadBodySchema, threadParamsSchema } from '../schemas/request-schemas.js';
import { requireRoomForInput } from '../threads/window-room.js';

const DEFAULT_CREATED_EVENT_ID = 'thread.created';

export function registerThreadRoutes(app: IngestApp, context: IngestContext): void {
  const { events, plans } = context.dependencies.stores;

  app.post(
    '/v1/threads',
    {
      schema: {
        summary: 'Create a thread (idempotent for the same threadId and eventId)',
        tags: ['threads'],
        security: securedByApiKey,
        body: createThreadBodySchema,
        response: withErrors(
          {
            201: objectResponse('The thread exists', {
              threadId: { type: 'string' },
              version: { type: 'integer' },
              created: { type: 'boolean', description: 'false when this was a retry' },
            }),
          },
          [400, 401, 409, 413, 422],
        ),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { body } = request;
      // An unknown model without explicit numbers is an UnknownModelError (422), unless the caller
      // opted in to the 128k fallback (ADR-0184).
      const fallback = body.unknownModelFallback === true && findModelInfo(body.model) === undefined;
      const model = resolveModelInfo(
        body.model,
        {
          contextWindow: body.contextWindow,
          maxOutputTokens: body.maxOutputTokens,
          tokenizerFamily: body.tokenizerFamily,
        },
        { unknownModelFallback: fallback },
      );
      requireRoomForInput(model.contextWindow, body.policy);
      const threadId = body.threadId ?? randomUUID();
      const metadata =
        body.tokenizerFamily !== undefined || fallback
          ? { ...body.metadata, [TOKENIZER_FAMILY_METADATA_KEY]: model.tokenizerFamily }
          : body.metadata;
      const created: EventInput = {
        eventId: body.eventId ?? DEFAULT_CREATED_EVENT_ID,
        type: 'thread.created',
        model: body.model,
        contextWindow: model.contextWindow,
        maxOutputTokens: model.maxOutputTokens,
        ...(body.policy !== undefined ? { policy: body.policy } : {}),
        ...(metadata !== undefined ? { metadata } : {}),
      };
      let result: Awaited<ReturnType<typeof events.append>>;
      try {
        result = await events.append(caller.tenantId, threadId, [created], { expectedVersion: 0 });
      } catch (error) {
        if (CompactorError.hasCode(error, 'concurrency')) {
          throw new CompactorError('concurrency', `thread ${threadId} already exists`, {
            details: { threadId },
          });
        }
        throw error;
      }
      context.metrics.appends.inc({ outcome: result.duplicates === 0 ? 'stored' : 'retry' });
      context.metrics.eventsAppended.inc(1 - result.duplicates);
      reply.header('etag', versionTag(result.version));
      reply.code(201);
      return { threadId, version: result.version, created: result.duplicates === 0 };
    },
  );

  app.get(
    '/v1/threads/:id',
    {
      schema: {
        summary: 'Thread metadata, token totals and current plan version',
        tags: ['threads'],
        security: securedByApiKey,
        params: threadParamsSchema,
        response: withErrors({ 200: objectResponse('The thread') }, [401, 404]),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const thread = await events.getThread(caller.tenantId, id);
      if (!thread) throw new NotFoundError('thread', id);
      const [origin, current] = await Promise.all([
        context.origins.get(caller.tenantId, id),
        plans.getCurrent(caller.tenantId, id),
      ]);
      reply.header('etag', versionTag(thread.version));
      return {
        threadId: id,
        model: thread.model,
        contextWindow: thread.contextWindow,
        maxOutputTokens: origin.created.maxOutputTokens ?? null,
        policy: await context.policies.configured(thread),
        metadata: origin.created.metadata ?? {},
        version: thread.version,
        eventCount: thread.eventCount,
        messageCount: thread.messageCount,
        tokens: {
          messages: thread.messageTokens,
          compacted: current.plan?.compactedTokenCount ?? null,
        },
        planVersion: current.version,
        plan: current.plan
          ? {
              version: current.version,
              basedOnSeq: current.plan.basedOnSeq,
              createdAt: current.plan.createdAt,
            }
          : null,
        compactionPending: thread.compactionPending,
        branchedFrom: origin.branched
          ? {
              sourceThreadId: origin.branched.sourceThreadId,
              fromMessageId: origin.branched.fromMessageId,
              sourceVersion: origin.branched.sourceVersion,
            }
          : null,
        createdAt: thread.createdAt,
        updatedAt: thread.updatedAt,
      };
    },
  );
}
