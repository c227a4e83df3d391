import type { DroppedSpanIndex } from '../plan/records.js';
import type { ThreadMessage } from '../thread/thread.js';

const STOPWORDS = new Set(
  'the a an and or but if then else of to in on at by for with from as is are was were be been being it its this that these those i you he she we they me my your our their not no do does did so can could should would will just there here what which who when where why how all any some more most other into out up down over under again also than too very only own same about after before'.split(
    ' ',
  ),
);

/**
 * Keywords (most frequent meaningful words, ties alphabetical) and a one-line brief, for later recall.
 *
 * @param messages - The dropped span.
 * @param maxKeywords - The most keywords kept.
 * @returns The index; the brief is the span's first user text, up to 160 characters.
 */
export function buildDroppedSpanIndex(
  messages: readonly ThreadMessage[],
  maxKeywords = 12,
): DroppedSpanIndex {
  const counts = new Map<string, number>();
  let brief = '';
  for (const message of messages) {
    for (const part of message.content) {
      const text = part.type === 'text' ? part.text : part.type === 'tool_call' ? part.name : '';
      if (!brief && message.role === 'user' && part.type === 'text')
        brief = part.text.replace(/\s+/g, ' ').trim().slice(0, 160);
      for (const word of text.toLowerCase().match(/[a-z][a-z0-9_.-]{2,}/g) ?? []) {
        if (!STOPWORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
      }
    }
  }
  const keywords = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, maxKeywords)
    .map(([word]) => word);
  const first = messages[0];
  const last = messages.at(-1);
  const turns = first && last ? `turns ${first.turn}-${last.turn}` : 'no messages';
  return { keywords, brief: brief ? `${turns}: ${brief}` : `${turns}: ${messages.length} messages` };
}
