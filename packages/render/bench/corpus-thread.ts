import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type ContentPart,
  foldThread,
  isTurnStart,
  type Message,
  type StoredEvent,
  type Thread,
  type Tokenizer,
} from '@compactor/core';
import { importTranscript } from '@compactor/importers';

const repositoryRoot = resolve(import.meta.dirname, '../../..');
export const corpusDirectory =
  process.env.COMPACTOR_CORPUS_DIR ?? resolve(repositoryRoot, '../shared/corpus');
export const corpusAvailable = existsSync(join(corpusDirectory, 'pi'));

const SESSIONS = ['session.jsonl', 'large-session.jsonl', 'compact.jsonl', 'before-compaction.jsonl'];

/** Ids made unique across sessions (and safe for every provider, so no id needs rewriting). */
function prefixed(message: Message, session: number): Message {
  const callId = (id: string) => `s${session}_${id}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const content = message.content.map((part): ContentPart => {
    if (part.type === 'tool_call') return { ...part, id: callId(part.id) };
    if (part.type === 'tool_result') return { ...part, toolCallId: callId(part.toolCallId) };
    return part;
  });
  return { ...message, id: `s${session}-${message.id}`, content };
}

function capString(value: string, maxChars: number): string {
  return value.length > maxChars ? value.slice(0, maxChars) : value;
}

/** Long tool outputs and long tool-call inputs (file writes, edits) cut to `maxChars`. */
function capTools(message: Message, maxChars: number): Message {
  return {
    ...message,
    content: message.content.map((part) => {
      if (part.type === 'tool_result' && typeof part.content === 'string') {
        return { ...part, content: capString(part.content, maxChars) };
      }
      if (part.type === 'tool_call' && typeof part.input === 'object' && part.input !== null) {
        const input = Object.fromEntries(
          Object.entries(part.input).map(([key, value]) => [
            key,
            typeof value === 'string' ? capString(value, maxChars) : value,
          ]),
        );
        return { ...part, input };
      }
      return part;
    }),
  };
}

function eventsOf(messages: readonly Message[]): StoredEvent[] {
  const at = (seq: number) => new Date(Date.UTC(2025, 0, 1) + seq * 1000).toISOString();
  const base = { tenantId: 'bench', threadId: 'pi-bench' };
  return [
    {
      ...base,
      eventId: 'e1',
      seq: 1,
      timestamp: at(1),
      type: 'thread.created',
      model: 'claude-sonnet-4-5',
      contextWindow: 200_000,
    },
    ...messages.map(
      (message, index): StoredEvent => ({
        ...base,
        eventId: `e${index + 2}`,
        seq: index + 2,
        timestamp: at(index + 2),
        type: 'message.appended',
        message,
      }),
    ),
  ];
}

/**
 * About `targetMessages` messages from the pi sessions in order (ids prefixed per session), cut
 * at a turn start, with long tool outputs and inputs capped so the whole thread is about
 * `targetTokens` as `tokenizer` counts messages (o200k_base content tokens for gpt-4o).
 */
export function corpusThread(
  tokenizer: Tokenizer,
  targetMessages = 2_000,
  targetTokens = 150_000,
): { thread: Thread; events: StoredEvent[] } {
  const all: Message[] = [];
  SESSIONS.forEach((file, session) => {
    const text = readFileSync(join(corpusDirectory, 'pi', file), 'utf8');
    const imported = importTranscript({ text, fileName: file }, { threadId: `s${session}` });
    for (const event of imported.events) {
      if (event.type === 'message.appended') all.push(prefixed(event.message, session));
    }
  });
  let end = Math.min(targetMessages, all.length);
  while (end < all.length && !isTurnStart(all[end]!)) end += 1;
  const messages = all.slice(0, end);
  const total = (maxChars: number) =>
    messages.reduce(
      (sum, message) => sum + tokenizer.countMessage(capTools(message, maxChars), 'openai-chat'),
      0,
    );
  let low = 100;
  let high = 200_000;
  while (high - low > 2) {
    const middle = Math.floor((low + high) / 2);
    if (total(middle) > targetTokens) high = middle;
    else low = middle;
  }
  const events = eventsOf(messages.map((message) => capTools(message, low)));
  return { thread: foldThread(events), events };
}
