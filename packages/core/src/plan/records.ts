import { z } from 'zod';
import { toolOutcomeSchema } from '../schemas/content.js';
import { structuredSummarySchema } from '../summary/structured-summary.js';
import { spanReferenceSchema } from './span.js';

export const artifactSensitivitySchema = z.enum(['public', 'internal', 'confidential', 'restricted']);
/** How carefully an artifact is guarded, least to most: public, internal, confidential, restricted. */
export type ArtifactSensitivity = z.infer<typeof artifactSensitivitySchema>;

export const summarizationRecordSchema = z.object({
  kind: z.literal('summarize'),
  span: spanReferenceSchema,
  summary: structuredSummarySchema,
  summaryTokenCount: z.number().int().min(0),
  /** Which summarizer produced it (for audits and cost accounting). */
  summarizer: z
    .object({ id: z.string(), modelId: z.string().optional(), costUsd: z.number().min(0).default(0) })
    .optional(),
  /** 1 for the first summarization of a thread, n for its n-th chained round. */
  round: z.number().int().positive().default(1),
  /**
   * Tokens the span had as rendered before it was summarized (ADR-0150): with `summaryTokenCount`, the
   * block's compression ratio. Absent on plans written before summary blocks.
   */
  originalTokenCount: z.number().int().min(0).optional(),
  /** `originalTokenCount / summaryTokenCount`, persisted with the block (the seed-000 checkpoint field). */
  compressionRatio: z.number().min(0).optional(),
});

export const externalizationRecordSchema = z.object({
  kind: z.literal('externalize'),
  span: spanReferenceSchema,
  artifactId: z.string().min(1),
  summary: structuredSummarySchema,
  rehydrateHint: z.string(),
  sensitivity: artifactSensitivitySchema.default('internal'),
});

export const clearedToolResultSchema = z.object({
  messageId: z.string().min(1),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  outcome: toolOutcomeSchema,
  keyFields: z.record(z.string(), z.unknown()).default({}),
});
/** What a cleared tool result's placeholder keeps. */
export type ClearedToolResult = z.infer<typeof clearedToolResultSchema>;

export const clearRecordSchema = z.object({
  kind: z.literal('clear'),
  span: spanReferenceSchema,
  /** What each cleared result's placeholder keeps: tool name, outcome and key fields. */
  preserved: z.array(clearedToolResultSchema),
});

/** Kept for later recall when a span is dropped (ADR-0021). */
export const droppedSpanIndexSchema = z.object({
  keywords: z.array(z.string()),
  brief: z.string(),
});

export const dropRecordSchema = z.object({
  kind: z.literal('drop'),
  span: spanReferenceSchema,
  reason: z.string().min(1),
  index: droppedSpanIndexSchema.optional(),
});

/**
 * A replaced image or document that read_artifact can give back as itself (ADR-0310): inline data
 * kept as an artifact (content-addressed, with its media type and sensitivity), or its URL.
 */
export const abridgedMediaSchema = z.object({
  kind: z.enum(['image', 'document']),
  mediaType: z.string().min(1),
  /** The artifact holding the base64 data (or the artifact the part already named). */
  artifactId: z.string().min(1).optional(),
  /** The URL the part named. */
  url: z.string().min(1).optional(),
  sensitivity: artifactSensitivitySchema.optional(),
});
/** Where one replaced image or document can be read back. */
export type AbridgedMedia = z.infer<typeof abridgedMediaSchema>;

/** One part of an abridged message and the text that stands in for it (ADR-0265). */
export const abridgedPartSchema = z.object({
  /** The part's position in the message's content. */
  index: z.number().int().min(0),
  /**
   * `media`: an image or document replaced by its caption and reference; `paste`: a text part with its
   * pasted blocks clipped; `result-media`: a tool result's images and documents replaced, the result
   * kept as a result with its text and the stand-ins after it (ADR-0311).
   */
  reason: z.enum(['media', 'paste', 'result-media']),
  /** What the model sees instead of the part (written by `stand-in-texts.ts`). */
  text: z.string(),
  /** Where each replaced image or document can be read back as itself (ADR-0310), in order. */
  media: z.array(abridgedMediaSchema).optional(),
});

/**
 * One message kept in place with some of its parts replaced by stand-ins (ADR-0265): old images and
 * documents by their caption and a reference, pasted blocks clipped to head and tail. The message
 * keeps its role and its other parts; what was replaced stays in the log, and an artifact (when
 * the store was there) holds the full text for read_artifact.
 */
export const abridgeRecordSchema = z.object({
  kind: z.literal('abridge'),
  /** Exactly one message. */
  span: spanReferenceSchema,
  parts: z.array(abridgedPartSchema).min(1),
  /** The artifact holding what the stand-ins left out, when it was stored. */
  artifactId: z.string().min(1).optional(),
  rehydrateHint: z.string().optional(),
  sensitivity: artifactSensitivitySchema.optional(),
});

export const compactionRecordSchema = z.discriminatedUnion('kind', [
  abridgeRecordSchema,
  summarizationRecordSchema,
  externalizationRecordSchema,
  clearRecordSchema,
  dropRecordSchema,
]);

/** A message kept with some parts replaced by stand-ins (ADR-0265). */
export type AbridgeRecord = z.infer<typeof abridgeRecordSchema>;
/** One replaced part of an abridged message. */
export type AbridgedPart = z.infer<typeof abridgedPartSchema>;
/** A span replaced by one structured summary. */
export type SummarizationRecord = z.infer<typeof summarizationRecordSchema>;
/** A span moved to the artifact store, shown as a pointer with a summary. */
export type ExternalizationRecord = z.infer<typeof externalizationRecordSchema>;
/** Tool results in a span replaced by placeholders. */
export type ClearRecord = z.infer<typeof clearRecordSchema>;
/** A span left out of the prompt, with a reason and an index for recall. */
export type DropRecord = z.infer<typeof dropRecordSchema>;
/** Keywords and a brief of a dropped span (ADR-0021). */
export type DroppedSpanIndex = z.infer<typeof droppedSpanIndexSchema>;
/** One action of a plan on one span. */
export type CompactionRecord = z.infer<typeof compactionRecordSchema>;
/** `abridge`, `summarize`, `externalize`, `clear` or `drop`. */
export type CompactionRecordKind = CompactionRecord['kind'];
