import { type ArtifactSensitivity, artifactSensitivitySchema } from '../plan/records.js';
import { stricterSensitivity } from '../ports/artifact-rules.js';
import { artifactAccessDecision } from '../ports/artifact-store.js';
import type { StoredEvent } from '../schemas/events.js';
import type { ToolDurabilityPolicy } from './policy.js';

/**
 * How sensitive a tool's output is: the stricter of the deployment's floor (its artifact default)
 * and the tool's own `artifactSensitivity` in the thread's policy (ADR-0059).
 *
 * @param toolName - The tool.
 * @param policy - The thread's durability policy.
 * @param floor - The deployment's default sensitivity.
 * @returns The stricter of the two.
 */
export function toolOutputSensitivity(
  toolName: string,
  policy: ToolDurabilityPolicy,
  floor: ArtifactSensitivity = 'internal',
): ArtifactSensitivity {
  const own = policy.overrides[toolName]?.artifactSensitivity;
  return own === undefined ? floor : stricterSensitivity(floor, own);
}

/**
 * The text shown instead of tool output the caller may not read.
 *
 * @param toolName - The tool.
 * @param sensitivity - Its output's sensitivity.
 * @returns The stand-in text.
 */
export function withheldToolOutputText(toolName: string, sensitivity: ArtifactSensitivity): string {
  return `[withheld: ${toolName} output is ${sensitivity}; this key lacks the permission to read it]`;
}

/** Who is reading tool output, and under which policy. */
export interface ToolOutputAccess {
  policy: ToolDurabilityPolicy;
  /**
   * The deployment's default artifact sensitivity (a floor for every tool).
   * @defaultValue `'internal'`
   */
  floor?: ArtifactSensitivity;
  tenantId: string;
  permissions: ReadonlySet<string> | readonly string[];
}

/**
 * Whether the caller may read tool output of every sensitivity, so {@link withholdToolOutputs}
 * changes nothing in any message: a render or a read need not look at each message (issue #18).
 *
 * @param access - The caller's tenant and permissions.
 * @returns True when no tool output can be withheld from this caller.
 */
export function readsEveryToolOutput(access: Pick<ToolOutputAccess, 'tenantId' | 'permissions'>): boolean {
  return artifactSensitivitySchema.options.every(
    (sensitivity) =>
      artifactAccessDecision(
        { tenantId: access.tenantId, sensitivity },
        { requesterId: 'caller', tenantId: access.tenantId, permissions: access.permissions },
      ).allowed,
  );
}

interface ContentCarrier {
  content: readonly unknown[];
}

/**
 * The message content with every tool result the caller may not read (its tool's sensitivity
 * needs a permission the caller lacks) replaced by a stand-in: no content, no key fields. The
 * same array when nothing is withheld.
 *
 * @param content - A message's content parts.
 * @param access - The caller's tenant, permissions and policy.
 * @returns The content with unreadable tool results withheld.
 */
export function withholdToolOutputs<T>(content: readonly T[], access: ToolOutputAccess): readonly T[] {
  let changed = false;
  const result = content.map((part) => {
    const candidate = part as { type?: unknown; toolName?: unknown };
    if (candidate.type !== 'tool_result' || typeof candidate.toolName !== 'string') return part;
    const sensitivity = toolOutputSensitivity(candidate.toolName, access.policy, access.floor);
    const decision = artifactAccessDecision(
      { tenantId: access.tenantId, sensitivity },
      { requesterId: 'caller', tenantId: access.tenantId, permissions: access.permissions },
    );
    if (decision.allowed) return part;
    changed = true;
    return {
      ...part,
      content: withheldToolOutputText(candidate.toolName, sensitivity),
      keyFields: {},
    } as T;
  });
  return changed ? result : content;
}

/**
 * `withholdToolOutputs` over the messages of an event page (other events unchanged).
 *
 * @param events - A page of stored events.
 * @param access - The caller's tenant, permissions and policy.
 * @returns The events, message events copied where something was withheld.
 */
export function withholdToolOutputsInEvents(
  events: readonly StoredEvent[],
  access: ToolOutputAccess,
): StoredEvent[] {
  return events.map((event) => {
    if (event.type !== 'message.appended') return event;
    const message = (event as StoredEvent & { message: ContentCarrier }).message;
    const content = withholdToolOutputs(message.content, access);
    return content === message.content
      ? event
      : ({ ...event, message: { ...message, content } } as StoredEvent);
  });
}
