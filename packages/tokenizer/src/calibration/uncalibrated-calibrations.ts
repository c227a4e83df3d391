import type { EstimateCalibration } from './estimate-calibration.js';

/**
 * Estimates used where no measured calibration exists, set to over-count. Not fitted to data:
 * `pnpm calibrate:claude` reports how far above the API's counts the Claude one lands on the
 * pi sessions (docs/BENCHMARKS.md).
 *
 * Claude, before calibration: Anthropic's token-counting reference (shipped with Claude Code) says
 * tiktoken under-counts Claude by 15–20% on prose and more on code; 1.5 × the o200k count leaves room for the worst of that,
 * and the overheads are above anything the calibration has measured for a message or a block.
 */
export const uncalibratedClaude: EstimateCalibration = {
  baseEncoding: 'o200k_base',
  ratios: { text: 1.5, toolCall: 1.5, toolResult: 1.5, reasoning: 1.5 },
  overheads: { message: 10, text: 5, toolCall: 50, toolResult: 50, reasoning: 10 },
  safetyFactor: 1,
};

/**
 * Claude Opus 4.7 and later use a new tokenizer that Anthropic says yields "1.0–1.35× more
 * tokens" for the same text; a model of that generation without its own calibration gets the
 * Claude 3 – 4.6 calibration scaled by the upper end of that range.
 */
export const newClaudeTokenizerFactor = 1.35;

/**
 * Gemini, never calibrated here (no Gemini usage in the corpus): its SentencePiece vocabulary
 * (≈256k entries) is close to o200k in size; 1.3 × o200k and generous overheads over-count.
 */
export const uncalibratedGemini: EstimateCalibration = {
  baseEncoding: 'o200k_base',
  ratios: { text: 1.3, toolCall: 1.3, toolResult: 1.3, reasoning: 1.3 },
  overheads: { message: 10, text: 5, toolCall: 20, toolResult: 20, reasoning: 5 },
  safetyFactor: 1,
};
