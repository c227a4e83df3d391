import { openAiTokensPerMessage, openAiToolCallTokens } from '../counting/provider-constants.js';
import type { EncodingName } from '../encoders/token-encoder.js';
import type { ModelInfo } from '../models/model-info.js';
import type { CalibrationTable } from './calibration-table.js';
import { claudeCalibrationTable } from './claude-calibration-table.js';
import type { EstimateCalibration } from './estimate-calibration.js';
import { scaleCalibration } from './estimate-calibration.js';
import {
  newClaudeTokenizerFactor,
  uncalibratedClaude,
  uncalibratedGemini,
} from './uncalibrated-calibrations.js';

/**
 * Where a tokenizer's calibration came from: `exact` (an OpenAI encoding, documented
 * overheads), `calibrated` (the table), `derived` (the table scaled by a documented factor),
 * `uncalibrated` (a safety margin), `caller` (passed to `createTokenizer`).
 */
export type CalibrationSource = 'exact' | 'calibrated' | 'derived' | 'uncalibrated' | 'caller';

/** A calibration and where it came from. */
export interface ResolvedCalibration {
  calibration: EstimateCalibration;
  source: CalibrationSource;
  /** The table key or constant that was used; part of the tokenizer id. */
  key: string;
}

/**
 * OpenAI encodings are exact: ratio 1. A message costs the cookbook's 3 tokens plus its role
 * (one token in both encodings: `system`, `user`, `assistant`, `tool`, `developer`); a tool
 * call 3 tokens of framing. Tool results are their own `tool` messages (see `measureMessage`).
 *
 * @param encoding - The OpenAI encoding.
 * @returns Its calibration.
 */
export function exactCalibration(encoding: EncodingName): EstimateCalibration {
  return {
    baseEncoding: encoding,
    ratios: { text: 1, toolCall: 1, toolResult: 1, reasoning: 1 },
    overheads: {
      message: openAiTokensPerMessage + 1,
      text: 0,
      toolCall: openAiToolCallTokens,
      toolResult: 0,
      reasoning: 0,
    },
    safetyFactor: 1,
  };
}

/**
 * The calibration for a model: exact for OpenAI encodings; else the table's entry for the model
 * or its tokenizer generation; else a Claude 3 entry scaled for the Claude 4.7 tokenizer; else an
 * uncalibrated safety margin.
 *
 * @param info - The model's registry entry.
 * @param table - The calibration table.
 * @returns The calibration, its source and the key used.
 */
export function resolveCalibration(
  info: ModelInfo,
  table: CalibrationTable = claudeCalibrationTable,
): ResolvedCalibration {
  const family = info.tokenizerFamily;
  if (family === 'o200k_base' || family === 'cl100k_base') {
    return { calibration: exactCalibration(family), source: 'exact', key: family };
  }
  if (family === 'gemini-estimate') {
    const entry = table[info.id] ?? table[info.tokenizerGeneration];
    if (entry)
      return {
        calibration: entry.calibration,
        source: 'calibrated',
        key: table[info.id] ? info.id : info.tokenizerGeneration,
      };
    return { calibration: uncalibratedGemini, source: 'uncalibrated', key: 'gemini-uncalibrated' };
  }
  const own = table[info.id] ?? table[info.tokenizerGeneration];
  if (own) {
    return {
      calibration: own.calibration,
      source: 'calibrated',
      key: table[info.id] ? info.id : info.tokenizerGeneration,
    };
  }
  if (info.tokenizerGeneration === 'claude-4.7') {
    const previous = table['claude-3'];
    return previous
      ? {
          calibration: scaleCalibration(previous.calibration, newClaudeTokenizerFactor),
          source: 'derived',
          key: 'claude-3×1.35',
        }
      : {
          calibration: scaleCalibration(uncalibratedClaude, newClaudeTokenizerFactor),
          source: 'uncalibrated',
          key: 'claude-uncalibrated×1.35',
        };
  }
  return { calibration: uncalibratedClaude, source: 'uncalibrated', key: 'claude-uncalibrated' };
}
