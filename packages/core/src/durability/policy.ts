import { z } from 'zod';
import { type ArtifactSensitivity, artifactSensitivitySchema } from '../plan/records.js';
import type { ToolResultEnvelope } from '../schemas/content.js';
import { type ToolDurability, toolDurabilitySchema } from './durability.js';

export const toolDurabilityOverrideSchema = z.object({
  durability: toolDurabilitySchema,
  /** Fields of a structured result that must survive any compaction (copied into key fields). */
  mustPreserveFields: z.array(z.string()).default([]),
  /** Results of this tool above this many tokens are externalized rather than kept inline. */
  externalizeThresholdTokens: z.number().int().positive().optional(),
  replayCost: z.enum(['free', 'cheap', 'expensive']).optional(),
  /**
   * How sensitive this tool's output is: its artifacts are stored with (at least) this sensitivity,
   * and confidential/restricted output is withheld from keys without the matching permission.
   */
  artifactSensitivity: artifactSensitivitySchema.optional(),
  /** Seconds this tool's externalized output is kept (the shorter of this and the deployment's wins). */
  artifactTtlSeconds: z.number().int().positive().optional(),
});
/** An operator's settings for one tool, beating what the tool declares. */
export type ToolDurabilityOverride = z.infer<typeof toolDurabilityOverrideSchema>;

export const toolDurabilityPolicySchema = z.object({
  defaultDurability: toolDurabilitySchema.default('anchoring'),
  overrides: z.record(z.string(), toolDurabilityOverrideSchema).default({}),
});
/** The default durability and the per-tool overrides of a thread's policy. */
export type ToolDurabilityPolicy = z.infer<typeof toolDurabilityPolicySchema>;

/** The durability settings that apply to one tool result, and where they came from. */
export interface ResolvedToolDurability {
  durability: ToolDurability;
  mustPreserveFields: string[];
  externalizeThresholdTokens: number | undefined;
  /** The tool's own sensitivity, when the policy names one. */
  artifactSensitivity?: ArtifactSensitivity;
  artifactTtlSeconds?: number;
  /** Where the classification came from, for reports and audits. */
  source: 'policy-override' | 'envelope' | 'policy-default';
}

/**
 * Operator overrides beat what the tool declared, which beats the policy default.
 *
 * @param envelope - The result's tool name and declared durability.
 * @param policy - The thread's durability policy.
 * @returns The settings that apply.
 */
export function resolveToolDurability(
  envelope: Pick<ToolResultEnvelope, 'toolName' | 'durability'>,
  policy: ToolDurabilityPolicy,
): ResolvedToolDurability {
  const override = policy.overrides[envelope.toolName];
  if (override) {
    return {
      durability: override.durability,
      mustPreserveFields: override.mustPreserveFields,
      externalizeThresholdTokens: override.externalizeThresholdTokens,
      ...(override.artifactSensitivity ? { artifactSensitivity: override.artifactSensitivity } : {}),
      ...(override.artifactTtlSeconds ? { artifactTtlSeconds: override.artifactTtlSeconds } : {}),
      source: 'policy-override',
    };
  }
  if (envelope.durability) {
    return {
      durability: envelope.durability,
      mustPreserveFields: [],
      externalizeThresholdTokens: undefined,
      source: 'envelope',
    };
  }
  return {
    durability: policy.defaultDurability,
    mustPreserveFields: [],
    externalizeThresholdTokens: undefined,
    source: 'policy-default',
  };
}

/**
 * The key fields that must survive compaction: the envelope's own, plus any field the policy
 * names that a structured result carries at its top level.
 *
 * @param envelope - The result's key fields and content.
 * @param mustPreserveFields - Top-level fields the policy names.
 * @returns The key fields (the envelope's own win over same-named content fields).
 */
export function collectKeyFields(
  envelope: Pick<ToolResultEnvelope, 'keyFields' | 'content'>,
  mustPreserveFields: readonly string[],
): Record<string, unknown> {
  const keyFields: Record<string, unknown> = { ...envelope.keyFields };
  if (typeof envelope.content === 'object' && envelope.content !== null) {
    for (const field of mustPreserveFields) {
      if (field in envelope.content && !(field in keyFields)) {
        keyFields[field] = (envelope.content as Record<string, unknown>)[field];
      }
    }
  }
  return keyFields;
}
