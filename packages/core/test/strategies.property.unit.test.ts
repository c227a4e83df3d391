import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildToolPairIndex,
  type CompactionPlan,
  closeOverToolPairs,
  type DeterministicStrategyResult,
  emptyPlan,
  foldThread,
  isTurnStart,
  normalizePlan,
  type StoredEvent,
  slidingWindow,
  type Thread,
  type ThreadMessage,
  tokenBudgetSuffix,
  turnWindow,
} from '../src/index.js';
import { approximateTokens, deepFreeze } from './support/helpers.js';
import { arbitraryCompactionPlan, arbitraryThread } from './support/testkit.js';

const NOW = '2025-06-01T00:00:00.000Z';
type StrategyName = 'sliding window' | 'turn window' | 'token budget';

interface StrategyCase {
  events: StoredEvent[];
  thread: Thread;
  basePlan: CompactionPlan;
  strategy: StrategyName;
  bound: number;
}

/** A random well-formed thread, an empty or random base plan, a strategy and its bound. */
const strategyCase: fc.Arbitrary<StrategyCase> = arbitraryThread({ maxTurns: 7 }).chain(
  ({ events, thread }) =>
    fc
      .record({
        basePlan: fc.oneof(
          fc.constant(emptyPlan(thread.id, NOW, thread.version)),
          arbitraryCompactionPlan(thread, { maxRecords: 3 }),
        ),
        strategy: fc.constantFrom<StrategyName>('sliding window', 'turn window', 'token budget'),
        events: fc.nat(40),
        turns: fc.nat(8),
        tokens: fc.nat(6000),
      })
      .map(({ basePlan, strategy, events: maxEvents, turns, tokens }) => ({
        events,
        thread,
        basePlan,
        strategy,
        bound: strategy === 'sliding window' ? maxEvents : strategy === 'turn window' ? turns : tokens,
      })),
);

function run(testCase: StrategyCase): DeterministicStrategyResult {
  const options = { countTokens: approximateTokens, basePlan: testCase.basePlan, now: NOW };
  switch (testCase.strategy) {
    case 'sliding window':
      return slidingWindow(testCase.thread, { maxEvents: testCase.bound }, options);
    case 'turn window':
      return turnWindow(testCase.thread, { maxTurns: testCase.bound }, options);
    case 'token budget':
      return tokenBudgetSuffix(testCase.thread, { maxTokens: testCase.bound }, options);
  }
}

const sum = (messages: readonly ThreadMessage[]) =>
  messages.reduce((total, message) => total + approximateTokens(message), 0);

/**
 * What the spec says a window may and may not cut, computed from the thread and the base plan
 * (not from the result): messages the base plan drops are out of view; synthetic, system and
 * pinned messages (with the other half of their tool calls) and messages the base plan already
 * summarizes or externalizes are always kept; the turn window also keeps the preamble. The rest
 * is what the window cuts, in thread order.
 */
function model(testCase: StrategyCase) {
  const { thread, basePlan, strategy } = testCase;
  const normalized = normalizePlan(basePlan);
  const action = (message: ThreadMessage) => normalized.actions.get(message.id)?.action;
  const visible = thread.messages.filter((message) => action(message) !== 'drop');
  const verbatim = visible.filter(
    (message) => message.synthetic === true || message.pinned === true || message.role === 'system',
  );
  const travelsWithVerbatim = closeOverToolPairs(
    verbatim.map((message) => message.id),
    buildToolPairIndex(thread.messages),
  );
  const preserved = new Set(
    visible
      .filter(
        (message) =>
          travelsWithVerbatim.has(message.id) ||
          action(message) === 'summarize' ||
          action(message) === 'externalize' ||
          (strategy === 'turn window' && message.turn === 0),
      )
      .map((message) => message.id),
  );
  const cuttable = visible.filter((message) => !preserved.has(message.id));
  const turnStartOf = new Map(
    thread.messages.filter((message) => isTurnStart(message)).map((message) => [message.turn, message]),
  );
  /** The kept window may start here: at a user turn start, or at the first message of a turn whose user message is kept anyway. */
  const startsATurn = (cut: number) => {
    const first = cuttable[cut];
    if (!first) return true;
    if (isTurnStart(first)) return true;
    const turnStart = turnStartOf.get(first.turn);
    return (
      first.turn > 0 &&
      cuttable[cut - 1]?.turn !== first.turn &&
      turnStart !== undefined &&
      preserved.has(turnStart.id)
    );
  };
  const withinBound = (cut: number) => {
    const suffix = cuttable.slice(cut);
    if (suffix.length === 0) return true;
    switch (strategy) {
      case 'sliding window':
        return suffix.length <= testCase.bound;
      case 'turn window':
        return new Set(suffix.map((message) => message.turn)).size <= testCase.bound;
      case 'token budget': {
        const preservedTokens = sum(visible.filter((message) => preserved.has(message.id)));
        return preservedTokens + sum(suffix) <= testCase.bound;
      }
    }
  };
  /** The largest suffix that starts a turn and stays within the bound (cutting nothing always qualifies). */
  let expectedCut = 0;
  while (
    expectedCut < cuttable.length &&
    !((expectedCut === 0 || startsATurn(expectedCut)) && withinBound(expectedCut))
  ) {
    expectedCut += 1;
  }
  return { normalized, visible, preserved, cuttable, startsATurn, withinBound, expectedCut };
}

const ids = (messages: readonly ThreadMessage[]) => messages.map((message) => message.id);

describe('deterministic strategies (properties)', () => {
  it('keep the largest contiguous suffix that starts at a turn and stays within the bound', () => {
    fc.assert(
      fc.property(strategyCase, (testCase) => {
        const result = run(testCase);
        const expected = model(testCase);
        expect(new Set(result.preservedIds)).toEqual(expected.preserved);
        // archived ++ kept is exactly the cuttable messages in order: a prefix and a suffix.
        expect([...result.archivedIds, ...result.keptIds]).toEqual(ids(expected.cuttable));
        const cut = result.archivedIds.length;
        expect(expected.withinBound(cut)).toBe(true);
        if (cut > 0 && result.keptIds.length > 0) expect(expected.startsATurn(cut)).toBe(true);
        expect(cut).toBe(expected.expectedCut);
      }),
      { numRuns: 300 },
    );
  });

  it('never archive synthetic, system or pinned messages, nor what the base plan already summarized', () => {
    fc.assert(
      fc.property(strategyCase, (testCase) => {
        const result = run(testCase);
        const normalized = normalizePlan(testCase.basePlan);
        const byId = new Map(testCase.thread.messages.map((message) => [message.id, message]));
        for (const id of result.archivedIds) {
          const message = byId.get(id)!;
          expect(message.synthetic === true || message.pinned === true || message.role === 'system').toBe(
            false,
          );
          expect(['summarize', 'externalize', 'drop']).not.toContain(normalized.actions.get(id)?.action);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never orphan a tool call or result that stays in view', () => {
    fc.assert(
      fc.property(strategyCase, (testCase) => {
        const result = run(testCase);
        const before = normalizePlan(testCase.basePlan);
        const archived = new Set(result.archivedIds);
        const inViewVerbatim = (id: string) =>
          !archived.has(id) &&
          before.actions.get(id)?.action !== 'drop' &&
          before.actions.get(id)?.action !== 'summarize' &&
          before.actions.get(id)?.action !== 'externalize';
        for (const pair of buildToolPairIndex(testCase.thread.messages).byCallId.values()) {
          if (pair.resultMessageId === undefined) continue;
          for (const [one, other] of [
            [pair.callMessageId, pair.resultMessageId],
            [pair.resultMessageId, pair.callMessageId],
          ] as const) {
            if (archived.has(one))
              expect(inViewVerbatim(other), `${one} archived, ${other} in view`).toBe(false);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('produce a plan of drop records over exactly the archived ids and report the tokens saved', () => {
    fc.assert(
      fc.property(strategyCase, (testCase) => {
        const result = run(testCase);
        const { basePlan, thread } = testCase;
        expect(result.plan.drops.slice(0, basePlan.drops.length)).toEqual(basePlan.drops);
        const added = result.plan.drops.slice(basePlan.drops.length);
        expect(added.flatMap((record) => record.span.messageIds)).toEqual(result.archivedIds);
        const indexOf = new Map(thread.messages.map((message) => [message.id, message]));
        for (const record of added) {
          const indexes = record.span.messageIds.map((id) => indexOf.get(id)!.index);
          // One record per run of adjacent messages.
          expect(indexes).toEqual(indexes.map((_, offset) => indexes[0]! + offset));
          expect(record.span.firstTurn).toBe(indexOf.get(record.span.messageIds[0]!)!.turn);
          expect(record.span.lastTurn).toBe(indexOf.get(record.span.messageIds.at(-1)!)!.turn);
        }
        expect(result.plan.summarizations).toEqual(basePlan.summarizations);
        expect(result.plan.externalizations).toEqual(basePlan.externalizations);
        expect(result.plan.clearings).toEqual(basePlan.clearings);
        expect(result.plan.threadId).toBe(thread.id);
        expect(result.plan.basedOnSeq).toBe(thread.version);
        expect(result.plan.createdAt).toBe(NOW);
        expect(result.tokensSaved).toBe(sum(result.archivedIds.map((id) => indexOf.get(id)!)));
      }),
      { numRuns: 200 },
    );
  });

  it('never modify the input events, thread or base plan, and are deterministic', () => {
    fc.assert(
      fc.property(strategyCase, (testCase) => {
        const { events, thread, basePlan } = testCase;
        const snapshot = structuredClone({ events, thread, basePlan });
        deepFreeze(testCase);
        const first = run(testCase);
        expect(run(testCase)).toEqual(first);
        expect({ events, thread, basePlan }).toEqual(snapshot);
        expect(foldThread(events)).toEqual(thread);
      }),
      { numRuns: 100 },
    );
  });
});
