import {
  type EventInput,
  eventInputSchema,
  fieldIssuesFrom,
  type Message,
  ValidationError,
} from '@compactor/core';
import { boundedId } from './shared/ids.js';
import type { TranscriptFormat } from './types.js';

export interface EventPlan {
  format: TranscriptFormat;
  conversationIndex: number;
  model: string;
  contextWindow: number;
  messages: readonly Message[];
  startedAt: string | undefined;
  metadata: Record<string, unknown>;
}

/** Event ids derive from the format, the conversation and the message id: stable across imports. */
export function buildEvents(plan: EventPlan): EventInput[] {
  const prefix = `${plan.format}-${plan.conversationIndex}`;
  const startedAt = plan.startedAt ?? plan.messages.find((message) => message.createdAt)?.createdAt;
  const events: unknown[] = [
    {
      eventId: `${prefix}-thread-created`,
      ...(startedAt === undefined ? {} : { timestamp: startedAt }),
      type: 'thread.created',
      model: plan.model,
      contextWindow: plan.contextWindow,
      metadata: plan.metadata,
    },
  ];
  for (const message of plan.messages) {
    events.push({
      eventId: boundedId(`${prefix}-${message.id}`, 200),
      ...(message.createdAt === undefined ? {} : { timestamp: message.createdAt }),
      type: 'message.appended',
      message,
    });
  }
  return events.map(validateEvent);
}

function validateEvent(event: unknown, index: number): EventInput {
  const parsed = eventInputSchema.safeParse(event);
  if (!parsed.success) {
    // The adapters build valid events by construction: reaching this is an importer bug.
    throw new ValidationError(
      `imported event ${index} is not a valid event`,
      fieldIssuesFrom(parsed.error.issues),
    );
  }
  return parsed.data;
}
