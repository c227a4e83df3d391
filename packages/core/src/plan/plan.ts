import { z } from 'zod';
import {
  abridgeRecordSchema,
  clearRecordSchema,
  dropRecordSchema,
  externalizationRecordSchema,
  summarizationRecordSchema,
} from './records.js';

/** Bump when the plan's shape changes. */
export const PLAN_FORMAT_VERSION = 'v1';

/**
 * What to do with which messages when rendering: pure data that references messages by id only.
 * `version` is the plan's own version in the PlanStore (0 = no plan committed yet);
 * `basedOnSeq` is the thread version the planner saw.
 */
export const compactionPlanSchema = z.object({
  formatVersion: z.literal(PLAN_FORMAT_VERSION).default(PLAN_FORMAT_VERSION),
  threadId: z.string().min(1),
  version: z.number().int().min(0),
  basedOnSeq: z.number().int().min(0),
  createdAt: z.string(),
  policyVersion: z.string().default('1'),
  externalizations: z.array(externalizationRecordSchema).default([]),
  summarizations: z.array(summarizationRecordSchema).default([]),
  clearings: z.array(clearRecordSchema).default([]),
  drops: z.array(dropRecordSchema).default([]),
  /** Messages kept with some parts replaced by stand-ins (ADR-0265); absent on older plans. */
  abridgements: z.array(abridgeRecordSchema).default([]),
  originalTokenCount: z.number().int().min(0).default(0),
  compactedTokenCount: z.number().int().min(0).default(0),
});
/** A parsed compaction plan. */
export type CompactionPlan = z.infer<typeof compactionPlanSchema>;
/** A compaction plan as written: the record lists and counts optional. */
export type CompactionPlanInput = z.input<typeof compactionPlanSchema>;

/**
 * A plan with no records, version 0 (not committed).
 *
 * @param threadId - The thread it is for.
 * @param createdAt - ISO timestamp.
 * @param basedOnSeq - The thread version it is based on.
 * @returns The plan.
 * @throws ZodError for an empty thread id or a negative `basedOnSeq`.
 */
export function emptyPlan(threadId: string, createdAt: string, basedOnSeq = 0): CompactionPlan {
  return compactionPlanSchema.parse({ threadId, version: 0, basedOnSeq, createdAt });
}
