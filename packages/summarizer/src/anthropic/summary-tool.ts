import { type StructuredSummary, structuredSummarySchema } from '@compactor/core';
import { z } from 'zod';

export const SUMMARY_TOOL_NAME = 'record_summary';

/** What the model fills in. Pinning is not the model's to decide: pinned facts come structurally. */
export const llmSummarySchema = z.object({
  currentTask: z
    .string()
    .nullable()
    .describe('What the agent is working on right now, in one or two sentences.'),
  facts: z
    .array(z.string())
    .describe('Stable information: user preferences, constraints, requirements, names, numbers, ids.'),
  decisions: z
    .array(z.object({ decision: z.string(), rationale: z.string().optional() }))
    .describe('Choices made and why; include errors met and how they were resolved.'),
  openItems: z
    .array(z.object({ description: z.string(), priority: z.enum(['high', 'medium', 'low']) }))
    .describe('What is unresolved or still to do.'),
  currentPlan: z.array(z.string()).nullable().describe('Next steps, in order.'),
  filesRead: z.array(z.string()).describe('Exact paths of files read.'),
  filesModified: z.array(z.string()).describe('Exact paths of files created or modified.'),
  toolOutcomes: z
    .array(
      z.object({
        toolName: z.string(),
        outcome: z.enum(['success', 'failure', 'partial']),
        keyFields: z.record(z.string(), z.unknown()).optional(),
        errorMessage: z.string().optional(),
      }),
    )
    .describe('Tool results that matter later: ids created, values found, commands that failed.'),
});
export type LlmSummary = z.infer<typeof llmSummarySchema>;

const inputSchema = (() => {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(llmSummarySchema) as Record<string, unknown>;
  return schema;
})();

export const summaryToolDefinition = {
  name: SUMMARY_TOOL_NAME,
  description: 'Record the structured summary of the conversation span.',
  input_schema: inputSchema as { type: 'object'; [key: string]: unknown },
};

/**
 * The model's summary as a `StructuredSummary`.
 *
 * @param output - The summary tool's validated input.
 * @param decidedBy - When the summarized span ended (its last message's `createdAt`): each decision
 *   is stamped with it as `timestamp`, since the model saw no later message (ADR-0194).
 * @returns The structured summary.
 */
export function toStructuredSummary(output: LlmSummary, decidedBy?: string): StructuredSummary {
  return structuredSummarySchema.parse({
    facts: output.facts.filter((fact) => fact.trim().length > 0).map((text) => ({ text, pinned: false })),
    decisions: output.decisions
      .filter((decision) => decision.decision.trim().length > 0)
      .map((decision) => (decidedBy !== undefined ? { ...decision, timestamp: decidedBy } : decision)),
    openItems: output.openItems.filter((item) => item.description.trim().length > 0),
    toolOutcomes: output.toolOutcomes.map((outcome) => ({ ...outcome, keyFields: outcome.keyFields ?? {} })),
    currentTask: output.currentTask,
    currentPlan: output.currentPlan,
    filesRead: output.filesRead,
    filesModified: output.filesModified,
  });
}
