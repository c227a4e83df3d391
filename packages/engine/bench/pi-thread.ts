import { readFile } from 'node:fs/promises';
import { type EventInput, foldThread, type StoredEvent, type Thread } from '@compactor/core';
import { importTranscript } from '@compactor/importers';
import { corpusFile } from '@compactor/testkit/corpus';

const PI_SESSIONS = ['before-compaction.jsonl', 'compact.jsonl', 'large-session.jsonl', 'session.jsonl'];

/** One long thread made of the pi sessions back to back (ids prefixed per session), cut at `messages`. */
export async function piThread(messages: number, contextWindow = 200_000): Promise<Thread> {
  const events: StoredEvent[] = [];
  const stored = (input: EventInput): StoredEvent =>
    ({
      ...input,
      tenantId: 'bench',
      threadId: 'pi',
      seq: events.length + 1,
      timestamp: input.timestamp ?? '2025-01-01T00:00:00.000Z',
    }) as StoredEvent;
  events.push(
    stored({ eventId: 'created', type: 'thread.created', model: 'claude-sonnet-4-5', contextWindow }),
  );
  let count = 0;
  for (const [index, file] of PI_SESSIONS.entries()) {
    const imported = importTranscript({
      text: await readFile(corpusFile('pi', file), 'utf8'),
      fileName: file,
    });
    for (const input of imported.events) {
      if (input.type !== 'message.appended' || count >= messages) continue;
      const prefix = `s${index}-`;
      const message = {
        ...input.message,
        id: prefix + input.message.id,
        content: input.message.content.map((part) =>
          part.type === 'tool_call'
            ? { ...part, id: prefix + part.id }
            : part.type === 'tool_result'
              ? { ...part, toolCallId: prefix + part.toolCallId }
              : part,
        ),
      };
      events.push(stored({ ...input, eventId: prefix + input.eventId, message }));
      count += 1;
    }
  }
  return foldThread(events);
}
