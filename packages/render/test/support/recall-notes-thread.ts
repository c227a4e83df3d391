import type { Thread } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';

/** How a recall block starts in the rendered request. */
export const RECALL_MARKER = '[Recalled from earlier in this conversation';

/** The words the notes name and the questions ask about. */
export const RECALL_VOCABULARY = [
  'locker',
  'violin',
  'harbour',
  'pottery',
  'marathon',
  'glacier',
  'lantern',
  'orchard',
];

/**
 * A coding-agent thread for the append-only recall properties: notes (each naming two words of the
 * vocabulary and a code, answered "Noted."), then turns that ask about some words, each worked through
 * with `exchanges` tool calls (plus `extraFirstTurnCalls` in the first turn) and answered.
 *
 * @returns The thread and how many messages the notes take (the span a plan summarizes).
 */
export function recallNotesThread(
  name: string,
  notes: readonly (readonly [number, number, number])[],
  turns: readonly { asks: readonly number[]; exchanges: number }[],
  extraFirstTurnCalls = 0,
): { thread: Thread; compacted: number } {
  const builder = threadBuilder(name, { tenantId: 'tenant-1' });
  for (const [index, [first, second, code]] of notes.entries())
    builder
      .user(
        `Note ${index}: the ${RECALL_VOCABULARY[first]} and the ${RECALL_VOCABULARY[second]} have code ${code}.`,
      )
      .assistant('Noted.');
  for (const [turn, { asks, exchanges }] of turns.entries()) {
    builder.user(
      `Question ${turn}: what about the ${asks.map((ask) => RECALL_VOCABULARY[ask]).join(' and the ')}?`,
    );
    for (let call = 0; call < exchanges + (turn === 0 ? extraFirstTurnCalls : 0); call += 1) {
      builder.assistant(`Looking ${turn}.${call}.`, {
        toolCalls: [
          { id: `c${turn}x${call}`, name: 'read_file', input: { path: `notes-${turn}-${call}.txt` } },
        ],
      });
      builder.toolResult(`c${turn}x${call}`, `part ${call} of turn ${turn}: ${'shelf '.repeat(20)}`);
    }
    builder.assistant(`Answer ${turn}.`);
  }
  return { thread: builder.build().thread, compacted: notes.length * 2 };
}
