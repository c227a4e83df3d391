import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  abridgeRecordOf,
  abridgesMediaPastTurn,
  type CompactionPlan,
  compactionPolicySchema,
  draftAbridgement,
  emptyPlan,
  mediaPastTurn,
  postponedRewrite,
  spanOf,
  stepPays,
  structuredSummarySchema,
  type ThreadMessage,
} from '../src/index.js';

/** A dialogue: turn t is a user message and an assistant reply; `pictured` says which messages hold a picture. */
function dialogue(pictured: readonly boolean[]): ThreadMessage[] {
  return pictured.map((picture, index) => {
    const text = { type: 'text' as const, text: `message ${index}` };
    return {
      id: `m${index}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: picture
        ? [
            text,
            {
              type: 'image',
              mediaType: 'image/jpeg',
              source: { kind: 'url', url: `https://x/${index}.jpg` },
            },
          ]
        : [text],
      metadata: picture ? { blipCaption: `a photo ${index}` } : undefined,
      seq: index + 1,
      index,
      turn: Math.floor(index / 2) + 1,
    } as ThreadMessage;
  });
}

/** A plan made on the first `upTo` messages: the oldest `summarized` summarized, the pictures in `abridged` abridged. */
function planOn(
  messages: ThreadMessage[],
  upTo: number,
  summarized: number,
  abridged: readonly number[],
): CompactionPlan {
  const base = emptyPlan('t', '2025-01-01T00:00:00.000Z', messages[upTo - 1]?.seq ?? 0);
  return {
    ...base,
    version: 1,
    summarizations:
      summarized > 0
        ? [
            {
              kind: 'summarize',
              span: spanOf(messages.slice(0, summarized)),
              summary: structuredSummarySchema.parse({ facts: [{ text: 'earlier' }] }),
              summaryTokenCount: 10,
              round: 1,
            },
          ]
        : [],
    abridgements: abridged.map((index) =>
      abridgeRecordOf(messages[index]!, draftAbridgement(messages[index]!, 5)!),
    ),
  };
}

describe('media past their turn (ADR-0440)', () => {
  it('lists exactly the unowned pictures of finished turns since the plan was made, oldest first (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        (pictured, upToSeed, summarizedSeed, withPlan) => {
          const messages = dialogue(pictured);
          const lastTurn = messages.at(-1)!.turn;
          const upTo = upToSeed % (messages.length + 1);
          const summarized = upTo === 0 ? 0 : summarizedSeed % upTo;
          // The plan abridged the pictures of the turns before its newest, as its check would have.
          const planTurn = upTo === 0 ? 0 : messages[upTo - 1]!.turn;
          const abridged = messages
            .slice(summarized, upTo)
            .filter((message) => pictured[message.index] && message.turn < planTurn)
            .map((message) => message.index);
          const plan = withPlan ? planOn(messages, upTo, summarized, abridged) : null;
          const records = mediaPastTurn(messages, plan, 5);
          const owned = new Set(
            plan === null
              ? []
              : [...messages.slice(0, summarized), ...abridged.map((i) => messages[i]!)].map((m) => m.id),
          );
          const expected = messages.filter(
            (message) =>
              pictured[message.index] &&
              message.turn < lastTurn &&
              !owned.has(message.id) &&
              (plan === null || message.seq > plan.basedOnSeq || message.turn >= planTurn),
          );
          expect(records.map((record) => record.span.messageIds[0])).toEqual(expected.map((m) => m.id));
          for (const record of records)
            expect(record.parts.every((part) => part.reason === 'media')).toBe(true);
        },
      ),
    );
  });

  it('applies on a dialogue under `auto`, everywhere under `always`, nowhere under `never` or without the abridge rung', () => {
    const talk = dialogue([true, false, false, false]);
    const coding: ThreadMessage[] = [
      ...talk.slice(0, 1),
      {
        id: 'call',
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'c1', name: 'read_file', input: {} }],
        seq: 9,
        index: 1,
        turn: 1,
      } as ThreadMessage,
    ];
    const policy = (fields: Record<string, unknown>) => compactionPolicySchema.parse(fields);
    expect(abridgesMediaPastTurn(policy({}), talk)).toBe(false);
    expect(abridgesMediaPastTurn(policy({ abridgeMediaPastTurn: 'auto' }), talk)).toBe(true);
    expect(abridgesMediaPastTurn(policy({ abridgeMediaPastTurn: 'auto' }), coding)).toBe(false);
    expect(abridgesMediaPastTurn(policy({ abridgeMediaPastTurn: 'always' }), coding)).toBe(true);
    expect(
      abridgesMediaPastTurn(policy({ abridgeMediaPastTurn: 'always', strategies: { abridge: false } }), talk),
    ).toBe(false);
    expect(
      abridgesMediaPastTurn(policy({ abridgeMediaPastTurn: 'always', abridgeTailMedia: false }), talk),
    ).toBe(false);
  });

  it('prices a lone step with the share of the next compaction it postpones', () => {
    const cycle = { highWater: 10_000, low: 6_000, stablePrefix: 1_000 };
    expect(postponedRewrite(cycle, 1_000)).toBe(1_250);
    expect(postponedRewrite(cycle, 8_000)).toBe(5_000);
    expect(postponedRewrite({ ...cycle, stablePrefix: 7_000 }, 1_000)).toBe(0);
    // 1,400 freed for 5 calls does not pay a 3,000-token rewrite alone; with a postponed 2,400 it does.
    expect(stepPays({ tokensFreed: 1_400, extraRewrittenTokens: 3_000, calls: 5 })).toBe(false);
    expect(
      stepPays({ tokensFreed: 1_400, extraRewrittenTokens: 3_000, calls: 5, postponedRewriteTokens: 2_400 }),
    ).toBe(true);
  });
});
