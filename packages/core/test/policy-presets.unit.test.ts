import { describe, expect, it } from 'vitest';
import {
  availableForMessages,
  buildTrigger,
  compactionPolicySchema,
  POLICY_PRESET_NAMES,
  parsePolicy,
  remainderThreshold,
  SEED_003_THRESHOLD_TOKENS,
  tokenBudget,
} from '../src/index.js';

describe('policy presets (ADR-0106)', () => {
  it('seed-000: compact at 80,000 tokens, keep the latest summary and the last 10 messages', () => {
    const policy = parsePolicy({ preset: 'seed-000' });
    expect(policy.preset).toBe('seed-000');
    expect(policy.trigger).toEqual({ kind: 'tokens', threshold: 80_000 });
    expect(policy.mode).toEqual({ kind: 'recursive-summarization', maxEventsToKeep: 10, overlapSize: 0 });
  });

  it('pi: the target is window − reserveTokens 16,384, keep 20,000 recent tokens, summary within 0.8 × reserve', () => {
    const policy = parsePolicy({ preset: 'pi' });
    expect(policy.trigger).toEqual({ kind: 'target' });
    expect(policy.keepRecentTokens).toBe(20_000);
    expect(policy.summaryBudgetTokens).toBe(13_107);
    expect(policy.strategies).toEqual({
      abridge: false,
      externalize: false,
      summarize: true,
      clear: false,
      drop: false,
    });
    const target = availableForMessages(
      tokenBudget({
        maxInputTokens: 200_000,
        softThresholdPercent: policy.softThresholdPercent,
        outputReserveTokens: policy.outputReserveTokens,
        safetyBufferTokens: policy.safetyBufferTokens,
        rehydrationReserveTokens: policy.rehydrationReserveTokens,
      }),
    );
    expect(target).toBe(200_000 - 16_384);
  });

  it('seed-003: (128,000 − 2,000 − 4,000 − 5,000) × 0.80 = 93,600, keep 10 messages', () => {
    expect(SEED_003_THRESHOLD_TOKENS).toBe(93_600);
    const policy = parsePolicy({ preset: 'seed-003' });
    expect(policy.trigger).toEqual({
      kind: 'tokens',
      remainder: { systemReserve: 2_000, outputReserve: 4_000, safetyBuffer: 5_000, thresholdPercent: 0.8 },
    });
    expect(policy.mode).toEqual({ kind: 'recursive-summarization', maxEventsToKeep: 10, overlapSize: 0 });
  });

  it('seed-003: the threshold is recomputed for other windows by the same arithmetic (ADR-0184)', () => {
    const { trigger } = parsePolicy({ preset: 'seed-003' });
    const at = (contextWindow: number, messageTokens: number) =>
      buildTrigger(trigger).evaluate({ messages: [], messageTokens, contextWindow });
    expect(at(128_000, 93_600)).toMatchObject({ fire: true, trigger: 'tokens>=93600' });
    expect(at(128_000, 93_599).fire).toBe(false);
    // (200,000 − 11,000) × 0.8 = 151,200; (32,000 − 11,000) × 0.8 = 16,800.
    expect(at(200_000, 151_199)).toMatchObject({ fire: false, trigger: 'tokens>=151200' });
    expect(at(200_000, 151_200).fire).toBe(true);
    expect(at(32_000, 16_800)).toMatchObject({ fire: true, trigger: 'tokens>=16800' });
    const remainder = {
      systemReserve: 2_000,
      outputReserve: 4_000,
      safetyBuffer: 5_000,
      thresholdPercent: 0.8,
    };
    for (const window of [16_000, 64_000, 1_000_000]) {
      expect(remainderThreshold(remainder, window)).toBe(Math.floor((window - 11_000) * 0.8));
    }
  });

  it('seed-004: TurnCountTrigger(20) with a sliding window of 10, or recursive summarization with overlapSize 2', () => {
    expect(parsePolicy({ preset: 'seed-004-sliding' })).toMatchObject({
      trigger: { kind: 'turns', maxTurns: 20 },
      mode: { kind: 'sliding-window', maxEvents: 10 },
    });
    expect(parsePolicy({ preset: 'seed-004-recursive' })).toMatchObject({
      trigger: { kind: 'turns', maxTurns: 20 },
      mode: { kind: 'recursive-summarization', maxEventsToKeep: 10, overlapSize: 2 },
    });
  });

  it('explicit fields override the preset; undefined ones do not', () => {
    const policy = compactionPolicySchema.parse({
      preset: 'seed-004-sliding',
      mode: { kind: 'sliding-window', maxEvents: 4 },
      trigger: undefined,
    });
    expect(policy.mode).toEqual({ kind: 'sliding-window', maxEvents: 4 });
    expect(policy.trigger).toEqual({ kind: 'turns', maxTurns: 20 });
  });

  it('every preset is a valid policy, and expanding twice changes nothing', () => {
    for (const preset of POLICY_PRESET_NAMES) {
      const once = parsePolicy({ preset });
      expect(parsePolicy(once)).toEqual(once);
    }
  });

  it('rejects an unknown preset name', () => {
    expect(() => parsePolicy({ preset: 'seed-999' })).toThrow();
  });
});
