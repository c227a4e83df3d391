import type { ToolResultEnvelope } from '../schemas/content.js';
import { type DeterminismMetadata, hasChanged } from './durability.js';
import { resolveToolDurability, type ToolDurabilityPolicy } from './policy.js';

/** Current determinism metadata of a result's source; undefined means unknown, which counts as changed. */
export type CurrentDeterminism = (envelope: ToolResultEnvelope) => DeterminismMetadata | undefined;

/** Less valuable first: ephemeral, then verified replayable, then anchoring (its key fields stay). */
const CLEAR_ORDER = { ephemeral: 0, replayable: 1, anchoring: 2 } as const;

/** Whether a tool result may be cleared, and in which order. */
export interface Clearability {
  /** Lower clears first. */
  order: number;
  /** Why it may be cleared, for proposals and reports. */
  reason: string;
}

/**
 * May this tool result be replaced by its placeholder (tool name, outcome, key fields)? The one
 * rule the clear rung and the renderer's emergency fit share (ADR-0071): ephemeral and anchoring
 * results may; a replayable one only when `hasChanged` proves its source unchanged, so a caller
 * that cannot check (`currentDeterminism` absent) never clears it; non-replayable never.
 *
 * @param envelope the tool result
 * @param policy the thread's tool durability policy
 * @param currentDeterminism looks up the source's current metadata; absent = unknown
 * @returns how soon it may be cleared, or undefined when it must stay
 */
export function clearability(
  envelope: ToolResultEnvelope,
  policy: ToolDurabilityPolicy,
  currentDeterminism?: CurrentDeterminism,
): Clearability | undefined {
  const { durability } = resolveToolDurability(envelope, policy);
  if (durability === 'non_replayable') return undefined;
  if (durability === 'replayable' && hasChanged(envelope.determinism, currentDeterminism?.(envelope))) {
    return undefined;
  }
  return { order: CLEAR_ORDER[durability], reason: `${envelope.toolName} result is ${durability}` };
}
