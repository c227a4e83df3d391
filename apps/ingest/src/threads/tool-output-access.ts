import {
  parsePolicy,
  policyForWindow,
  readsEveryToolOutput,
  type StoredEvent,
  type ThreadMessage,
  type ToolOutputAccess,
  withholdToolOutputs,
  withholdToolOutputsInEvents,
} from '@compactor/core';
import type { Caller } from '../auth/api-keys.js';
import type { IngestDependencies } from '../dependencies.js';
import type { ThreadCreatedEvent } from './thread-origin.js';

/**
 * What tool output this caller may read in this thread: the thread's policy (fixed at creation)
 * says how sensitive each tool's output is, the deployment sets the floor, the key's permissions
 * decide (ADR-0059). Routes that return message content pass it through the helpers below.
 */
export function toolOutputAccess(
  created: ThreadCreatedEvent,
  caller: Caller,
  dependencies: Pick<IngestDependencies, 'artifactSensitivityFloor'>,
): ToolOutputAccess {
  const policy = policyForWindow(parsePolicy(created.policy ?? {}), created.contextWindow);
  return {
    policy: policy.toolDurability,
    floor: dependencies.artifactSensitivityFloor ?? 'internal',
    tenantId: caller.tenantId,
    permissions: caller.permissions,
  };
}

export function visibleEvents(events: readonly StoredEvent[], access: ToolOutputAccess): StoredEvent[] {
  return withholdToolOutputsInEvents(events, access);
}

/**
 * The messages with what the caller may not read withheld; `withheld` says whether any was. A
 * caller who may read every sensitivity gets the same array without a pass over the history.
 */
export function visibleMessages(
  messages: ThreadMessage[],
  access: ToolOutputAccess,
): { messages: ThreadMessage[]; withheld: boolean } {
  if (readsEveryToolOutput(access)) return { messages, withheld: false };
  let withheld = false;
  const visible = messages.map((message) => {
    const content = withholdToolOutputs(message.content, access);
    if (content === message.content) return message;
    withheld = true;
    return { ...message, content: [...content] } as ThreadMessage;
  });
  return { messages: visible, withheld };
}
