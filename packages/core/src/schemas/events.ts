import { z } from 'zod';
import { compactionPlanSchema } from '../plan/plan.js';
import { toolDefinitionSchema } from '../provider.js';
import { messageSchema } from './message.js';
import { partialPolicySchema } from './policy.js';

const eventIdSchema = z.string().min(1).max(200);

export const threadCreatedPayloadSchema = z.object({
  type: z.literal('thread.created'),
  model: z.string().min(1),
  contextWindow: z.number().int().positive(),
  maxOutputTokens: z.number().int().positive().optional(),
  policy: partialPolicySchema.optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const messageAppendedPayloadSchema = z.object({
  type: z.literal('message.appended'),
  message: messageSchema,
});

/** First event after thread.created in a thread copied from another up to one of its messages. */
export const threadBranchedPayloadSchema = z.object({
  type: z.literal('thread.branched'),
  sourceThreadId: z.string().min(1),
  fromMessageId: z.string().min(1),
  sourceVersion: z.number().int().min(0),
});

/**
 * A plan version committed to the thread's PlanStore, written by the service after the
 * compare-and-set won (ADR-0190). With `plan` the log alone rebuilds every plan version; fold
 * ignores it for the conversation (it changes no message).
 */
export const planCommittedPayloadSchema = z.object({
  type: z.literal('plan.committed'),
  planVersion: z.number().int().positive(),
  basedOnSeq: z.number().int().min(0),
  tokensBefore: z.number().int().min(0),
  tokensAfter: z.number().int().min(0),
  /** The committed plan (its `version` is `planVersion`). Older events carry only the figures. */
  plan: compactionPlanSchema.optional(),
});

/**
 * The policy fields a person may change on a live thread (`PATCH /v1/threads/:id/policy`). No
 * defaults: an absent field keeps its current value. Fold applies patches in log order (ADR-0092).
 */
export const policyPatchSchema = z.strictObject({
  /** The policy version: part of every summary cache key, so bumping it re-summarizes (ADR-0194). */
  version: z.string().min(1).max(100).optional(),
  autoCompact: z.boolean().optional(),
  softThresholdPercent: z.number().gt(0).max(1).optional(),
  keepRecentTurns: z.number().int().min(0).optional(),
  keepRecentTokens: z.number().int().min(0).optional(),
  outputReserveTokens: z.number().int().min(0).optional(),
  safetyBufferTokens: z.number().int().min(0).optional(),
  clearAtLeastTokens: z.number().int().min(0).optional(),
  summaryBudgetTokens: z.number().int().positive().optional(),
  maxSummarizationRounds: z.number().int().positive().optional(),
});
export type PolicyPatch = z.infer<typeof policyPatchSchema>;

/** A change to the thread's policy, written by the service; later events see the new policy. */
export const policyUpdatedPayloadSchema = z.object({
  type: z.literal('policy.updated'),
  patch: policyPatchSchema,
  /** Who changed it (a key's non-secret id), for the audit trail. */
  requesterId: z.string().min(1).optional(),
});

/**
 * The system prompt and tool schemas the agent runtime sends with this thread's requests,
 * registered so the worker's target measures what render will send (ADR-0192). The latest
 * registration wins; fold ignores it for the conversation.
 */
export const contextRegisteredPayloadSchema = z.object({
  type: z.literal('context.registered'),
  system: z.string().default(''),
  tools: z.array(toolDefinitionSchema).default([]),
});

export const lifecycleEventNameSchema = z.enum([
  'compaction_check_started',
  'compaction_proposal_generated',
  'compaction_externalized',
  'compaction_summarized',
  'compaction_cleared',
  'compaction_abridged',
  'compaction_retrieved',
  'compaction_dropped',
  'compaction_rehydrated',
  'compaction_rehydration_blocked',
  'compaction_completed',
  'compaction_failed',
  /** A plan was committed: what the user is told (ADR-0183), written by the engine after the commit. */
  'compaction_committed',
]);
/** The name of a lifecycle event (ADR-0015). */
export type LifecycleEventName = z.infer<typeof lifecycleEventNameSchema>;

export const lifecyclePayloadSchema = z.object({
  type: z.literal('lifecycle'),
  name: lifecycleEventNameSchema,
  details: z.record(z.string(), z.unknown()).default({}),
});

export const eventPayloadSchema = z.discriminatedUnion('type', [
  threadCreatedPayloadSchema,
  messageAppendedPayloadSchema,
  threadBranchedPayloadSchema,
  planCommittedPayloadSchema,
  lifecyclePayloadSchema,
  policyUpdatedPayloadSchema,
  contextRegisteredPayloadSchema,
]);
/** What an event says: thread created, message appended, thread branched, plan committed, lifecycle. */
export type EventPayload = z.infer<typeof eventPayloadSchema>;
/** The `type` of an event payload. */
export type EventType = EventPayload['type'];

/** What every event a client sends carries beside its payload. */
const eventInputEnvelopeShape = {
  eventId: eventIdSchema,
  timestamp: z.string().datetime({ offset: true }).optional(),
  /** Token count of the event's content, set by the ingest so stores can keep totals. */
  tokens: z.number().int().min(0).optional(),
};

/** One payload schema with the envelope's fields first (the order an intersection's result had). */
function withInputEnvelope<Shape extends z.ZodRawShape>(payload: z.ZodObject<Shape>) {
  return z.object({ ...eventInputEnvelopeShape, ...payload.shape });
}

/**
 * What a client sends: its own event id (for idempotency) and the payload. One object per event
 * type, chosen by `type`, rather than the intersection of the envelope with `eventPayloadSchema`:
 * the same rule, parsed to the same value, without an intersection's deep merge of both results
 * (about five times faster on the ingest's hot path, ADR-0241). `eventInputIntersectionSchema` is
 * that intersection, kept for the property test that the two agree.
 */
export const eventInputSchema = z.discriminatedUnion('type', [
  withInputEnvelope(threadCreatedPayloadSchema),
  withInputEnvelope(messageAppendedPayloadSchema),
  withInputEnvelope(threadBranchedPayloadSchema),
  withInputEnvelope(planCommittedPayloadSchema),
  withInputEnvelope(lifecyclePayloadSchema),
  withInputEnvelope(policyUpdatedPayloadSchema),
  withInputEnvelope(contextRegisteredPayloadSchema),
]);

/** The envelope intersected with `eventPayloadSchema`: what `eventInputSchema` must agree with. */
export const eventInputIntersectionSchema = z.intersection(
  z.object(eventInputEnvelopeShape),
  eventPayloadSchema,
);
/** An event as a client sends it. */
export type EventInput = z.infer<typeof eventInputSchema>;

/** What a store returns: the input plus its place in the log and its owner. */
export const storedEventSchema = z.intersection(
  z.object({
    eventId: eventIdSchema,
    tenantId: z.string().min(1),
    threadId: z.string().min(1),
    seq: z.number().int().positive(),
    timestamp: z.string(),
    tokens: z.number().int().min(0).optional(),
  }),
  eventPayloadSchema,
);
/** An event as the log holds it: with tenant, thread, sequence number and timestamp. */
export type StoredEvent = z.infer<typeof storedEventSchema>;

/** A stored event of one type. */
export type StoredEventOf<T extends EventType> = StoredEvent & { type: T };
