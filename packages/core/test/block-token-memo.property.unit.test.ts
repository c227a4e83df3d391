/**
 * A summary block's rendered tokens are counted once per record (ADR-0381): the count its maker took
 * (`trimBlockCounted`, `summaryRecord`, merges) is the count of the block's `summaryText`, and what
 * `summaryBlockTokens` answers from memory equals counting every block's text again, whatever counter
 * asks. The counter here counts every call, so the test also sees that a repeated text is not recounted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SummarizationRecord } from '../src/plan/records.js';
import { summaryText } from '../src/plan/stand-in-texts.js';
import { summaryRecord } from '../src/planner/rungs/summarize.js';
import {
  mergeSummaryBlocks,
  summaryBlockTokens,
  trimBlockCounted,
  trimBlockToBudget,
} from '../src/planner/summary-blocks.js';
import type { ThreadMessage } from '../src/thread/thread.js';
import { arbitraryStructuredSummary } from './support/testkit.js';

function countingCounter(divisor: number) {
  const calls: string[] = [];
  const countText = (text: string) => {
    calls.push(text);
    return Math.ceil(text.length / divisor);
  };
  return { countText, calls };
}

const messages = (first: number, count: number): ThreadMessage[] =>
  Array.from({ length: count }, (_, at) => ({
    id: `m${first + at}`,
    role: at % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `message ${first + at}` }],
    seq: first + at + 1,
    index: first + at,
    turn: 1 + Math.floor((first + at) / 2),
  }));

describe('summary block tokens counted once per record (ADR-0381)', () => {
  it('trimBlockCounted returns trimBlockToBudget and the count of the trimmed block text', () => {
    fc.assert(
      fc.property(
        arbitraryStructuredSummary(),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 1, max: 40 }),
        (summary, budget, firstTurn) => {
          const span = { firstTurn, lastTurn: firstTurn + 3 };
          const counted = countingCounter(4);
          const { summary: trimmed, tokens } = trimBlockCounted(summary, span, budget, counted.countText);
          const direct = trimBlockToBudget(summary, span, budget, countingCounter(4).countText);
          expect(trimmed).toEqual(direct);
          expect(tokens).toBe(
            Math.ceil(summaryText({ span: { messageIds: [], ...span }, summary: trimmed }).length / 4),
          );
          // Each distinct text once.
          expect(new Set(counted.calls).size).toBe(counted.calls.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('summaryBlockTokens of made and merged blocks equals counting their texts, for any counter', () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryStructuredSummary(), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 50, max: 4000 }),
        (summaries, budget) => {
          const maker = countingCounter(4);
          const blocks: SummarizationRecord[] = summaries.map((summary, at) =>
            summaryRecord({
              summary,
              covered: messages(at * 4, 4),
              result: { summarizerId: 'test', modelId: 'test', costUsd: 0 },
              round: at + 1,
              budget,
              countText: maker.countText,
            }),
          );
          const position = (id: string) => Number(id.slice(1));
          if (blocks.length >= 2)
            blocks.push(mergeSummaryBlocks(blocks[0]!, blocks[1]!, position, budget, maker.countText));
          const direct = (divisor: number) =>
            blocks.reduce((total, block) => total + Math.ceil(summaryText(block).length / divisor), 0);
          const before = maker.calls.length;
          expect(summaryBlockTokens(blocks, maker.countText)).toBe(direct(4));
          // The maker's counts are remembered: reading them counts nothing again.
          expect(maker.calls.length).toBe(before);
          for (const block of blocks)
            expect(block.summaryTokenCount).toBe(Math.ceil(summaryText(block).length / 4));
          // Another counter is not answered with this one's counts.
          const other = countingCounter(3);
          expect(summaryBlockTokens(blocks, other.countText)).toBe(direct(3));
          expect(other.calls.length).toBe(blocks.length);
          expect(summaryBlockTokens(blocks, other.countText)).toBe(direct(3));
          expect(other.calls.length).toBe(blocks.length);
        },
      ),
      { numRuns: 150 },
    );
  });
});
