import { z } from 'zod';
import { toolOutcomeSchema } from '../schemas/content.js';

/** Bump when the shape changes: it is part of every summary cache key. */
export const STRUCTURED_SUMMARY_SCHEMA_VERSION = 'v1';

export const summaryFactSchema = z.object({
  text: z.string().min(1),
  /** Pinned facts (user instructions, constraints) carry over every merge verbatim. */
  pinned: z.boolean().default(false),
  /** The message the fact was taken from, when known. */
  sourceMessageId: z.string().optional(),
  /**
   * How informative the fact is (names, time expressions, numbers, rare terms; ADR-0160). Trimming
   * keeps the highest-scored unpinned facts first; facts without a score are thinned evenly.
   */
  score: z.number().min(0).optional(),
});

export const summaryDecisionSchema = z.object({
  decision: z.string().min(1),
  rationale: z.string().optional(),
  turn: z.number().int().min(0).optional(),
  /**
   * When the decision was made (ISO), from the message it was taken from (ADR-0194). Kept for audits,
   * not rendered, so prompts stay byte-stable; optional, so summaries cached before it still parse.
   */
  timestamp: z.string().optional(),
});

export const summaryOpenItemSchema = z.object({
  description: z.string().min(1),
  context: z.string().optional(),
  priority: z.enum(['high', 'medium', 'low']).default('medium'),
});

export const summaryArtifactSchema = z.object({
  artifactId: z.string().min(1),
  description: z.string(),
  rehydrateHint: z.string(),
});

export const summaryToolOutcomeSchema = z.object({
  toolName: z.string().min(1),
  toolCallId: z.string().optional(),
  outcome: toolOutcomeSchema,
  keyFields: z.record(z.string(), z.unknown()).default({}),
  errorMessage: z.string().optional(),
  /**
   * How many calls this line stands for when repeated calls on one file or command were grouped
   * (ADR-0160); the line shows the last of them. Absent for a single call.
   */
  count: z.number().int().min(2).optional(),
});

export const structuredSummarySchema = z.object({
  schemaVersion: z.literal(STRUCTURED_SUMMARY_SCHEMA_VERSION).default(STRUCTURED_SUMMARY_SCHEMA_VERSION),
  facts: z.array(summaryFactSchema).default([]),
  decisions: z.array(summaryDecisionSchema).default([]),
  openItems: z.array(summaryOpenItemSchema).default([]),
  artifacts: z.array(summaryArtifactSchema).default([]),
  toolOutcomes: z.array(summaryToolOutcomeSchema).default([]),
  currentTask: z.string().nullable().default(null),
  currentPlan: z.array(z.string()).nullable().default(null),
  filesRead: z.array(z.string()).default([]),
  filesModified: z.array(z.string()).default([]),
  /**
   * Pinned facts moved out of the rendered text because pinned facts alone exceeded the summary's
   * budget (ADR-0161), oldest first. They are never lost: merges carry them, the rendered summary
   * shows one pointer line for them, and their source messages stay in the recall index.
   */
  externalizedFacts: z.array(summaryFactSchema).optional(),
  /**
   * Artifacts left out of the rendered text when trimming thinned the list (ADR-0330), in order. Still
   * the plan's: read_artifact and rehydration by hint accept them and merges carry them; not rendered.
   */
  externalizedArtifacts: z.array(summaryArtifactSchema).optional(),
});

/** A fact to keep; pinned facts survive every round verbatim. */
export type SummaryFact = z.infer<typeof summaryFactSchema>;
/** A decision made, and why. */
export type SummaryDecision = z.infer<typeof summaryDecisionSchema>;
/** Something still to do or resolve. */
export type SummaryOpenItem = z.infer<typeof summaryOpenItemSchema>;
/** An artifact the summarized span pointed to. */
export type SummaryArtifact = z.infer<typeof summaryArtifactSchema>;
/** A tool call's outcome and key fields. */
export type SummaryToolOutcome = z.infer<typeof summaryToolOutcomeSchema>;
/** A parsed structured summary (ADR-0006). */
export type StructuredSummary = z.infer<typeof structuredSummarySchema>;
/** A structured summary as written: every list optional. */
export type StructuredSummaryInput = z.input<typeof structuredSummarySchema>;

/**
 * A summary with nothing in it.
 *
 * @returns Empty lists, no current task or plan.
 */
export function emptySummary(): StructuredSummary {
  return structuredSummarySchema.parse({});
}
