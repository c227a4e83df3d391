import { CompactorError } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../src/index.js';
import {
  calibrateRatio,
  emptyMeasurement,
  errorStatistics,
  estimateTokens,
  fitEstimateCalibration,
  uniformCalibration,
} from '../src/index.js';

/** A deterministic pseudo-random sequence, so synthetic data is the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('calibrateRatio', () => {
  it('recovers a known ratio from noiseless samples, with no safety factor needed', () => {
    const next = random(1);
    const samples = Array.from({ length: 200 }, () => {
      const exactTokens = 10 + Math.floor(next() * 5_000);
      return { exactTokens, actualTokens: 1.27 * exactTokens };
    });
    const result = calibrateRatio(samples);
    expect(result.ratio).toBeCloseTo(1.27, 6);
    expect(result.overheadPerItem).toBe(0);
    expect(result.safetyFactor).toBeCloseTo(1, 6);
    expect(result.fitted.meanAbsolutePercentError).toBeLessThan(1e-6);
  });

  it('recovers a ratio and a per-item overhead', () => {
    const next = random(2);
    const samples = Array.from({ length: 300 }, () => {
      const exactTokens = 20 + Math.floor(next() * 3_000);
      const items = 1 + Math.floor(next() * 6);
      return { exactTokens, items, actualTokens: 1.15 * exactTokens + 9 * items };
    });
    const result = calibrateRatio(samples);
    expect(result.ratio).toBeCloseTo(1.15, 6);
    expect(result.overheadPerItem).toBeCloseTo(9, 4);
  });

  it('estimates the ratio of noisy samples within a percent', () => {
    const next = random(3);
    const samples = Array.from({ length: 2_000 }, () => {
      const exactTokens = 50 + Math.floor(next() * 2_000);
      return { exactTokens, actualTokens: Math.round(1.2 * exactTokens * (0.9 + 0.2 * next())) };
    });
    expect(calibrateRatio(samples).ratio).toBeGreaterThan(1.2 * 0.99);
    expect(calibrateRatio(samples).ratio).toBeLessThan(1.2 * 1.01);
  });

  it('over-counts at least the requested share of samples', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 1, max: 10_000 }), fc.double({ min: 0.5, max: 2, noNaN: true })),
          { minLength: 5, maxLength: 200 },
        ),
        fc.double({ min: 0.5, max: 1, noNaN: true }),
        (pairs, share) => {
          const samples = pairs.map(([exactTokens, factor]) => ({
            exactTokens,
            actualTokens: Math.max(1, exactTokens * factor),
          }));
          const result = calibrateRatio(samples, { overCountShare: share });
          const overCounted = samples.filter(
            (sample) =>
              Math.ceil(result.safetyFactor * result.ratio * sample.exactTokens) >= sample.actualTokens,
          ).length;
          return result.safetyFactor >= 1 && overCounted >= Math.ceil(share * samples.length) - 1e-9;
        },
      ),
      { numRuns: 100 },
    );
  });

  it('rejects empty or invalid samples with a validation error', () => {
    const invalid = [
      [],
      [{ exactTokens: 0, actualTokens: 5 }],
      [{ exactTokens: 5, actualTokens: Number.NaN }],
    ];
    expect.assertions(invalid.length + 1);
    for (const samples of invalid) {
      try {
        calibrateRatio(samples);
      } catch (error) {
        expect(CompactorError.hasCode(error, 'validation')).toBe(true);
      }
    }
    try {
      calibrateRatio([{ exactTokens: 1, actualTokens: 1 }], { overCountShare: 1.5 });
    } catch (error) {
      expect(CompactorError.hasCode(error, 'validation')).toBe(true);
    }
  });
});

function measurement(
  text: number,
  toolCall: number,
  toolResult: number,
  messages: number,
  textBlocks: number,
  toolBlocks: number,
): Measurement {
  const value = emptyMeasurement();
  value.messages = messages;
  value.parts.text = { tokens: text, blocks: textBlocks };
  value.parts.toolCall = { tokens: toolCall, blocks: toolBlocks };
  value.parts.toolResult = { tokens: toolResult, blocks: toolBlocks };
  return value;
}

describe('fitEstimateCalibration', () => {
  it('recovers per-kind ratios and overheads from synthetic samples', () => {
    const next = random(4);
    const truth = { text: 1.1, toolCall: 0.95, toolResult: 1.3, message: 2, textBlock: 1, toolBlock: 30 };
    const samples = Array.from({ length: 500 }, () => {
      const m = measurement(
        Math.floor(next() * 800),
        Math.floor(next() * 300),
        Math.floor(next() * 4_000),
        1 + Math.floor(next() * 4),
        Math.floor(next() * 3),
        Math.floor(next() * 3),
      );
      const actual =
        truth.text * m.parts.text.tokens +
        truth.toolCall * m.parts.toolCall.tokens +
        truth.toolResult * m.parts.toolResult.tokens +
        truth.message * m.messages +
        truth.textBlock * m.parts.text.blocks +
        truth.toolBlock * (m.parts.toolCall.blocks + m.parts.toolResult.blocks);
      return { measurement: m, actualTokens: actual };
    });
    const { calibration, fitted } = fitEstimateCalibration(samples, { baseEncoding: 'o200k_base' });
    expect(calibration.ratios.text).toBeCloseTo(truth.text, 4);
    expect(calibration.ratios.toolCall).toBeCloseTo(truth.toolCall, 4);
    expect(calibration.ratios.toolResult).toBeCloseTo(truth.toolResult, 4);
    expect(calibration.overheads.message).toBeCloseTo(truth.message, 3);
    expect(calibration.overheads.toolCall).toBeCloseTo(truth.toolBlock, 3);
    // Reasoning never appears: it borrows the text kind's ratio instead of a zero that would under-count.
    expect(calibration.ratios.reasoning).toBe(calibration.ratios.text);
    expect(fitted.meanAbsolutePercentError).toBeLessThan(0.5);
  });

  it('never learns a negative coefficient', () => {
    const next = random(5);
    // Pure text: the message overhead is negative in the truth, the fit must pin it to 0.
    const samples = Array.from({ length: 100 }, () => {
      const m = measurement(100 + Math.floor(next() * 500), 0, 0, 1, 1, 0);
      return { measurement: m, actualTokens: 1.2 * m.parts.text.tokens - 3 };
    });
    const { calibration } = fitEstimateCalibration(samples, { baseEncoding: 'o200k_base' });
    for (const value of [...Object.values(calibration.ratios), ...Object.values(calibration.overheads)]) {
      expect(value).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('estimateTokens', () => {
  it('applies ratio, overheads and safety factor, then adds fixed estimates unscaled', () => {
    const value = measurement(100, 0, 0, 2, 1, 0);
    value.fixedTokens = 1_600;
    const calibration = { ...uniformCalibration('o200k_base', 1.5, 4), safetyFactor: 1.1 };
    expect(estimateTokens(value, calibration)).toBe(Math.ceil(1.1 * (150 + 8)) + 1_600);
  });

  it('never decreases when content is added', () => {
    const calibration = uniformCalibration('o200k_base', 1.2, 3, 1.05);
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), (a, b) => {
        return (
          estimateTokens(measurement(a + b, 0, 0, 1, 1, 0), calibration) >=
          estimateTokens(measurement(a, 0, 0, 1, 1, 0), calibration)
        );
      }),
    );
  });
});

describe('errorStatistics', () => {
  it('computes percent errors against the actual counts', () => {
    const stats = errorStatistics([
      { estimate: 110, actual: 100 },
      { estimate: 90, actual: 100 },
      { estimate: 100, actual: 100 },
      { estimate: 140, actual: 100 },
    ]);
    expect(stats.sampleCount).toBe(4);
    expect(stats.meanAbsolutePercentError).toBeCloseTo((10 + 10 + 0 + 40) / 4, 10);
    expect(stats.meanSignedPercentError).toBeCloseTo((10 - 10 + 0 + 40) / 4, 10);
    expect(stats.underCountShare).toBe(0.25);
    expect(stats.maxAbsolutePercentError).toBeCloseTo(40, 10);
    expect(stats.medianAbsolutePercentError).toBeCloseTo(10, 10);
  });
});
