import { randomUUID } from 'node:crypto';
import { CompactorError, type CompactorErrorCode, type EventInput } from '@compactor/core';
import { expect } from 'vitest';

/**
 * Ids unique per test run, so suites can share one database or directory.
 *
 * @param prefix - Readable start of the id.
 * @returns `<prefix>-<uuid>`.
 */
export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Await a promise that must reject with a typed Compactor error of the given code; fails the test otherwise.
 *
 * @param promise - The call under test.
 * @param code - The expected error code.
 * @returns The error, for further assertions.
 */
export async function expectCompactorError(
  promise: Promise<unknown>,
  code: CompactorErrorCode,
): Promise<CompactorError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a CompactorError with code ${code}, but nothing was thrown`).toBeDefined();
  expect(CompactorError.isInstance(caught), `expected a CompactorError, got ${String(caught)}`).toBe(true);
  expect((caught as CompactorError).code).toBe(code);
  return caught as CompactorError;
}

/** A store a contract test runs on. */
export interface StoreUnderTest<Store> {
  store: Store;
  /** Runs after each test. */
  cleanup?: () => Promise<void>;
}

/**
 * A `thread.created` input (claude-sonnet-4-5, 200,000-token window).
 *
 * @param eventId - The event id.
 * @param overrides - Fields to replace.
 * @returns The input.
 */
export function threadCreatedEvent(eventId: string, overrides: Partial<EventInput> = {}): EventInput {
  return {
    eventId,
    type: 'thread.created',
    model: 'claude-sonnet-4-5',
    contextWindow: 200_000,
    ...overrides,
  } as EventInput;
}

/**
 * A user message input.
 *
 * @param eventId - The event id.
 * @param text - The message text.
 * @param options - Message id (default `msg-<eventId>`), tokens and timestamp.
 * @returns The input.
 */
export function userMessageEvent(
  eventId: string,
  text: string,
  options: { messageId?: string; tokens?: number; timestamp?: string } = {},
): EventInput {
  return {
    eventId,
    type: 'message.appended',
    message: { id: options.messageId ?? `msg-${eventId}`, role: 'user', content: [{ type: 'text', text }] },
    ...(options.tokens === undefined ? {} : { tokens: options.tokens }),
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
  };
}

/**
 * A tool call and its result, the result carrying `outputText` (e.g. a 1 MB file listing).
 *
 * @param eventIdPrefix - Prefix of both event ids, message ids and the call id.
 * @param outputText - The tool result's content.
 * @returns The two inputs.
 */
export function toolExchangeEvents(eventIdPrefix: string, outputText: string): EventInput[] {
  const toolCallId = `call-${eventIdPrefix}`;
  return [
    {
      eventId: `${eventIdPrefix}-call`,
      type: 'message.appended',
      message: {
        id: `msg-${eventIdPrefix}-call`,
        role: 'assistant',
        content: [{ type: 'tool_call', id: toolCallId, name: 'read_file', input: { path: 'big.log' } }],
      },
    },
    {
      eventId: `${eventIdPrefix}-result`,
      type: 'message.appended',
      message: {
        id: `msg-${eventIdPrefix}-result`,
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolName: 'read_file',
            toolCallId,
            outcome: 'success',
            content: outputText,
            keyFields: { path: 'big.log' },
          },
        ],
      },
    },
  ];
}

/** Text exercising multi-byte UTF-8, escapes and line separators (byte offsets must not drift). */
export const awkwardText = 'héllo wörld 🌍 — "quoted" \\ back\nslash\ttab \u2028 line sep \u0000 nul 日本語';

/**
 * A string of exactly `bytes` ASCII bytes with some structure (not one repeated character).
 *
 * @param bytes - The length.
 * @returns The text.
 */
export function largeText(bytes: number): string {
  const line = 'drwxr-xr-x  2 agent agent 4096 Jan  1 00:00 some/directory/path/file-name.ts\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}
