import { describe, expect, it } from 'vitest';
import {
  availableForMessages,
  availableForRehydration,
  budgetFromRemainderThreshold,
  budgetFromReserveTokens,
  CompactorError,
  hardLimitForMessages,
  parsePolicy,
  tokenBudget,
  tokenBudgetSchema,
} from '../src/index.js';

describe('TokenBudget', () => {
  it("computes ADR-0009's window rule: floor(window × soft) minus overheads and the rehydration reserve", () => {
    // The production design's defaults (ADR-0009): 100,000 × 0.85 = 85,000, minus 500 safety and 2,000 rehydration.
    const defaults = tokenBudget({ maxInputTokens: 100_000 });
    expect(defaults).toMatchObject({
      softThresholdPercent: 0.85,
      thresholdAppliesTo: 'window',
      safetyBufferTokens: 500,
      rehydrationReserveTokens: 2000,
      outputReserveTokens: 0,
    });
    expect(availableForMessages(defaults)).toBe(82_500);
    const loaded = tokenBudget({
      maxInputTokens: 100_000,
      systemPromptTokens: 3_000,
      toolSchemaTokens: 1_500,
      formattingOverheadTokens: 200,
      outputReserveTokens: 4_000,
    });
    expect(availableForMessages(loaded)).toBe(85_000 - 3_000 - 1_500 - 200 - 500 - 4_000 - 2_000);
    expect(availableForRehydration(loaded)).toBe(2_000);
  });

  it("gives the remainder rule's threshold for the AI SDK layer's defaults (ADR-0009): (128,000 − 2,000 − 4,000 − 5,000) × 0.80 = 93,600", () => {
    const budget = budgetFromRemainderThreshold({
      modelContextLimit: 128_000,
      systemReserve: 2_000,
      outputReserve: 4_000,
      safetyBuffer: 5_000,
      thresholdPercent: 0.8,
    });
    expect(availableForMessages(budget)).toBe(93_600);
    expect(budget.thresholdAppliesTo).toBe('remainder');
    // The remainder rule floors after multiplying: (200,000 − 1,001) × 0.5 = 99,499.5 → 99,499.
    expect(
      availableForMessages(
        budgetFromRemainderThreshold({
          modelContextLimit: 200_000,
          systemReserve: 1_001,
          outputReserve: 0,
          safetyBuffer: 0,
          thresholdPercent: 0.5,
        }),
      ),
    ).toBe(99_499);
  });

  it("takes pi's reserveTokens and keepRecentTokens (ADR-0009): compact above contextWindow − reserveTokens", () => {
    const { budget, keepRecentTokens } = budgetFromReserveTokens({
      contextWindow: 200_000,
      reserveTokens: 16_384,
      keepRecentTokens: 20_000,
    });
    expect(availableForMessages(budget)).toBe(200_000 - 16_384);
    expect(hardLimitForMessages(budget)).toBe(200_000 - 16_384);
    expect(keepRecentTokens).toBe(20_000);
  });

  it("uses pi's defaults in the compaction policy: reserveTokens 16,384, keepRecentTokens 20,000 (ADR-0009)", () => {
    const policy = parsePolicy({});
    expect(policy.outputReserveTokens).toBe(16_384);
    expect(policy.keepRecentTokens).toBe(20_000);
  });

  it('rejects reserveTokens that leave no room', () => {
    let thrown: unknown;
    try {
      budgetFromReserveTokens({ contextWindow: 8_000, reserveTokens: 8_000, keepRecentTokens: 0 });
    } catch (error) {
      thrown = error;
    }
    expect(CompactorError.hasCode(thrown, 'validation')).toBe(true);
    expect(() =>
      budgetFromReserveTokens({ contextWindow: 8_000, reserveTokens: 7_999, keepRecentTokens: 0 }),
    ).not.toThrow();
  });

  it('has a hard limit that ignores the soft threshold but not the overheads', () => {
    const budget = tokenBudget({
      maxInputTokens: 10_000,
      softThresholdPercent: 0.5,
      systemPromptTokens: 1_000,
    });
    expect(hardLimitForMessages(budget)).toBe(10_000 - 1_000 - 500 - 2_000);
    expect(availableForMessages(budget)).toBe(5_000 - 1_000 - 500 - 2_000);
  });

  it('never reports a negative amount', () => {
    const starved = tokenBudget({ maxInputTokens: 1_000, systemPromptTokens: 5_000 });
    expect(availableForMessages(starved)).toBe(0);
    expect(hardLimitForMessages(starved)).toBe(0);
    expect(availableForMessages({ ...starved, thresholdAppliesTo: 'remainder' })).toBe(0);
  });

  it('rejects impossible budgets', () => {
    for (const input of [
      { maxInputTokens: 0 },
      { maxInputTokens: 1_000, softThresholdPercent: 0 },
      { maxInputTokens: 1_000, softThresholdPercent: 1.2 },
      { maxInputTokens: 1_000, systemPromptTokens: -1 },
      { maxInputTokens: 1_000.5 },
    ]) {
      expect(tokenBudgetSchema.safeParse(input).success, JSON.stringify(input)).toBe(false);
    }
  });
});
