import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CompactionTrigger,
  compactionCalledFor,
  FRAGMENTATION_MIN_SLACK_BYTES,
  FRAGMENTATION_MIN_SLACK_RATIO,
  type HeapCompactionEvent,
  HeapCompactionSchedule,
  type OldSpaceReading,
} from '../src/index.js';

const MiB = 1024 * 1024;
const INTERVAL_MS = 60_000;

/** The schedule with the flag and the old space as plain values the test sets and reads. */
function scheduleUnderTest(trigger: CompactionTrigger = { kind: 'interval', intervalMs: INTERVAL_MS }) {
  const state = {
    flag: false,
    flagChanges: [] as boolean[],
    oldSpace: { committedBytes: 0, usedBytes: 0 } as OldSpaceReading,
  };
  const schedule = new HeapCompactionSchedule({
    trigger,
    setCompactOnEveryFullGc: (on) => {
      state.flag = on;
      state.flagChanges.push(on);
    },
    readOldSpace: () => state.oldSpace,
  });
  return { schedule, state };
}

const fragmented: OldSpaceReading = { committedBytes: 400 * MiB, usedBytes: 100 * MiB };
const compacted: OldSpaceReading = { committedBytes: 101 * MiB, usedBytes: 100 * MiB };

describe('HeapCompactionSchedule (when-fragmented, ADR-0395)', () => {
  it('turns the flag on after a full collection that leaves the old space fragmented, off after the next one', () => {
    const { schedule, state } = scheduleUnderTest();
    state.oldSpace = fragmented;
    expect(schedule.fullCollectionObserved({ startTime: 1_000, duration: 80 }, 1_090)).toEqual({
      kind: 'armed',
      slackBytes: 300 * MiB,
      usedBytes: 100 * MiB,
      committedBytes: 400 * MiB,
    });
    expect(state.flag).toBe(true);
    expect(schedule.armed).toBe(true);
    state.oldSpace = compacted;
    expect(schedule.fullCollectionObserved({ startTime: 5_000, duration: 900 }, 5_910)).toEqual({
      kind: 'compacted',
      pauseMs: 900,
      slackBytesBefore: 300 * MiB,
      slackBytesAfter: 1 * MiB,
    });
    expect(state.flag).toBe(false);
    expect(schedule.armed).toBe(false);
    expect(schedule.compactionCount).toBe(1);
    expect(state.flagChanges).toEqual([true, false]);
  });

  it('does not count a collection that started before the flag was set (entries arrive in batches)', () => {
    const { schedule, state } = scheduleUnderTest();
    state.oldSpace = fragmented;
    schedule.fullCollectionObserved({ startTime: 1_000, duration: 80 }, 1_500);
    // Delivered in the same batch, but it ran before the observer armed the flag at 1,500.
    expect(schedule.fullCollectionObserved({ startTime: 1_200, duration: 90 }, 1_500)).toBeUndefined();
    expect(state.flag).toBe(true);
    expect(schedule.fullCollectionObserved({ startTime: 1_600, duration: 700 }, 2_400)?.kind).toBe(
      'compacted',
    );
    expect(state.flag).toBe(false);
  });

  it('compacts at most once per interval, however fragmented the old space stays', () => {
    const { schedule, state } = scheduleUnderTest();
    state.oldSpace = fragmented;
    schedule.fullCollectionObserved({ startTime: 0, duration: 50 }, 100);
    schedule.fullCollectionObserved({ startTime: 200, duration: 800 }, 1_000);
    expect(schedule.compactionCount).toBe(1);
    for (let now = 2_000; now < 1_000 + INTERVAL_MS; now += 5_000) {
      expect(schedule.fullCollectionObserved({ startTime: now - 100, duration: 50 }, now)).toBeUndefined();
      expect(state.flag).toBe(false);
    }
    // One interval after the compaction ended, the next fragmented reading arms again.
    expect(
      schedule.fullCollectionObserved({ startTime: 60_900, duration: 50 }, 1_000 + INTERVAL_MS)?.kind,
    ).toBe('armed');
  });

  it.each([
    ['too few unused bytes, however large a share', { committedBytes: 20 * MiB, usedBytes: 5 * MiB }],
    ['too small a share of what is used', { committedBytes: 1_200 * MiB, usedBytes: 1_000 * MiB }],
    ['nothing unused', { committedBytes: 100 * MiB, usedBytes: 100 * MiB }],
  ])('leaves the flag off when the old space is not fragmented: %s', (_, oldSpace) => {
    const { schedule, state } = scheduleUnderTest();
    state.oldSpace = oldSpace;
    expect(schedule.fullCollectionObserved({ startTime: 0, duration: 50 }, 100)).toBeUndefined();
    expect(state.flagChanges).toEqual([]);
  });

  it('arms at exactly the threshold', () => {
    const { schedule, state } = scheduleUnderTest();
    state.oldSpace = {
      committedBytes: 4 * FRAGMENTATION_MIN_SLACK_BYTES,
      usedBytes: 3 * FRAGMENTATION_MIN_SLACK_BYTES,
    };
    expect(schedule.fullCollectionObserved({ startTime: 0, duration: 50 }, 100)?.kind).toBe('armed');
  });

  it('keeps its invariants over any sequence of collections and readings', () => {
    const reading = fc.record({
      committedBytes: fc.integer({ min: 0, max: 2_000 * MiB }),
      usedBytes: fc.integer({ min: 0, max: 2_000 * MiB }),
    });
    const step = fc.record({
      gap: fc.integer({ min: 0, max: 40_000 }),
      duration: fc.integer({ min: 0, max: 3_000 }),
      reading,
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 120_000 }),
        fc.array(step, { maxLength: 60 }),
        (intervalMs, steps) => {
          const { schedule, state } = scheduleUnderTest({ kind: 'interval', intervalMs });
          const events: Array<{ event: HeapCompactionEvent; now: number }> = [];
          let now = 0;
          for (const { gap, duration, reading: oldSpace } of steps) {
            const startTime = now + gap;
            now = startTime + duration;
            state.oldSpace = oldSpace;
            const wasArmed = schedule.armed;
            const event = schedule.fullCollectionObserved({ startTime, duration }, now);
            if (event) events.push({ event, now });
            // Armed, the next collection always compacts and turns the flag off.
            if (wasArmed) expect(event?.kind).toBe('compacted');
            expect(state.flag).toBe(schedule.armed);
          }
          // Flag changes alternate on, off, on, ... and each compaction follows an arming.
          expect(state.flagChanges).toEqual(state.flagChanges.map((_, index) => index % 2 === 0));
          expect(events.map(({ event }) => event.kind)).toEqual(
            events.map((_, index) => (index % 2 === 0 ? 'armed' : 'compacted')),
          );
          // An arming comes at least one interval after the compaction before it.
          const compactedAt = events
            .filter(({ event }) => event.kind === 'compacted')
            .map((entry) => entry.now);
          const armedAt = events.filter(({ event }) => event.kind === 'armed').map((entry) => entry.now);
          compactedAt.forEach((at, index) => {
            const nextArming = armedAt[index + 1];
            if (nextArming !== undefined) expect(nextArming - at).toBeGreaterThanOrEqual(intervalMs);
          });
          expect(schedule.compactionCount).toBe(compactedAt.length);
        },
      ),
    );
  });
});

describe('compactionCalledFor under a budget (when-over-bounds, ADR-0425)', () => {
  const budget = (budgetBytes: number | undefined): CompactionTrigger => ({ kind: 'budget', budgetBytes });
  const BUDGET = 300 * MiB;

  it.each([
    [
      'no budget measured yet, however fragmented',
      budget(undefined),
      { committedBytes: 2_000 * MiB, usedBytes: 100 * MiB },
    ],
    [
      'within the budget, however fragmented',
      budget(BUDGET),
      { committedBytes: BUDGET, usedBytes: 100 * MiB },
    ],
    [
      'over it by less than a compaction would be worth',
      budget(BUDGET),
      { committedBytes: BUDGET + MiB, usedBytes: BUDGET - 10 * MiB },
    ],
    [
      'over it, the live bytes themselves near it, and not fragmented',
      budget(BUDGET),
      { committedBytes: BUDGET + 40 * MiB, usedBytes: BUDGET - 10 * MiB },
    ],
  ])('is not called for: %s', (_, trigger, oldSpace) => {
    expect(compactionCalledFor(trigger, oldSpace, Number.POSITIVE_INFINITY)).toBe(false);
  });

  it.each([
    // 20 MiB unused of 290 MiB used: not fragmented by when-fragmented's rule, but over the budget.
    [
      'over the budget, below the fragmentation share',
      { committedBytes: BUDGET + 4 * MiB, usedBytes: BUDGET - 16 * MiB },
    ],
    ['over the budget and fragmented', { committedBytes: 3 * BUDGET, usedBytes: 2 * BUDGET }],
  ])('is called for, right after the last compaction too: %s', (_, oldSpace) => {
    expect(compactionCalledFor(budget(BUDGET), oldSpace, 0)).toBe(true);
  });

  it('is never called for within the budget, and always when over it with the live bytes a compaction under it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_000 * MiB }),
        fc.integer({ min: 0, max: 2_000 * MiB }),
        fc.integer({ min: 0, max: 2_000 * MiB }),
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        (budgetBytes, committedBytes, usedBytes, since) => {
          const oldSpace = { committedBytes, usedBytes };
          const called = compactionCalledFor(budget(budgetBytes), oldSpace, since);
          if (committedBytes <= budgetBytes) expect(called).toBe(false);
          else if (usedBytes + FRAGMENTATION_MIN_SLACK_BYTES <= budgetBytes) expect(called).toBe(true);
          if (called) {
            // A compaction always gives back at least the minimum; past the budget by its live bytes, a fragmented share.
            expect(committedBytes - usedBytes).toBeGreaterThanOrEqual(FRAGMENTATION_MIN_SLACK_BYTES);
            if (usedBytes + FRAGMENTATION_MIN_SLACK_BYTES > budgetBytes)
              expect(committedBytes - usedBytes).toBeGreaterThanOrEqual(
                usedBytes * FRAGMENTATION_MIN_SLACK_RATIO,
              );
          }
        },
      ),
    );
  });

  it('the schedule arms nothing until the budget is set, then at the first collection over it', () => {
    const { schedule, state } = scheduleUnderTest(budget(undefined));
    state.oldSpace = fragmented;
    expect(schedule.fullCollectionObserved({ startTime: 0, duration: 50 }, 100)).toBeUndefined();
    schedule.setBudget(350 * MiB);
    expect(schedule.fullCollectionObserved({ startTime: 200, duration: 50 }, 300)?.kind).toBe('armed');
    state.oldSpace = compacted;
    expect(schedule.fullCollectionObserved({ startTime: 400, duration: 900 }, 1_300)?.kind).toBe('compacted');
    // No interval: over the budget again at once, it arms again.
    state.oldSpace = fragmented;
    expect(schedule.fullCollectionObserved({ startTime: 1_400, duration: 50 }, 1_500)?.kind).toBe('armed');
    expect(state.flagChanges).toEqual([true, false, true]);
  });

  it('an interval trigger ignores a budget', () => {
    const { schedule, state } = scheduleUnderTest();
    schedule.setBudget(0);
    state.oldSpace = { committedBytes: 120 * MiB, usedBytes: 100 * MiB };
    expect(schedule.fullCollectionObserved({ startTime: 0, duration: 50 }, 100)).toBeUndefined();
  });

  it('arms at every collection that ends over the budget while the live bytes leave room for a compaction', () => {
    // A heap whose live bytes stay a compaction's worth under the budget and whose pages grow between
    // full collections: every collection that ends over the budget arms, and the next one compacts.
    fc.assert(
      fc.property(
        fc.integer({ min: 64 * MiB, max: 1_000 * MiB }),
        fc.array(
          fc.record({
            live: fc.double({ min: 0, max: 1, noNaN: true }),
            growth: fc.integer({ min: 0, max: 300 * MiB }),
          }),
          {
            maxLength: 60,
          },
        ),
        (budgetBytes, steps) => {
          const { schedule, state } = scheduleUnderTest(budget(budgetBytes));
          let committed = 0;
          let now = 0;
          for (const { live, growth } of steps) {
            const usedBytes = Math.floor(live * (budgetBytes - FRAGMENTATION_MIN_SLACK_BYTES));
            const compacts = state.flag;
            committed = compacts ? usedBytes : Math.max(usedBytes, committed + growth);
            state.oldSpace = { committedBytes: committed, usedBytes };
            now += 1_000;
            schedule.fullCollectionObserved({ startTime: now, duration: 10 }, now + 10);
            // Over the budget after a collection means the next one compacts.
            if (committed > budgetBytes) expect(state.flag || compacts).toBe(true);
          }
        },
      ),
    );
  });
});
