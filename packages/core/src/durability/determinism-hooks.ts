import type { ToolResultEnvelope } from '../schemas/content.js';
import type { ThreadMessage } from '../thread/thread.js';
import type { CurrentDeterminism } from './clearability.js';
import type { DeterminismMetadata } from './durability.js';
import { resolveToolDurability, type ToolDurabilityPolicy } from './policy.js';

/**
 * The default policy's `capture_determinism` (ADR-0193): for one tool, read the current determinism metadata
 * of a replayable result's source (a file's mtime and hash, a URL's ETag). Registered per tool name
 * by the runtime; may do I/O. Undefined (or a throw) means unknown, which counts as changed.
 */
export type CaptureDeterminism = (
  envelope: ToolResultEnvelope,
  owner: { tenantId: string; threadId: string },
) => Promise<DeterminismMetadata | undefined> | DeterminismMetadata | undefined;

/** Per tool name, the hook that reads its source's current metadata. */
export type DeterminismHooks = Readonly<Record<string, CaptureDeterminism>>;

/** At most this many results are verified per check (oldest first: they are cleared first). */
export const MAX_DETERMINISM_CHECKS = 500;

/**
 * The replayable results worth verifying: resolved `replayable` by the thread's policy, carrying the
 * metadata captured at call time, with a hook registered for their tool. Oldest first, at most
 * {@link MAX_DETERMINISM_CHECKS}.
 *
 * @param messages - The thread's messages.
 * @param policy - The thread's tool durability policy.
 * @param hooks - The registered hooks.
 * @returns The envelopes to verify.
 */
export function replayableResultsToVerify(
  messages: readonly ThreadMessage[],
  policy: ToolDurabilityPolicy,
  hooks: DeterminismHooks,
): ToolResultEnvelope[] {
  const found: ToolResultEnvelope[] = [];
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type !== 'tool_result' || part.determinism === undefined) continue;
      if (!Object.hasOwn(hooks, part.toolName)) continue;
      if (resolveToolDurability(part, policy).durability !== 'replayable') continue;
      found.push(part);
      if (found.length >= MAX_DETERMINISM_CHECKS) return found;
    }
  }
  return found;
}

/** What verifying replayable sources found, for the check's result (a metric must show a loss). */
export interface DeterminismReport {
  /** Results whose hook was called. */
  checked: number;
  /** Proven unchanged: these may be cleared. */
  unchanged: number;
  /** Changed, or no evidence both sides share: kept. */
  changed: number;
  /** The hook threw or returned nothing: kept (unknown counts as changed). */
  failed: number;
}

/**
 * The planner's and the renderer's synchronous lookup over metadata read beforehand, by tool call id.
 *
 * @param current - Tool call id → the source's current metadata.
 * @returns The lookup; an id not in the map is unknown (changed).
 */
export function currentDeterminismFrom(
  current: ReadonlyMap<string, DeterminismMetadata>,
): CurrentDeterminism {
  return (envelope) => current.get(envelope.toolCallId);
}
