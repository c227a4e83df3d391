import { z } from 'zod';
import { toolOutcomeSchema } from '../schemas/content.js';
import { structuredSummarySchema } from '../summary/structured-summary.js';
import { spanReferenceSchema } from './span.js';

export const artifactSensitivitySchema = z.enum(['public', 'internal', 'confidential', 'restricted']);
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

export const compactionRecordSchema = z.discriminatedUnion('kind', [
  summarizationRecordSchema,
  externalizationRecordSchema,
  clearRecordSchema,
  dropRecordSchema,
]);

export type SummarizationRecord = z.infer<typeof summarizationRecordSchema>;
export type ExternalizationRecord = z.infer<typeof externalizationRecordSchema>;
export type ClearRecord = z.infer<typeof clearRecordSchema>;
export type DropRecord = z.infer<typeof dropRecordSchema>;
export type DroppedSpanIndex = z.infer<typeof droppedSpanIndexSchema>;
export type CompactionRecord = z.infer<typeof compactionRecordSchema>;
export type CompactionRecordKind = CompactionRecord['kind'];
