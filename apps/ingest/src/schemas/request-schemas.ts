import {
  ARTIFACT_ID_PATTERN,
  compactionPolicySchema,
  eventInputSchema,
  providerNameSchema,
} from '@compactor/core';
import { type TokenizerFamily, tokenizerFamilies } from '@compactor/tokenizer';
import { z } from 'zod';

/** Ids the ingest creates (threads, branches): URL-safe, so they need no escaping. */
export const newThreadIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/, 'use 1-200 letters, digits, ".", "_" or "-"');

const tokenizerFamilySchema = z.enum(tokenizerFamilies as [TokenizerFamily, ...TokenizerFamily[]]);

export const threadParamsSchema = z.object({ id: z.string().min(1).max(200) });

export const createThreadBodySchema = z.strictObject({
  /** Chosen by the client for idempotent retries; generated when absent. */
  threadId: newThreadIdSchema.optional(),
  model: z.string().min(1).max(200),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  /** Needed (with both numbers) for a model the registry does not know. */
  tokenizerFamily: tokenizerFamilySchema.optional(),
  policy: compactionPolicySchema.partial().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** The thread.created event's id; default `thread.created`. */
  eventId: z.string().min(1).max(200).optional(),
});
export type CreateThreadBody = z.output<typeof createThreadBodySchema>;

export const appendEventsBodySchema = z.strictObject({
  events: z.array(eventInputSchema).min(1, 'send at least one event'),
});

export const readEventsQuerySchema = z.strictObject({
  fromSeq: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().positive().max(1000).optional(),
});

export const promptQuerySchema = z.strictObject({
  provider: providerNameSchema.default('anthropic'),
  /** Ceiling of the rendered request's tokens; default: the window less the policy's output reserve and safety buffer. */
  budget: z.coerce.number().int().positive().optional(),
  /** The system prompt (query parameter; keep it short enough for a URL). */
  system: z.string().max(100_000).default(''),
});

export const compactBodySchema = z
  .strictObject({
    instructions: z.string().min(1).max(10_000).optional(),
    force: z.boolean().optional(),
  })
  .default({});

export const branchBodySchema = z.strictObject({
  fromMessageId: z.string().min(1).max(200),
  /** Chosen by the client for idempotent retries; generated when absent. */
  newThreadId: newThreadIdSchema.optional(),
});

export const artifactParamsSchema = z.object({
  id: z.string().regex(ARTIFACT_ID_PATTERN, 'an artifact id is art_ followed by 64 lowercase hex digits'),
});
