export type {
  AnthropicCountRequest,
  AnthropicTokenCounter,
  AnthropicTokenCounterOptions,
} from './anthropic/anthropic-token-counter.js';
export { createAnthropicTokenCounter } from './anthropic/anthropic-token-counter.js';
export { mapAnthropicError } from './anthropic/map-anthropic-error.js';
export type { YieldControl } from './bounded/bounded-count.js';
export { countBounded, countBoundedYielding, yieldToEventLoop } from './bounded/bounded-count.js';
export type { CountingBounds } from './bounded/counting-bounds.js';
export { defaultCountingBounds, resolveCountingBounds } from './bounded/counting-bounds.js';
export type { Segment } from './bounded/segment-text.js';
export { segmentText } from './bounded/segment-text.js';
export { contentKey, defaultHashThreshold } from './cache/content-key.js';
export type { CountCache, CountCacheOptions } from './cache/count-cache.js';
export { countCacheEntryBytes, createCountCache, defaultCountCacheBytes } from './cache/count-cache.js';
export type {
  CalibrateRatioOptions,
  RatioCalibrationResult,
  RatioSample,
} from './calibration/calibrate-ratio.js';
export { calibrateRatio } from './calibration/calibrate-ratio.js';
export type {
  CalibrationErrorSummary,
  CalibrationTable,
  CalibrationTableEntry,
} from './calibration/calibration-table.js';
export { claudeCalibrationTable } from './calibration/claude-calibration-table.js';
export type { ErrorStatistics, EstimatePair } from './calibration/error-statistics.js';
export { errorStatistics } from './calibration/error-statistics.js';
export type { EstimateCalibration } from './calibration/estimate-calibration.js';
export { estimateTokens, scaleCalibration, uniformCalibration } from './calibration/estimate-calibration.js';
export type {
  FitEstimateCalibrationOptions,
  FitEstimateCalibrationResult,
  MeasuredSample,
} from './calibration/fit-estimate-calibration.js';
export { fitEstimateCalibration } from './calibration/fit-estimate-calibration.js';
export type { CalibrationSource, ResolvedCalibration } from './calibration/resolve-calibration.js';
export { exactCalibration, resolveCalibration } from './calibration/resolve-calibration.js';
export {
  newClaudeTokenizerFactor,
  uncalibratedClaude,
  uncalibratedGemini,
} from './calibration/uncalibrated-calibrations.js';
export type { RequestBreakdown } from './counting/counting-engine.js';
export type { Measurement, PartKind, PartMeasure } from './counting/measurement.js';
export { addMeasurement, emptyMeasurement, partKinds } from './counting/measurement.js';
export * from './counting/provider-constants.js';
export type { AiSdkRequest } from './counting/requests/ai-sdk-request.js';
export type { AnthropicRequest } from './counting/requests/anthropic-request.js';
export type { OpenAiChatRequest } from './counting/requests/openai-chat-request.js';
export type { OpenAiResponsesRequest } from './counting/requests/openai-responses-request.js';
export { defaultEncoderBackend, getDefaultCountingEncoder, getEncoder } from './encoders/create-encoder.js';
export { minimumWasmStretch, withMultiByteStretchesOnWasm } from './encoders/multi-byte-run-encoder.js';
export type { EncoderBackendName, EncodingName, TokenEncoder } from './encoders/token-encoder.js';
export { encoderBackendNames, encodingNames } from './encoders/token-encoder.js';
export type { JsonReplacer } from './json/stringify-json.js';
export { stringifyJson } from './json/stringify-json.js';
export type { ModelInfo, ModelProvider, TokenizerFamily, TokenizerGeneration } from './models/model-info.js';
export { tokenizerFamilies } from './models/model-info.js';
export type { ModelInfoOverrides } from './models/model-registry.js';
export {
  findModelInfo,
  getModelInfo,
  listModels,
  resolveModelInfo,
  UNKNOWN_MODEL_FALLBACK,
} from './models/model-registry.js';
export type { ThreadModel, ThreadTokenizers } from './thread-tokenizers.js';
export { countingFormatFor, createThreadTokenizers, tokenizerForThread } from './thread-tokenizers.js';
export type {
  CountAsyncOptions,
  CreateTokenizerOptions,
  ProviderRequests,
  ProviderTokenizer,
} from './tokenizer.js';
export { createTokenizer, defaultCountCache } from './tokenizer.js';
