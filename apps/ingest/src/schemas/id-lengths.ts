import type { EventInput } from '@compactor/core';
import type { z } from 'zod';

/**
 * The longest client id inside an event: event, message and tool call ids (ADR-0045). Core's event
 * schema bounds event ids only; logs written before this limit stay readable, so the other ids are
 * bounded here, where new events enter.
 */
export const CLIENT_ID_MAX_LENGTH = 200;

/** A zod refinement: every id a message carries fits `CLIENT_ID_MAX_LENGTH`. */
export function checkEventIdLengths(event: EventInput, context: z.RefinementCtx): void {
  if (event.type !== 'message.appended') return;
  const tooLong = (value: string, path: PropertyKey[]) => {
    if (value.length <= CLIENT_ID_MAX_LENGTH) return;
    context.addIssue({
      code: 'custom',
      path,
      message: `at most ${CLIENT_ID_MAX_LENGTH} characters (got ${value.length})`,
    });
  };
  tooLong(event.message.id, ['message', 'id']);
  event.message.content.forEach((part, index) => {
    if (part.type === 'tool_call') tooLong(part.id, ['message', 'content', index, 'id']);
    if (part.type === 'tool_result') {
      tooLong(part.toolCallId, ['message', 'content', index, 'toolCallId']);
    }
  });
}
