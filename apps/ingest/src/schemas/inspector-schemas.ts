import { policyPatchSchema } from '@compactor/core';
import { z } from 'zod';
import { queryInteger } from './query-integer.js';
import { THREAD_ID_MAX_LENGTH, threadParamsSchema } from './request-schemas.js';

/** Request schemas of the routes behind the inspector page (ADR-0090); usable without it. */

/** Most threads one page of `GET /v1/threads` holds. */
export const THREAD_PAGE_MAX = 100;

export const listThreadsQuerySchema = z.strictObject({
  limit: queryInteger({ min: 1, max: THREAD_PAGE_MAX }).optional(),
  /** Opaque, from the previous page's `nextCursor`. */
  cursor: z.string().min(1).max(1_000).optional(),
  /** Only threads whose id starts with this. */
  prefix: z.string().min(1).max(THREAD_ID_MAX_LENGTH).optional(),
  /** Only branches of this thread (its branch points). */
  branchedFrom: z.string().min(1).max(THREAD_ID_MAX_LENGTH).optional(),
});

export const lifecycleQuerySchema = z.strictObject({
  /** 1-based position in the thread's lifecycle log of the first event to return; default 1. */
  fromIndex: queryInteger({ min: 1 }).optional(),
  limit: queryInteger({ min: 1, max: 1_000 }).optional(),
});

export const lifecycleStreamQuerySchema = z.strictObject({
  /** Send events from this position on (a `Last-Event-ID` header wins); default: only new ones. */
  fromIndex: queryInteger({ min: 1 }).optional(),
});

export const lifecycleStreamHeadersSchema = z.looseObject({
  'last-event-id': z
    .string()
    .regex(/^\d{1,15}$/, 'the index of the last event received')
    .optional(),
});

export const planVersionParamsSchema = threadParamsSchema.extend({
  version: queryInteger({ min: 1 }),
});

export const policyPatchBodySchema = policyPatchSchema.refine(
  (patch) => Object.values(patch).some((value) => value !== undefined),
  { message: 'name at least one field to change' },
);
