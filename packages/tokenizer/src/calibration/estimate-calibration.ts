import type { Measurement, PartKind } from '../counting/measurement.js';
import { partKinds } from '../counting/measurement.js';
import type { EncodingName } from '../encoders/token-encoder.js';

/**
 * How exact base-encoding counts become a model's tokens:
 * `safetyFactor × (Σ ratio[kind] × tokens[kind] + Σ overhead[kind] × blocks[kind] + overhead.message × messages)`,
 * rounded up, plus the fixed image/document estimates. For OpenAI models every ratio is 1 and
 * the overheads are the documented constants; for Claude they come from the calibration table.
 */
export interface EstimateCalibration {
  baseEncoding: EncodingName;
  ratios: Record<PartKind, number>;
  overheads: Record<'message' | PartKind, number>;
  /** ≥ 1: multiplies the fitted estimate so it over-counts in the measured share of cases. */
  safetyFactor: number;
}

/**
 * A measurement in a model's tokens.
 *
 * @param measurement - Exact base-encoding counts per part kind.
 * @param calibration - Ratios, overheads and safety factor.
 * @returns The estimate, rounded up, plus the fixed image and document tokens.
 */
export function estimateTokens(measurement: Measurement, calibration: EstimateCalibration): number {
  let total = calibration.overheads.message * measurement.messages;
  for (const kind of partKinds) {
    const part = measurement.parts[kind];
    total += calibration.ratios[kind] * part.tokens + calibration.overheads[kind] * part.blocks;
  }
  return Math.ceil(calibration.safetyFactor * total) + measurement.fixedTokens;
}

/**
 * Every kind at the same ratio, overhead only per message: the shape `calibrateRatio` learns.
 *
 * @param baseEncoding - The encoding counts are made in.
 * @param ratio - Model tokens per base token.
 * @param messageOverhead - Tokens added per message.
 * @param safetyFactor - Multiplies the estimate.
 * @returns The calibration.
 */
export function uniformCalibration(
  baseEncoding: EncodingName,
  ratio: number,
  messageOverhead: number,
  safetyFactor = 1,
): EstimateCalibration {
  return {
    baseEncoding,
    ratios: { text: ratio, toolCall: ratio, toolResult: ratio, reasoning: ratio },
    overheads: { message: messageOverhead, text: 0, toolCall: 0, toolResult: 0, reasoning: 0 },
    safetyFactor,
  };
}

/**
 * Scales every ratio and overhead (a documented margin for a model with no calibration of its own).
 *
 * @param calibration - The calibration to scale.
 * @param factor - The multiplier.
 * @returns A new calibration with the same safety factor.
 */
export function scaleCalibration(calibration: EstimateCalibration, factor: number): EstimateCalibration {
  const scale = <K extends string>(values: Record<K, number>) =>
    Object.fromEntries(Object.entries<number>(values).map(([key, value]) => [key, value * factor])) as Record<
      K,
      number
    >;
  return { ...calibration, ratios: scale(calibration.ratios), overheads: scale(calibration.overheads) };
}
