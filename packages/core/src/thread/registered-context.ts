import type { ToolDefinition } from '../provider.js';
import type { StoredEvent } from '../schemas/events.js';

/** The system prompt and tools registered on a thread (ADR-0192), and the seq that registered them. */
export interface RegisteredContext {
  system: string;
  tools: ToolDefinition[];
  seq: number;
}

/**
 * The thread's latest `context.registered` event: what the agent runtime says it sends besides the
 * messages, so planning measures the same request render will build.
 *
 * @param events - The thread's stored events, in seq order.
 * @returns The latest registration, or undefined when none was made.
 */
export function registeredContext(events: readonly StoredEvent[]): RegisteredContext | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!;
    if (event.type === 'context.registered') {
      return { system: event.system, tools: event.tools, seq: event.seq };
    }
  }
  return undefined;
}
