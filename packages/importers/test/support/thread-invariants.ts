import {
  buildToolPairIndex,
  countUserTurns,
  eventInputSchema,
  foldThread,
  type Message,
  type StoredEvent,
  type Thread,
} from '@compactor/core';
import { expect } from 'vitest';
import type { ImportedTranscript } from '../../src/index.js';

/** The messages of an import, in order. */
export function messagesOf(imported: ImportedTranscript): Message[] {
  return imported.events.flatMap((event) => (event.type === 'message.appended' ? [event.message] : []));
}

export function messageById(imported: ImportedTranscript, id: string): Message {
  const message = messagesOf(imported).find((candidate) => candidate.id === id);
  if (!message)
    throw new Error(
      `no message ${id}; ids: ${messagesOf(imported)
        .map((m) => m.id)
        .join(', ')}`,
    );
  return message;
}

/** Fold the events as a store would return them, through core's own fold. */
export function foldImported(imported: ImportedTranscript): Thread {
  const stored = imported.events.map(
    (event, index): StoredEvent =>
      ({
        ...event,
        tenantId: 'tenant-test',
        threadId: imported.threadId,
        seq: index + 1,
        timestamp: event.timestamp ?? '2020-01-01T00:00:00.000Z',
      }) as StoredEvent,
  );
  return foldThread(stored);
}

/**
 * What every import must satisfy: thread.created first, valid events, unique ids, every tool
 * result after its call and every call answered exactly once, and core agreeing on turns.
 */
export function expectValidThread(imported: ImportedTranscript): Thread {
  const [first, ...rest] = imported.events;
  expect(first?.type).toBe('thread.created');
  expect(rest.every((event) => event.type === 'message.appended')).toBe(true);
  for (const event of imported.events) {
    const parsed = eventInputSchema.safeParse(event);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  }
  const eventIds = imported.events.map((event) => event.eventId);
  expect(new Set(eventIds).size).toBe(eventIds.length);
  const messages = messagesOf(imported);
  expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);

  const answered = new Map<string, number>();
  for (const message of messages) {
    if (message.role === 'tool') {
      expect(message.content).toHaveLength(1);
      const part = message.content[0]!;
      expect(part.type).toBe('tool_result');
      if (part.type !== 'tool_result') continue;
      expect(answered.has(part.toolCallId), `result ${message.id} answers a call made earlier`).toBe(true);
      answered.set(part.toolCallId, (answered.get(part.toolCallId) ?? 0) + 1);
    }
    for (const part of message.content) {
      if (part.type === 'tool_call') {
        expect(answered.has(part.id), `call id ${part.id} is used once`).toBe(false);
        answered.set(part.id, 0);
      }
    }
  }
  for (const [callId, results] of answered) expect(results, `results of call ${callId}`).toBe(1);

  const thread = foldImported(imported);
  const pairs = buildToolPairIndex(thread.messages);
  expect(pairs.orphanResultCallIds).toEqual([]);
  expect(pairs.pendingCallIds).toEqual([]);
  expect(countUserTurns(thread.messages)).toBe(imported.stats.userTurns);
  expect(thread.messages).toHaveLength(imported.stats.messages);
  return thread;
}
