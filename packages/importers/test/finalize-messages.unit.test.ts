import { messageSchema } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DraftMessage } from '../src/shared/draft.js';
import { finalizeMessages } from '../src/shared/finalize-messages.js';

/** Random transcripts built from a few call ids, so reuse, orphans, duplicates and gaps all happen. */
const callId = fc.constantFrom('a', 'b', 'c', 'd');
const draft: fc.Arbitrary<DraftMessage> = fc.oneof(
  fc.record({
    id: fc.constantFrom('m1', 'm2', 'm3'),
    role: fc.constant('assistant' as const),
    content: fc.array(
      fc.oneof(
        callId.map((id) => ({ type: 'tool_call' as const, id, name: `tool-${id}`, input: {} })),
        fc.string().map((text) => ({ type: 'text' as const, text })),
      ),
      { maxLength: 3 },
    ),
  }),
  fc.record({
    id: fc.constantFrom('t1', 't2'),
    role: fc.constant('tool' as const),
    content: fc.tuple(callId, fc.boolean()).map(([toolCallId, withImage]) => [
      {
        type: 'tool_result' as const,
        toolCallId,
        outcome: 'success' as const,
        content: 'out',
        ...(withImage
          ? {
              images: [
                {
                  type: 'image' as const,
                  mediaType: 'image/png',
                  source: { kind: 'base64' as const, data: 'AA==' },
                },
              ],
            }
          : {}),
      },
    ]),
  }),
  fc.record({
    id: fc.constant('u'),
    role: fc.constant('user' as const),
    content: fc.constant(null).map((): DraftMessage['content'] => [{ type: 'text', text: 'hi' }]),
  }),
);

describe('finalizeMessages', () => {
  it('always pairs every call with exactly one later result, with unique ids and valid messages', () => {
    fc.assert(
      fc.property(fc.array(draft, { maxLength: 25 }), (drafts) => {
        const { messages, repairs } = finalizeMessages(drafts);
        expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
        const results = new Map<string, number>();
        for (const message of messages) {
          expect(messageSchema.safeParse(message).success).toBe(true);
          for (const part of message.content) {
            if (part.type === 'tool_call') {
              expect(results.has(part.id)).toBe(false);
              results.set(part.id, 0);
            } else if (part.type === 'tool_result') {
              expect(results.has(part.toolCallId)).toBe(true);
              results.set(part.toolCallId, results.get(part.toolCallId)! + 1);
            }
          }
        }
        for (const count of results.values()) expect(count).toBe(1);
        const sourceResults = drafts.filter((d) => d.role === 'tool').length;
        const keptResults = messages.filter((m) => m.role === 'tool' && !m.synthetic).length;
        expect(sourceResults - keptResults).toBe(
          repairs.orphanResultsDropped + repairs.duplicateResultsDropped,
        );
      }),
    );
  });

  it('places each repair after the results that follow its call, and images after the whole run', () => {
    const { messages } = finalizeMessages([
      {
        id: 'call',
        role: 'assistant',
        content: [
          { type: 'tool_call', id: 'x', name: 'read', input: { path: 'a' } },
          { type: 'tool_call', id: 'y', name: 'bash', input: {} },
        ],
      },
      {
        id: 'result-x',
        role: 'tool',
        content: [
          {
            type: 'tool_result',
            toolCallId: 'x',
            outcome: 'success',
            content: '',
            images: [{ type: 'image', mediaType: 'image/png', source: { kind: 'base64', data: 'AA==' } }],
          },
        ],
      },
      { id: 'next', role: 'user', content: [{ type: 'text', text: 'go on' }] },
    ]);
    expect(messages.map((message) => message.id)).toEqual([
      'call',
      'result-x',
      'call-interrupted',
      'result-x-images',
      'next',
    ]);
    expect(messages[1]!.content[0]).toMatchObject({
      toolName: 'read',
      keyFields: { path: 'a' },
      durability: 'replayable',
      content: '[1 image(s), attached in the next message]',
    });
  });
});
