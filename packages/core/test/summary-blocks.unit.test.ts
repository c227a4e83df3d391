import { threadBuilder } from '@compactor/testkit/thread-builder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompactionPlan,
  normalizePlan,
  parsePolicy,
  planCompaction,
  planWithPolicy,
  renderSummary,
  type SummarizationRecord,
  type SummarizeRequest,
  type Summarizer,
  structuredSummarySchema,
  summaryText,
  type Thread,
} from '../src/index.js';
import { consolidateSummaryBlocks, mergeSummaryBlocks } from '../src/planner/summary-blocks.js';

const countText = (text: string) => Math.ceil(text.length / 4);
const countMessage = (message: { content: readonly { type: string; text?: string }[] }) =>
  4 + message.content.reduce((total, part) => total + countText(part.text ?? 'x'.repeat(40)), 0);

/** The prompt's message tokens under a plan: one synthetic message per summary block. */
const measureFor = (thread: Thread) => (plan: CompactionPlan) => {
  const normalized = normalizePlan(plan);
  const seen = new Set<unknown>();
  let total = 0;
  for (const message of thread.messages) {
    const planned = normalized.actions.get(message.id);
    if (!planned) total += countMessage(message);
    else if (planned.record.kind === 'summarize' && !seen.has(planned.record)) {
      seen.add(planned.record);
      total += 4 + countText(renderSummary(planned.record.summary));
    }
  }
  return total;
};

function conversation(turns: number, policy: Record<string, unknown>) {
  const builder = threadBuilder('t1', { policy: policy as never });
  for (let turn = 1; turn <= turns; turn += 1) {
    builder.user(`question ${turn} ${'about the garden '.repeat(10)}`);
    builder.assistant(`answer ${turn} ${'plant tomatoes '.repeat(10)}`);
  }
  return builder.build().thread;
}

/** Pins one fact naming the span's first and last message, so every span's fact can be traced. */
function pinningSummarizer(): Summarizer & { requests: SummarizeRequest[] } {
  const requests: SummarizeRequest[] = [];
  return {
    id: 's',
    modelId: 's',
    promptVersion: '1',
    requests,
    async summarize(request) {
      requests.push(request);
      const ids = request.span.messageIds;
      const facts = [
        { text: `pinned ${ids[0]}..${ids.at(-1)}`, pinned: true },
        { text: `loose ${ids[0]} ${'detail '.repeat(20)}` },
      ];
      return {
        summary: structuredSummarySchema.parse({
          facts: request.previousSummary ? [...request.previousSummary.facts, ...facts] : facts,
        }),
        summarizerId: 's',
        modelId: 's',
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        via: 'llm',
      };
    },
  };
}

const recursive = { kind: 'recursive-summarization', maxEventsToKeep: 4, overlapSize: 0 };

async function recursiveRounds(rounds: number, policy: Record<string, unknown>) {
  const summarizer = pinningSummarizer();
  let plan: CompactionPlan | null = null;
  const plans: CompactionPlan[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    const thread = conversation(2 + round * 3, policy);
    const outcome = await planWithPolicy({
      thread,
      currentPlan: plan,
      targetTokens: 200,
      measure: measureFor(thread),
      countMessage,
      countText,
      summarizer,
      now: '2025-01-02T00:00:00.000Z',
    });
    plan = outcome.plan;
    plans.push(plan);
  }
  return { plans, summarizer };
}

describe('append-only summary blocks (ADR-0150)', () => {
  it('recursive summarization appends a block per round and leaves earlier blocks byte-identical', async () => {
    const { plans, summarizer } = await recursiveRounds(3, { mode: recursive });
    const [first, second, third] = plans as [CompactionPlan, CompactionPlan, CompactionPlan];
    expect(first.summarizations).toHaveLength(1);
    expect(second.summarizations).toHaveLength(2);
    expect(third.summarizations).toHaveLength(3);
    // Earlier blocks are the same records, so they render to the same bytes.
    expect(summaryText(second.summarizations[0]!)).toBe(summaryText(first.summarizations[0]!));
    expect(third.summarizations.slice(0, 2)).toEqual(second.summarizations);
    // The new block covers only what no earlier block does; the summarizer sees only that span.
    const earlier = new Set(first.summarizations[0]!.span.messageIds);
    expect(second.summarizations[1]!.span.messageIds.some((id) => earlier.has(id))).toBe(false);
    expect(summarizer.requests[1]!.previousSummary).toBeUndefined();
    expect(summarizer.requests[1]!.messages.map((message) => message.id)).toEqual(
      second.summarizations[1]!.span.messageIds,
    );
    expect(second.summarizations[1]!.round).toBe(2);
  });

  it('persists each block’s original tokens and compression ratio', async () => {
    const { plans } = await recursiveRounds(2, { mode: recursive });
    const thread = conversation(8, { mode: recursive });
    for (const block of plans[1]!.summarizations) {
      const original = thread.messages
        .filter((message) => block.span.messageIds.includes(message.id))
        .reduce((total, message) => total + countMessage(message), 0);
      expect(block.originalTokenCount).toBe(original);
      expect(block.compressionRatio).toBeCloseTo(original / block.summaryTokenCount, 10);
      // Counted as the prompt carries it: the block's header line and the summary (ADR-0260).
      expect(block.summaryTokenCount).toBe(countText(summaryText(block)));
    }
  });

  it('seed-000: at most 5 checkpoints, then the oldest are merged, every pinned fact kept', async () => {
    const { plans, summarizer } = await recursiveRounds(8, { preset: 'seed-000', mode: recursive });
    const counts = plans.map((plan) => plan.summarizations.length);
    expect(counts).toEqual([1, 2, 3, 4, 5, 5, 5, 5]);
    const last = plans.at(-1)!;
    const pinned = last.summarizations.flatMap((block) =>
      block.summary.facts.filter((fact) => fact.pinned).map((fact) => fact.text),
    );
    for (const request of summarizer.requests) {
      const ids = request.span.messageIds;
      expect(pinned).toContain(`pinned ${ids[0]}..${ids.at(-1)}`);
    }
    // Merging the oldest rewrote only the oldest blocks: the three before the new one are unchanged.
    const inLogOrder = (plan: CompactionPlan) =>
      [...plan.summarizations].sort(
        (left, right) =>
          Number(left.span.messageIds[0]!.slice(1)) - Number(right.span.messageIds[0]!.slice(1)),
      );
    expect(inLogOrder(last).slice(1, 4)).toEqual(inLogOrder(plans.at(-2)!).slice(2, 5));
    // Every summarized message is in exactly one block.
    const ids = last.summarizations.flatMap((block) => block.span.messageIds);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('rolling composition stays available: one summary over the union every round', async () => {
    const { plans } = await recursiveRounds(3, { mode: recursive, summaryComposition: 'rolling' });
    expect(plans.map((plan) => plan.summarizations.length)).toEqual([1, 1, 1]);
  });

  it('the ladder appends a block after the previous one instead of rewriting it', async () => {
    const policy = {
      keepRecentTurns: 2,
      keepRecentTokens: 0,
      clearAtLeastTokens: 0,
      keepUserMessages: false,
      strategies: { abridge: false, externalize: false, summarize: true, clear: false, drop: false },
    };
    const summarizer = pinningSummarizer();
    const short = conversation(8, policy);
    const first = await planCompaction({
      thread: short,
      currentPlan: null,
      targetTokens: 400,
      measure: measureFor(short),
      countMessage,
      countText,
      summarizer,
      now: '2025-01-02T00:00:00.000Z',
    });
    expect(first.status).toBe('compacted');
    const long = conversation(14, policy);
    const second = await planCompaction({
      thread: long,
      currentPlan: first.plan,
      targetTokens: 400,
      measure: measureFor(long),
      countMessage,
      countText,
      summarizer,
      now: '2025-01-02T00:00:00.000Z',
    });
    expect(second.status).toBe('compacted');
    expect(second.plan.summarizations[0]).toEqual(first.plan.summarizations[0]);
    expect(second.plan.summarizations.length).toBeGreaterThanOrEqual(2);
    expect(summarizer.requests.at(-1)!.previousSummary).toBeUndefined();
  });
});

describe('consolidateSummaryBlocks', () => {
  const block = (index: number, facts: { text: string; pinned: boolean }[]): SummarizationRecord => {
    const summary = structuredSummarySchema.parse({ facts });
    return {
      kind: 'summarize',
      span: { messageIds: [`m${index}`], firstTurn: index, lastTurn: index },
      summary,
      summaryTokenCount: countText(renderSummary(summary)),
      round: index + 1,
      originalTokenCount: 1000,
      compressionRatio: 1000 / countText(renderSummary(summary)),
    };
  };
  const blocksArbitrary = fc
    .array(
      fc.array(fc.record({ text: fc.string({ minLength: 1, maxLength: 60 }), pinned: fc.boolean() }), {
        maxLength: 8,
      }),
      { minLength: 1, maxLength: 12 },
    )
    .map((factLists) => factLists.map((facts, index) => block(index, facts)));

  it('a merged block names each id of the two once, in log order, as sorting their union does', () => {
    // Spans in log order are merged in one pass; any other list (out of order, repeated, an id not in
    // the log) is sorted as before. Positions: m0…m29 in the log, "x…" ids in none.
    const ids = fc.array(
      fc.oneof(
        fc.nat(29).map((at) => `m${at}`),
        fc.constantFrom('x1', 'x2'),
      ),
      {
        maxLength: 20,
      },
    );
    const inOrder = fc
      .uniqueArray(fc.nat(29), { maxLength: 20 })
      .map((positions) => positions.sort((left, right) => left - right).map((at) => `m${at}`));
    const indexOf = (id: string) => (id.startsWith('m') ? Number(id.slice(1)) : Number.POSITIVE_INFINITY);
    fc.assert(
      fc.property(fc.oneof(inOrder, ids), fc.oneof(inOrder, ids), (first, second) => {
        const older = { ...block(0, []), span: { messageIds: first, firstTurn: 0, lastTurn: 0 } };
        const newer = { ...block(1, []), span: { messageIds: second, firstTurn: 1, lastTurn: 1 } };
        const expected = [...new Set([...first, ...second])].sort(
          (left, right) => indexOf(left) - indexOf(right),
        );
        expect(mergeSummaryBlocks(older, newer, indexOf, 1000, countText).span.messageIds).toEqual(expected);
        // With the spans' positions known (a planning run's), the same ids, and the merged block's positions told.
        const told = new Map<SummarizationRecord, Int32Array>();
        const positionsOf = (block: SummarizationRecord) =>
          block.span.messageIds.map((id) => (id.startsWith('m') ? Number(id.slice(1)) : -1));
        const merged = mergeSummaryBlocks(older, newer, indexOf, 1000, countText, {
          of: positionsOf,
          remember: (block, positions) => told.set(block, positions),
        });
        expect(merged.span.messageIds).toEqual(expected);
        const remembered = told.get(merged);
        if (remembered) expect([...remembered]).toEqual(positionsOf(merged));
      }),
      { numRuns: 300 },
    );
  });

  it('never loses a pinned fact, keeps within maxBlocks and the budget, and leaves blocks within the caps untouched', () => {
    fc.assert(
      fc.property(
        blocksArbitrary,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 20, max: 2000 }),
        (blocks, maxBlocks, budgetTokens) => {
          const { blocks: out, merged } = consolidateSummaryBlocks(
            blocks,
            { maxBlocks, budgetTokens, countText },
            (id) => Number(id.slice(1)),
          );
          expect(out.length).toBeLessThanOrEqual(Math.max(1, maxBlocks));
          expect(out.length).toBe(blocks.length - merged);
          const pinnedIn = (list: SummarizationRecord[]) =>
            new Set(
              list.flatMap((record) => record.summary.facts.filter((f) => f.pinned).map((f) => f.text)),
            );
          // Every pinned fact is in the text or behind the pointer (ADR-0161, ADR-0261).
          const held = new Set(
            out.flatMap((record) =>
              [...record.summary.facts, ...(record.summary.externalizedFacts ?? [])].map((f) => f.text),
            ),
          );
          for (const text of pinnedIn(blocks)) expect(held.has(text)).toBe(true);
          const total = out.reduce((sum, record) => sum + countText(summaryText(record)), 0);
          if (total > budgetTokens) {
            expect(out).toHaveLength(1);
            expect(out[0]!.summary.facts).toEqual([]);
          }
          // Only the oldest were merged: the rest are the same objects, in order.
          expect(out.slice(1)).toEqual(blocks.slice(merged + 1));
          for (let index = 1; index < out.length; index += 1) expect(out[index]).toBe(blocks[merged + index]);
          // Every message stays covered exactly once.
          expect(out.flatMap((record) => record.span.messageIds).sort()).toEqual(
            blocks.flatMap((record) => record.span.messageIds).sort(),
          );
          if (merged > 0) expect(out[0]!.originalTokenCount).toBe(1000 * (merged + 1));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('with countCapMerges newest, the count cap folds the newest blocks and leaves the older ones as they were (ADR-0211)', () => {
    fc.assert(
      fc.property(blocksArbitrary, fc.integer({ min: 1, max: 8 }), (blocks, maxBlocks) => {
        const { blocks: out, merged } = consolidateSummaryBlocks(
          blocks,
          { maxBlocks, budgetTokens: Number.MAX_SAFE_INTEGER, countText, countCapMerges: 'newest' },
          (id) => Number(id.slice(1)),
        );
        expect(out.length).toBe(Math.min(blocks.length, maxBlocks));
        expect(merged).toBe(blocks.length - out.length);
        // Every block but the last is the same object as before: the prompt cache keeps them.
        for (let index = 0; index < out.length - 1; index += 1) expect(out[index]).toBe(blocks[index]);
        const pinnedIn = (list: SummarizationRecord[]) =>
          new Set(list.flatMap((record) => record.summary.facts.filter((f) => f.pinned).map((f) => f.text)));
        for (const text of pinnedIn(blocks)) expect(pinnedIn(out).has(text)).toBe(true);
        expect(out.flatMap((record) => record.span.messageIds).sort()).toEqual(
          blocks.flatMap((record) => record.span.messageIds).sort(),
        );
        if (merged > 0) expect(out.at(-1)!.originalTokenCount).toBe(1000 * (merged + 1));
      }),
      { numRuns: 200 },
    );
    expect(parsePolicy({}).summaryBlockMerge).toBe('newest');
    expect(parsePolicy({ preset: 'seed-000' }).summaryBlockMerge).toBe('oldest');
  });

  it('moves the oldest pinned facts behind one pointer when pinned facts alone exceed the budget (ADR-0261)', () => {
    const pinned = (index: number) =>
      block(index, [{ text: `pinned ${'x'.repeat(400)} ${index}`, pinned: true }]);
    const blocks = [pinned(0), pinned(1), pinned(2)];
    const result = consolidateSummaryBlocks(blocks, { maxBlocks: 8, budgetTokens: 200, countText }, (id) =>
      Number(id.slice(1)),
    );
    expect(
      result.blocks.reduce((sum, record) => sum + countText(summaryText(record)), 0),
    ).toBeLessThanOrEqual(200);
    // The two oldest merged, their pinned facts behind the pointer line; the newest block is untouched.
    const [merged, newest] = result.blocks as [SummarizationRecord, SummarizationRecord];
    expect(result.blocks).toHaveLength(2);
    expect(newest).toBe(blocks[2]);
    expect(merged.summary.facts).toEqual([]);
    expect(merged.summary.externalizedFacts?.map((fact) => fact.text)).toEqual([
      `pinned ${'x'.repeat(400)} 0`,
      `pinned ${'x'.repeat(400)} 1`,
    ]);
    expect(summaryText(merged)).toContain('2 earlier pinned instructions');
  });

  it('on a coding session, joins more of the oldest blocks while two would be trimmed to less than an even share (ADR-0403)', () => {
    const facts = (index: number) =>
      Array.from({ length: 12 }, (_, fact) => ({
        text: `turn ${index}: file-${index}-${fact}.ts edited`,
        pinned: false,
      }));
    const blocks = Array.from({ length: 5 }, (_, index) => block(index, facts(index)));
    const each = countText(summaryText(blocks[0]!));
    // The three newest alone take more than half the budget: two oldest merged would get a room of 1.
    const budgetTokens = Math.floor(each * 4.5);
    const maxBlocks = 8;
    const result = consolidateSummaryBlocks(
      blocks,
      { maxBlocks, budgetTokens, countText, joinOldest: true },
      (id) => Number(id.slice(1)),
    );
    const total = result.blocks.reduce((sum, record) => sum + countText(summaryText(record)), 0);
    expect(total).toBeLessThanOrEqual(budgetTokens);
    const [merged, ...rest] = result.blocks as [SummarizationRecord, ...SummarizationRecord[]];
    // The merged block says something of each block it joined, and what follows it is untouched.
    expect(countText(summaryText(merged))).toBeGreaterThanOrEqual(Math.floor(budgetTokens / maxBlocks) / 2);
    const joined = blocks.length - rest.length;
    expect(joined).toBeGreaterThan(2);
    for (let index = 0; index < joined; index += 1)
      expect(merged.summary.facts.some((fact) => fact.text.startsWith(`turn ${index}:`))).toBe(true);
    for (const [index, record] of rest.entries()) expect(record).toBe(blocks[joined + index]);
    expect(result.merged).toBe(joined - 1);
    // A dialogue's blocks (joinOldest off) still merge two at a time; the oldest is no longer emptied (ADR-0445).
    const pairwise = consolidateSummaryBlocks(blocks, { maxBlocks, budgetTokens, countText }, (id) =>
      Number(id.slice(1)),
    );
    expect(pairwise.blocks[0]!.span.messageIds).toEqual(['m0', 'm1']);
    expect(pairwise.blocks[0]!.summary.facts.some((fact) => fact.text.startsWith('turn 0:'))).toBe(true);
  });

  // A dialogue's block: scored verbatim turns, as the extractive dialogue summarizer writes them.
  const dialogueBlock = (first: number, last: number): SummarizationRecord => {
    const turns = Array.from({ length: last - first + 1 }, (_, offset) => first + offset);
    const summary = structuredSummarySchema.parse({
      facts: turns.map((turn) => ({
        text: `[turn ${turn}] ${turn % 2 === 0 ? 'Ana' : 'Ben'}: we met at the ${turn}th pottery class on a Sunday`,
        pinned: false,
        score: (turn * 7) % 5,
        turn,
      })),
    });
    const record: SummarizationRecord = {
      kind: 'summarize',
      span: { messageIds: turns.map((turn) => `m${turn}`), firstTurn: first, lastTurn: last },
      summary,
      summaryTokenCount: 0,
      round: first + 1,
      originalTokenCount: 1000,
    };
    return { ...record, summaryTokenCount: countText(summaryText(record)) };
  };
  const bodyOf = (record: SummarizationRecord) => renderSummary(record.summary).split('\n').slice(1);

  it('on a dialogue, a budget merge never empties the oldest blocks while the newer take over half the budget', () => {
    // Five dialogue blocks of three turns each; the three newest alone take more than half the budget, so
    // the two oldest merged to the low-water room (half the budget less the newer blocks) got 1 token:
    // `[Context Summary - Turns 0-5]` with an empty body, six turns lost (LoCoMo conv. 1 @16k, call 113 on).
    const blocks = Array.from({ length: 5 }, (_, index) => dialogueBlock(index * 3, index * 3 + 2));
    const each = countText(summaryText(blocks[0]!));
    const budgetTokens = Math.floor(each * 4.5);
    const result = consolidateSummaryBlocks(blocks, { maxBlocks: 8, budgetTokens, countText }, (id) =>
      Number(id.slice(1)),
    );
    expect(result.merged).toBeGreaterThan(0);
    const total = result.blocks.reduce((sum, record) => sum + countText(summaryText(record)), 0);
    expect(total).toBeLessThanOrEqual(budgetTokens);
    const [oldest] = result.blocks as [SummarizationRecord];
    expect(oldest.span.firstTurn).toBe(0);
    expect(bodyOf(oldest).length).toBeGreaterThan(0);
    // What it keeps is the joined turns' own, the highest-scored first.
    expect(oldest.summary.facts.length).toBeGreaterThan(0);
    for (const fact of oldest.summary.facts)
      expect(Number(/^\[turn (\d+)\]/.exec(fact.text)?.[1])).toBeLessThanOrEqual(oldest.span.lastTurn);
    expect(Math.max(...oldest.summary.facts.map((fact) => fact.score ?? 0))).toBe(4);
  });

  it('a merged block is never empty when its inputs had content and the budget holds one item (property)', () => {
    const scoredBlocks = fc
      .array(
        fc.array(
          fc.record({
            text: fc.string({ minLength: 1, maxLength: 60 }),
            // Mostly unpinned, as a dialogue's are: a pinned fact is never trimmed away at the low-water room.
            pinned: fc.constantFrom(false, false, false, true),
            score: fc.option(fc.nat({ max: 9 }), { nil: undefined }),
          }),
          { maxLength: 8 },
        ),
        { minLength: 2, maxLength: 12 },
      )
      .map((factLists) =>
        factLists.map((facts, index) =>
          block(
            index,
            facts.map(({ score, ...fact }) => (score === undefined ? fact : { ...fact, score })),
          ),
        ),
      );
    fc.assert(
      fc.property(
        scoredBlocks,
        // At least a header of the widest span and one fact line of the longest text (60 characters,
        // each up to 3 UTF-16 units, so ~45 tokens with the header): the room for one item.
        fc.integer({ min: 80, max: 400 }),
        fc.integer({ min: 1, max: 10 }),
        fc.boolean(),
        (blocks, budgetTokens, maxBlocks, joinOldest) => {
          const result = consolidateSummaryBlocks(
            blocks,
            { maxBlocks, budgetTokens, countText, joinOldest },
            (id) => Number(id.slice(1)),
          );
          for (const record of result.blocks) {
            if (blocks.includes(record)) continue;
            const inputs = blocks.filter((input) =>
              record.span.messageIds.includes(input.span.messageIds[0]!),
            );
            if (inputs.every((input) => bodyOf(input).length === 0)) continue;
            expect(bodyOf(record).length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('merges nothing while the blocks are within both caps', () => {
    const blocks = [block(0, [{ text: 'a', pinned: true }]), block(1, [{ text: 'b', pinned: false }])];
    const result = consolidateSummaryBlocks(blocks, { maxBlocks: 2, budgetTokens: 10_000, countText }, (id) =>
      Number(id.slice(1)),
    );
    expect(result.merged).toBe(0);
    expect(result.blocks[0]).toBe(blocks[0]);
    expect(result.blocks[1]).toBe(blocks[1]);
    expect(parsePolicy({}).maxSummaryBlocks).toBe(8);
    expect(parsePolicy({ preset: 'seed-000' }).maxSummaryBlocks).toBe(5);
  });
});
