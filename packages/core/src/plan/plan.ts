import { z } from 'zod';
import {
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
  originalTokenCount: z.number().int().min(0).default(0),
  compactedTokenCount: z.number().int().min(0).default(0),
});
export type CompactionPlan = z.infer<typeof compactionPlanSchema>;
export type CompactionPlanInput = z.input<typeof compactionPlanSchema>;

export function emptyPlan(threadId: string, createdAt: string, basedOnSeq = 0): CompactionPlan {
  return compactionPlanSchema.parse({ threadId, version: 0, basedOnSeq, createdAt });
}
