import { ValidationError } from '@compactor/core';
import type { Measurement } from '../counting/measurement.js';
import type { EncodingName } from '../encoders/token-encoder.js';
import type { ErrorStatistics } from './error-statistics.js';
import { errorStatistics } from './error-statistics.js';
import type { EstimateCalibration } from './estimate-calibration.js';
import { estimateTokens } from './estimate-calibration.js';
import { nonNegativeLeastSquares } from './least-squares.js';
import { safetyFactorFor } from './safety-factor.js';

/** Content whose exact measurement is known, and what the provider reported it cost. */
export interface MeasuredSample {
  measurement: Measurement;
  actualTokens: number;
}

/** How {@link fitEstimateCalibration} fits. */
export interface FitEstimateCalibrationOptions {
  /** The encoding the samples were measured in. */
  baseEncoding: EncodingName;
  /**
   * Share of samples the safe estimate must not under-count (0–1).
   * @defaultValue 0.9
   */
  overCountShare?: number;
}

/** The fitted calibration and its error before and after the safety factor. */
export interface FitEstimateCalibrationResult {
  calibration: EstimateCalibration;
  /** Error of the fit without the safety factor. */
  fitted: ErrorStatistics;
  /** Error with it: the estimate to budget with. */
  safe: ErrorStatistics;
}

function features(measurement: Measurement): number[] {
  const { parts } = measurement;
  return [
    parts.text.tokens,
    parts.toolCall.tokens,
    parts.toolResult.tokens,
    parts.reasoning.tokens,
    measurement.messages,
    parts.text.blocks,
    // A tool call and its result always travel together, so their block overheads cannot be
    // told apart: one coefficient serves both.
    parts.toolCall.blocks + parts.toolResult.blocks,
    parts.reasoning.blocks,
  ];
}

/**
 * Learns a per-part-kind `EstimateCalibration` (a ratio per kind, an overhead per block and per
 * message) from measured samples by non-negative weighted least squares (weight 1/actual),
 * then the safety factor that makes `overCountShare` of the samples over-counted. A kind absent
 * from every sample borrows the text kind's ratio and overhead. Pure.
 *
 * @param samples - Measurements and the counts the provider reported.
 * @param options - The base encoding and the over-count share.
 * @returns The calibration and its error statistics.
 * @throws ValidationError without samples.
 */
export function fitEstimateCalibration(
  samples: readonly MeasuredSample[],
  options: FitEstimateCalibrationOptions,
): FitEstimateCalibrationResult {
  if (samples.length === 0) throw new ValidationError('fitEstimateCalibration needs at least one sample');
  const overCountShare = options.overCountShare ?? 0.9;
  const targets = samples.map((sample) => sample.actualTokens - sample.measurement.fixedTokens);
  const coefficients = nonNegativeLeastSquares(
    samples.map((sample) => features(sample.measurement)),
    targets,
    samples.map((sample) => 1 / Math.max(1, sample.actualTokens)),
  );
  const [text, toolCall, toolResult, reasoning, message, textBlock, toolBlock, reasoningBlock] = coefficients;
  const textRatio = text ?? 1;
  const textOverhead = textBlock ?? 0;
  const unscaled: EstimateCalibration = {
    baseEncoding: options.baseEncoding,
    ratios: {
      text: textRatio,
      toolCall: toolCall ?? textRatio,
      toolResult: toolResult ?? textRatio,
      reasoning: reasoning ?? textRatio,
    },
    overheads: {
      message: message ?? 0,
      text: textOverhead,
      toolCall: toolBlock ?? textOverhead,
      toolResult: toolBlock ?? textOverhead,
      reasoning: reasoningBlock ?? textOverhead,
    },
    safetyFactor: 1,
  };
  const fittedEstimates = samples.map((sample) => estimateTokens(sample.measurement, unscaled));
  const actual = samples.map((sample) => sample.actualTokens);
  // The factor scales only the estimated part; image and document estimates are added unscaled.
  const safetyFactor = safetyFactorFor(
    fittedEstimates.map((estimate, index) => estimate - samples[index]!.measurement.fixedTokens),
    targets,
    overCountShare,
  );
  const calibration = { ...unscaled, safetyFactor };
  return {
    calibration,
    fitted: errorStatistics(fittedEstimates.map((estimate, index) => ({ estimate, actual: actual[index]! }))),
    safe: errorStatistics(
      samples.map((sample) => ({
        estimate: estimateTokens(sample.measurement, calibration),
        actual: sample.actualTokens,
      })),
    ),
  };
}
