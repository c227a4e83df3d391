/** Who serves a model (decides request overheads). */
export type ModelProvider = 'anthropic' | 'openai' | 'google';

/**
 * How a model's tokens are counted: an exact OpenAI encoding, or an estimate built on one
 * (`claude-estimate`, `gemini-estimate`: exact o200k/cl100k count × a calibrated ratio).
 */
export type TokenizerFamily = 'o200k_base' | 'cl100k_base' | 'claude-estimate' | 'gemini-estimate';

/** Every tokenizer family, for validation. */
export const tokenizerFamilies: readonly TokenizerFamily[] = [
  'o200k_base',
  'cl100k_base',
  'claude-estimate',
  'gemini-estimate',
];

/**
 * Models that share a vocabulary share an estimate calibration. Claude 3 through Opus 4.6,
 * Sonnet 4.6 and Haiku 4.5 use one tokenizer; Opus 4.7 introduced a new one ("1.0–1.35× more
 * tokens for the same text", Anthropic's Opus 4.7 migration notes) that the Claude 5 models keep.
 */
export type TokenizerGeneration = 'claude-3' | 'claude-4.7' | 'gemini' | 'openai';

/** A model's registry entry. */
export interface ModelInfo {
  /** Canonical id: undated, without provider prefix. */
  id: string;
  provider: ModelProvider;
  /** Input + output tokens the model accepts in one call. */
  contextWindow: number;
  maxOutputTokens: number;
  tokenizerFamily: TokenizerFamily;
  tokenizerGeneration: TokenizerGeneration;
}
