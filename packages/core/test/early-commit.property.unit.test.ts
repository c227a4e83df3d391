import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { earlyCommitPays, stableSummaryTokens } from '../src/index.js';

const commitArb = fc
  .record({
    low: fc.integer({ min: 0, max: 100_000 }),
    span: fc.integer({ min: 1, max: 100_000 }),
    grown: fc.double({ min: 0, max: 1, noNaN: true }),
    commitTokens: fc.integer({ min: 0, max: 100_000 }),
    breakTokens: fc.integer({ min: 0, max: 200_000 }),
  })
  .map(({ low, span, grown, commitTokens, breakTokens }) => ({
    low,
    highWater: low + span,
    messageTokens: low + Math.round(span * grown),
    commitTokens,
    breakTokens,
  }));

describe('an early commit pays for the break it saves (ADR-0430)', () => {
  it('a larger break never turns a paying commit into one that does not pay', () => {
    fc.assert(
      fc.property(commitArb, fc.integer({ min: 0, max: 100_000 }), (commit, more) => {
        if (earlyCommitPays(commit))
          expect(earlyCommitPays({ ...commit, breakTokens: commit.breakTokens + more })).toBe(true);
      }),
    );
  });

  it('the nearer the high-water mark, the more a commit pays; at it any break pays', () => {
    fc.assert(
      fc.property(commitArb, (commit) => {
        if (earlyCommitPays(commit))
          expect(earlyCommitPays({ ...commit, messageTokens: commit.highWater })).toBe(true);
        expect(earlyCommitPays({ ...commit, messageTokens: commit.highWater, breakTokens: 0 })).toBe(true);
      }),
    );
  });

  it('at the low-water mark a whole commit is spent early: it pays only for a break at least as large', () => {
    fc.assert(
      fc.property(commitArb, (commit) => {
        const atLow = { ...commit, messageTokens: commit.low };
        expect(earlyCommitPays(atLow)).toBe(commit.breakTokens >= commit.commitTokens);
      }),
    );
  });

  it("the stable prefix is the plan's summary blocks", () => {
    expect(stableSummaryTokens(null)).toBe(0);
    expect(
      stableSummaryTokens({
        summarizations: [{ summaryTokenCount: 120 }, { summaryTokenCount: 30 }] as never,
      }),
    ).toBe(150);
  });
});
