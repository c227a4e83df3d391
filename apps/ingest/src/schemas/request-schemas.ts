import {
  ARTIFACT_ID_PATTERN,
  eventInputSchema,
  partialPolicySchema,
  providerNameSchema,
  toolDefinitionSchema,
} from '@compactor/core';
import { type TokenizerFamily, tokenizerFamilies } from '@compactor/tokenizer';
import { z } from 'zod';
import { CLIENT_ID_MAX_LENGTH, checkEventIdLengths } from './id-lengths.js';
import { queryInteger } from './query-integer.js';

/**
 * The longest thread id, at create and on every route (ADR-0045). Fastify's `maxParamLength` is set
 * to the same number, so an id that could be created can always be addressed.
 */
export const THREAD_ID_MAX_LENGTH = 128;

export { CLIENT_ID_MAX_LENGTH };

/** The longest system prompt `/prompt` takes, in characters. */
export const SYSTEM_PROMPT_MAX_LENGTH = 100_000;

/** Most tool definitions one `/prompt` request may declare. */
export const PROMPT_TOOLS_MAX = 256;

/** Ids the ingest creates (threads, branches): URL-safe, so they need no escaping. */
export const newThreadIdSchema = z
  .string()
  .regex(
    new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${THREAD_ID_MAX_LENGTH - 1}}$`),
    `use 1-${THREAD_ID_MAX_LENGTH} letters, digits, ".", "_" or "-"`,
  );

const tokenizerFamilySchema = z.enum(tokenizerFamilies as [TokenizerFamily, ...TokenizerFamily[]]);

export const threadParamsSchema = z.object({ id: z.string().min(1).max(THREAD_ID_MAX_LENGTH) });

export const createThreadBodySchema = z.strictObject({
  /** Chosen by the client for idempotent retries; generated when absent. */
  threadId: newThreadIdSchema.optional(),
  model: z.string().min(1).max(200),
  contextWindow: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  maxOutputTokens: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  /** Needed (with both numbers) for a model the registry does not know. */
  tokenizerFamily: tokenizerFamilySchema.optional(),
  /**
   * Opt in to a 128,000-token window (o200k_base, 4,096 output tokens) for a model the registry does
   * not know, instead of a 422 (the `seed-003` preset, ADR-0184); numbers given still win.
   */
  unknownModelFallback: z.boolean().optional(),
  policy: partialPolicySchema.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** The thread.created event's id; default `thread.created`. */
  eventId: z.string().min(1).max(CLIENT_ID_MAX_LENGTH).optional(),
});
export type CreateThreadBody = z.output<typeof createThreadBodySchema>;

export const appendEventsBodySchema = z.strictObject({
  events: z.array(eventInputSchema.superRefine(checkEventIdLengths)).min(1, 'send at least one event'),
});

export const readEventsQuerySchema = z.strictObject({
  fromSeq: queryInteger({ min: 1 }).optional(),
  limit: queryInteger({ min: 1, max: 1000 }).optional(),
});

export const ifMatchHeadersSchema = z.looseObject({
  'if-match': z.string().optional().describe('Expected thread version, e.g. "3"'),
});

/**
 * What pins a render to older versions (ADR-0180): a snapshot id from `POST .../snapshots`, or a plan
 * version (with the thread version, default the current one). Checked against each other in the route.
 */
function pinnedRenderFields<P extends z.ZodType, T extends z.ZodType>(planVersion: P, threadVersion: T) {
  return {
    snapshot: z.string().min(1).max(64).optional(),
    planVersion: planVersion.optional(),
    threadVersion: threadVersion.optional(),
  };
}

export const promptQuerySchema = z.strictObject({
  provider: providerNameSchema.default('anthropic'),
  /** Ceiling of the rendered request's tokens; default: the window less the policy's output reserve and safety buffer. */
  budget: queryInteger({ min: 1 }).optional(),
  /** The system prompt; a long one belongs in the body of `POST .../prompt`. */
  system: z.string().max(SYSTEM_PROMPT_MAX_LENGTH).default(''),
  ...pinnedRenderFields(queryInteger({ min: 0 }), queryInteger({ min: 1 })),
});

export const promptBodySchema = z
  .strictObject({
    provider: providerNameSchema.default('anthropic'),
    /** Ceiling of every token of the request, system and tools included. */
    budget: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    system: z.string().max(SYSTEM_PROMPT_MAX_LENGTH).default(''),
    /** The agent's tools, counted toward the budget and rendered in the request. */
    tools: z.array(toolDefinitionSchema).max(PROMPT_TOOLS_MAX).default([]),
    /**
     * What render-time recall searches the compacted history for (ADR-0111); default the newest
     * user turn plus a pending tool call.
     */
    query: z.string().min(1).max(SYSTEM_PROMPT_MAX_LENGTH).optional(),
    /**
     * Register `system` and `tools` on the thread (a `context.registered` event, appended only when
     * they differ from the last registration), so the worker plans for what render sends (ADR-0192).
     */
    register: z.boolean().optional(),
    /**
     * Offer the `search_history` tool once the plan has compacted something (ADR-0163); answer its
     * calls with `POST /v1/threads/:id/search-history`.
     */
    searchHistoryTool: z.boolean().optional(),
    ...pinnedRenderFields(
      z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    ),
  })
  .default({ provider: 'anthropic', system: '', tools: [] });

/** A model's `search_history` call, answered from the thread's compacted messages (ADR-0163). */
export const searchHistoryBodySchema = z.strictObject({
  /** The call's id: the returned tool result answers it. */
  toolCallId: z.string().min(1).max(CLIENT_ID_MAX_LENGTH),
  /** The call's input as the model wrote it, `{ query, top_k? }`; a bad one is answered, not refused. */
  input: z.unknown(),
});

export const compactBodySchema = z
  .strictObject({
    instructions: z.string().min(1).max(10_000).optional(),
    force: z.boolean().optional(),
  })
  .default({});

export const branchBodySchema = z.strictObject({
  fromMessageId: z.string().min(1).max(CLIENT_ID_MAX_LENGTH),
  /** Chosen by the client for idempotent retries; generated when absent. */
  newThreadId: newThreadIdSchema.optional(),
});

export const artifactParamsSchema = z.object({
  id: z.string().regex(ARTIFACT_ID_PATTERN, 'an artifact id is art_ followed by 64 lowercase hex digits'),
});
