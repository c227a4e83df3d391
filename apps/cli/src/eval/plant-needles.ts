import { type EventInput, isTurnStart, type Message } from '@compactor/core';
import { type Needle, type PlantedNeedle, seededRandom } from './needles.js';

/** Needles go into the first quarter of the real user turns (and of the messages, for tool output). */
export const EARLY_SHARE = 0.25;

export interface PlantResult {
  events: EventInput[];
  planted: PlantedNeedle[];
}

/**
 * Plant needles into a transcript's events: instructions into early real user turns (as an extra
 * text part, the turn's own words untouched), facts alternately into early tool output (appended
 * to a string tool result) and early user turns. Each needle gets its own message, chosen by the
 * seeded PRNG; a needle with no free place left is not planted.
 */
export function plantNeedles(
  events: readonly EventInput[],
  needles: readonly Needle[],
  seed: number,
): PlantResult {
  const random = seededRandom(seed);
  // Root-agent messages only: a subagent's conversation is not rendered into the root request.
  const messages = events.flatMap((event) =>
    event.type === 'message.appended' && event.message.subagentId === undefined ? [event.message] : [],
  );
  const userTurns = messages.filter((message) => isTurnStart(message));
  const earlyUsers = userTurns.slice(0, Math.max(1, Math.ceil(userTurns.length * EARLY_SHARE)));
  const earlyMessages = messages.slice(0, Math.max(1, Math.ceil(messages.length * EARLY_SHARE)));
  const earlyTools = earlyMessages.filter((message) =>
    message.content.some((part) => part.type === 'tool_result' && typeof part.content === 'string'),
  );
  const take = (pool: Message[]): Message | undefined =>
    pool.length === 0 ? undefined : pool.splice(Math.floor(random() * pool.length), 1)[0];
  const edits = new Map<string, { needle: Needle; place: 'user' | 'tool' }>();
  const planted: PlantedNeedle[] = [];
  let facts = 0;
  for (const needle of needles) {
    let place: 'user' | 'tool' = 'user';
    if (needle.kind === 'fact') {
      if (facts % 2 === 0 && earlyTools.length > 0) place = 'tool';
      facts += 1;
    }
    const target = take(place === 'tool' ? earlyTools : earlyUsers);
    if (!target) continue;
    edits.set(target.id, { needle, place });
    planted.push({ ...needle, place, messageId: target.id });
  }
  const plantedEvents = events.map((event): EventInput => {
    if (event.type !== 'message.appended') return event;
    const edit = edits.get(event.message.id);
    if (!edit) return event;
    return { ...event, message: plantInto(event.message, edit.needle.text, edit.place) };
  });
  return { events: plantedEvents, planted };
}

function plantInto(message: Message, text: string, place: 'user' | 'tool'): Message {
  if (place === 'user') return { ...message, content: [...message.content, { type: 'text', text }] };
  let done = false;
  const content = message.content.map((part) => {
    if (done || part.type !== 'tool_result' || typeof part.content !== 'string') return part;
    done = true;
    return { ...part, content: `${part.content}\n${text}` };
  });
  return { ...message, content };
}
