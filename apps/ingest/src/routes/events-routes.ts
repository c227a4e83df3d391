import {
  CompactorError,
  type EventInput,
  type FieldIssue,
  markEventBatchValidated,
  type StoredEvent,
  ValidationError,
} from '@compactor/core';
import { countingFormatFor } from '@compactor/tokenizer';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { enqueueCheckOrMarkPending } from '../compaction/enqueue-check.js';
import { HttpError } from '../errors/http-error.js';
import { expectedVersionFromIfMatch, versionTag } from '../http/if-match.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import {
  appendEventsBodySchema,
  ifMatchHeadersSchema,
  readEventsQuerySchema,
  threadParamsSchema,
} from '../schemas/request-schemas.js';
import { toolOutputAccess, visibleEvents } from '../threads/tool-output-access.js';

/** Clients append messages; thread, branch, plan and lifecycle events are the service's own. */
const CLIENT_EVENT_TYPES = new Set(['message.appended']);

export function registerEventRoutes(app: IngestApp, context: IngestContext): void {
  const { events } = context.dependencies.stores;
  const { maxEventsPerBatch } = context.dependencies.limits;

  app.post(
    '/v1/threads/:id/events',
    {
      // Before validation: an oversized batch is a 413 without parsing a single event.
      preValidation: async (request) => rejectOversizedBatch(request.body, maxEventsPerBatch),
      schema: {
        summary: 'Append a batch of message events (idempotent by eventId; If-Match guards the version)',
        tags: ['events'],
        security: securedByApiKey,
        params: threadParamsSchema,
        headers: ifMatchHeadersSchema,
        body: appendEventsBodySchema,
        response: withErrors(
          {
            201: objectResponse('Stored (or already stored: an idempotent retry)', {
              version: { type: 'integer' },
              events: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { eventId: { type: 'string' }, seq: { type: 'integer' } },
                },
              },
              duplicates: { type: 'integer' },
            }),
          },
          [400, 401, 404, 409, 413],
        ),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const expectedVersion = expectedVersionFromIfMatch(request.headers['if-match']);
      const { body } = request;
      rejectServiceEvents(body.events);
      const { created } = await context.origins.get(caller.tenantId, id);
      const tokenizer = context.tokenizers.forThread(created);
      const format = countingFormatFor(tokenizer.model.provider);
      // Stored token counts are the ingest's own, so thread totals exist and a retry counts the same.
      // Counted a slice at a time, so a megabyte of text never holds the event loop (ADR-0040).
      const counted: EventInput[] = [];
      for (const event of body.events) {
        counted.push(
          event.type === 'message.appended'
            ? { ...event, tokens: await tokenizer.countMessageAsync(event.message, format) }
            : event,
        );
      }
      // The body schema already parsed every event with the store's schema; the store skips its
      // second parse (ADR-0096). Token counts, added above, are the schema's own optional field.
      const validated = markEventBatchValidated(counted);
      const result = await appendWithEventPaths(() =>
        events.append(
          caller.tenantId,
          id,
          validated,
          expectedVersion === undefined ? {} : { expectedVersion },
        ),
      );
      const stored = result.events.length - result.duplicates;
      context.metrics.appends.inc({ outcome: stored === 0 ? 'retry' : 'stored' });
      context.metrics.eventsAppended.inc(stored);
      await enqueueCheckOrMarkPending(context.enqueue, {
        tenantId: caller.tenantId,
        threadId: id,
        version: result.version,
        reason: 'append',
      });
      reply.header('etag', versionTag(result.version));
      reply.code(201);
      return {
        version: result.version,
        events: result.events.map((event: StoredEvent) => ({ eventId: event.eventId, seq: event.seq })),
        duplicates: result.duplicates,
      };
    },
  );

  app.get(
    '/v1/threads/:id/events',
    {
      schema: {
        summary: 'Read the event log, one page at a time',
        tags: ['events'],
        security: securedByApiKey,
        params: threadParamsSchema,
        querystring: readEventsQuerySchema,
        response: withErrors(
          {
            200: objectResponse('A page of events', {
              events: { type: 'array', items: { type: 'object', additionalProperties: true } },
              nextSeq: { type: ['integer', 'null'] },
            }),
          },
          [400, 401, 404],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = request.params;
      const { query } = request;
      const { created } = await context.origins.get(caller.tenantId, id);
      const page = await events.read(caller.tenantId, id, {
        ...(query.fromSeq !== undefined ? { fromSeq: query.fromSeq } : {}),
        limit: query.limit ?? 100,
      });
      // Tool output this key may not read is withheld here as in every route (ADR-0059).
      const access = toolOutputAccess(created, caller, context.dependencies);
      return { events: visibleEvents(page.events, access), nextSeq: page.nextSeq };
    },
  );
}

function rejectOversizedBatch(body: unknown, maxEventsPerBatch: number): void {
  const batch = (body as { events?: unknown } | null | undefined)?.events;
  if (Array.isArray(batch) && batch.length > maxEventsPerBatch) {
    throw new HttpError(
      413,
      'payload_too_large',
      `a batch may hold at most ${maxEventsPerBatch} events; got ${batch.length}`,
      {},
      { maxEventsPerBatch, events: batch.length },
    );
  }
}

function rejectServiceEvents(batch: readonly EventInput[]): void {
  const issues: FieldIssue[] = batch.flatMap((event, index) =>
    CLIENT_EVENT_TYPES.has(event.type)
      ? []
      : [
          {
            path: `events.${index}.type`,
            message: `${event.type} events are written by the service; clients append message.appended`,
          },
        ],
  );
  if (issues.length > 0) throw new ValidationError('invalid events', issues);
}

/** The store numbers issues by the event's index in the batch; the API says `events.<index>`. */
async function appendWithEventPaths<T>(append: () => Promise<T>): Promise<T> {
  try {
    return await append();
  } catch (error) {
    if (CompactorError.hasCode(error, 'validation')) {
      const issues = Array.isArray(error.details.issues) ? (error.details.issues as FieldIssue[]) : [];
      throw new ValidationError(
        error.message,
        issues.map((issue) => ({
          ...issue,
          path: /^\d/.test(issue.path) ? `events.${issue.path}` : issue.path,
        })),
      );
    }
    throw error;
  }
}
