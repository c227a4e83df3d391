import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompactionPlan,
  normalizePlan,
  parsePolicy,
  planCompaction,
  type StructuredSummary,
  type SummarizationRecord,
  type Summarizer,
  structuredSummarySchema,
  summaryText,
  type Thread,
} from '../src/index.js';
import { appendSummaryBlock, blockBudget, summaryRecord } from '../src/planner/rungs/summarize.js';
import { consolidateSummaryBlocks } from '../src/planner/summary-blocks.js';
import { arbitraryStructuredSummary, threadBuilder } from './support/testkit.js';

/*
 * The summary budget holds for all blocks together as the prompt carries them (ADR-0260): each
 * block's `summaryText` (its `[Context Summary - Turns a-b]` line, then the summary), counted. The
 * measure is written out here rather than taken from the code under test.
 */
const countText = (text: string) => Math.ceil(text.length / 4);
const asRendered = (blocks: readonly SummarizationRecord[]) =>
  blocks.reduce((total, block) => total + countText(summaryText(block)), 0);

const pinnedTexts = (summaries: readonly StructuredSummary[]) =>
  summaries.flatMap((summary) => summary.facts.filter((fact) => fact.pinned).map((fact) => fact.text));

/** Every pinned fact of `before` is in the text of `after` or behind its pointer, and the pointer says so. */
function expectNoPinnedFactLost(before: readonly StructuredSummary[], after: readonly SummarizationRecord[]) {
  const held = new Set(
    after.flatMap((block) =>
      [...block.summary.facts, ...(block.summary.externalizedFacts ?? [])].map((fact) => fact.text),
    ),
  );
  for (const text of pinnedTexts(before)) expect(held.has(text)).toBe(true);
  for (const block of after)
    if ((block.summary.externalizedFacts ?? []).length > 0)
      expect(summaryText(block)).toContain('held outside this summary');
}

/**
 * Within the budget, or one block with nothing left to trim: no fact in its text (every pinned fact
 * behind the one pointer line), no list item, the task clipped.
 */
function expectWithinBudgetUnlessOnlyPinnedFactsRemain(
  blocks: readonly SummarizationRecord[],
  budget: number,
) {
  if (asRendered(blocks) <= budget) return;
  expect(blocks).toHaveLength(1);
  const { summary } = blocks[0]!;
  expect(summary.facts).toEqual([]);
  for (const list of [
    summary.decisions,
    summary.openItems,
    summary.artifacts,
    summary.toolOutcomes,
    summary.filesRead,
    summary.filesModified,
    summary.currentPlan ?? [],
  ])
    expect(list).toEqual([]);
  expect((summary.currentTask ?? '').length).toBeLessThanOrEqual(80);
}

const span = (index: number) => ({
  messageIds: [`m${index}`],
  firstTurn: index * 3 + 1,
  lastTurn: index * 3 + 3,
});

const block = (index: number, summary: StructuredSummary): SummarizationRecord => ({
  kind: 'summarize',
  span: span(index),
  summary,
  summaryTokenCount: countText(summaryText({ span: span(index), summary })),
  round: index + 1,
});

const indexOf = (id: string) => Number(id.slice(1));

describe('the summary budget, all blocks as rendered (ADR-0260, ADR-0261)', () => {
  it('consolidated blocks never exceed the budget unless only pinned facts remain, and then none is lost', () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryStructuredSummary({ maxItems: 6 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 1500 }),
        fc.constantFrom('oldest' as const, 'newest' as const),
        (summaries, maxBlocks, budgetTokens, countCapMerges) => {
          const blocks = summaries.map((summary, index) => block(index, summary));
          const { blocks: out } = consolidateSummaryBlocks(
            blocks,
            { maxBlocks, budgetTokens, countText, countCapMerges },
            indexOf,
          );
          expect(out.length).toBeLessThanOrEqual(maxBlocks);
          expectWithinBudgetUnlessOnlyPinnedFactsRemain(out, budgetTokens);
          expectNoPinnedFactLost(summaries, out);
          // Each block's recorded count is what it costs as rendered.
          for (const record of out) expect(record.summaryTokenCount).toBe(countText(summaryText(record)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a new block appended to blocks within the budget leaves them all within it (the planner’s path)', () => {
    const policy = parsePolicy({});
    fc.assert(
      fc.property(
        fc.array(arbitraryStructuredSummary({ maxItems: 6 }), { minLength: 1, maxLength: 9 }),
        fc.integer({ min: 40, max: 1500 }),
        (summaries, budget) => {
          // Build the blocks round by round as the summarize rung does: each trimmed to its block
          // budget, then appended and consolidated.
          let blocks: SummarizationRecord[] = [];
          const messages = summaries.map((_, index) => ({ id: `m${index}`, index, turn: index * 3 + 1 }));
          for (const [index, summary] of summaries.entries()) {
            const record = summaryRecord({
              summary,
              covered: [messages[index]!] as never,
              result: { summarizerId: 's', modelId: 's', costUsd: 0 },
              round: index + 1,
              budget: blockBudget(budget, blocks, policy, countText),
              countText,
            });
            const { added, removed } = appendSummaryBlock(blocks, record, policy, {
              budget,
              countText,
              messages: messages as never,
            });
            blocks = [...blocks.filter((candidate) => !removed.has(candidate)), ...added].sort(
              (left, right) => indexOf(left.span.messageIds[0]!) - indexOf(right.span.messageIds[0]!),
            );
            expectWithinBudgetUnlessOnlyPinnedFactsRemain(blocks, budget);
            expectNoPinnedFactLost(summaries.slice(0, index + 1), blocks);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

/*
 * The needles overrun (pi/session at 8k and 16k, session 4): a coding thread summarized a few tool
 * calls at a time, so eight small blocks (tool outcomes only, no pinned facts) sat in the prompt.
 * Their summaries alone fit the budget, but each block's header line did not count, and eight of them
 * put the summary over its budget in the prompt.
 */
describe('regression: many small blocks of a coding thread stay within the summary budget', () => {
  const budget = 300;
  const policy = {
    keepRecentTurns: 1,
    keepRecentTokens: 0,
    clearAtLeastTokens: 0,
    keepUserMessages: false,
    summaryBudgetTokens: budget,
    strategies: { externalize: false, summarize: true, clear: false, drop: false },
  };

  /** Each span summarized as the tool calls it covered: about 45 tokens a block, 8 of them near the budget. */
  const toolOutcomeSummarizer: Summarizer = {
    id: 's',
    modelId: 's',
    promptVersion: '1',
    async summarize(request) {
      const first = request.span.messageIds[0]!;
      return {
        summary: structuredSummarySchema.parse({
          toolOutcomes: [
            { toolName: 'bash', outcome: 'success', keyFields: {}, toolCallId: `${first}-a` },
            {
              toolName: 'read_file',
              outcome: 'failure',
              keyFields: {},
              errorMessage: `ENOENT: no such file or directory, open 'packages/${first}/test/fixtures/coding-session/expected-output.log'`,
            },
          ],
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

  function codingThread(turns: number): Thread {
    const builder = threadBuilder('t1', { policy: policy as never });
    for (let turn = 1; turn <= turns; turn += 1) {
      builder.user(`step ${turn}: run the next check`);
      builder.assistant(`ran step ${turn} ${'output line '.repeat(30)}`);
    }
    return builder.build().thread;
  }

  const measureFor = (thread: Thread) => (plan: CompactionPlan) => {
    const normalized = normalizePlan(plan);
    const seen = new Set<unknown>();
    let total = 0;
    for (const message of thread.messages) {
      const planned = normalized.actions.get(message.id);
      if (!planned)
        total +=
          4 + message.content.reduce((sum, part) => sum + countText('text' in part ? part.text : ''), 0);
      else if (planned.record.kind === 'summarize' && !seen.has(planned.record)) {
        seen.add(planned.record);
        total += 4 + countText(summaryText(planned.record));
      }
    }
    return total;
  };

  it('holds every round, header lines counted', async () => {
    let plan: CompactionPlan | null = null;
    let most = 0;
    for (let round = 1; round <= 14; round += 1) {
      const thread = codingThread(2 + round * 2);
      const outcome = await planCompaction({
        thread,
        currentPlan: plan,
        targetTokens: 60,
        measure: measureFor(thread),
        countMessage: (message) =>
          4 + message.content.reduce((sum, part) => sum + countText('text' in part ? part.text : ''), 0),
        countText,
        summarizer: toolOutcomeSummarizer,
        now: '2025-01-02T00:00:00.000Z',
      });
      plan = outcome.plan;
      most = Math.max(most, plan.summarizations.length);
      expect(asRendered(plan.summarizations)).toBeLessThanOrEqual(budget);
    }
    // The fixture does what the needles run did: several small blocks side by side.
    expect(most).toBeGreaterThanOrEqual(6);
  });
});
