export {
  conversationTokens,
  type EmergencyDrop,
  type EmergencyFitReport,
  MIN_CHUNK_SHARE,
  type TrimmedSummary,
} from './budget/emergency-fit.js';
export { renderCeiling } from './budget/render-ceiling.js';
export {
  createRenderCache,
  DEFAULT_RENDER_CACHE_BYTES,
  RenderCache,
  type RenderCacheOptions,
  type RenderCacheStats,
} from './cache/render-cache.js';
export { RENDER_FORMAT_VERSION } from './format-version.js';
export {
  type ConversationMeasure,
  type MeasureConversationInput,
  measureConversation,
} from './measure-conversation.js';
export type { OpaqueReport } from './plan/opaque-parts.js';
export type { SourceCounts } from './plan/slots.js';
export type {
  AiSdkRequest,
  AnthropicBetaRequest,
  AnthropicRequest,
  OpenAIChatRequest,
  OpenAIResponsesRequest,
  RequestByProvider,
  WireObject,
} from './providers/request-types.js';
export { anthropicBetaRequest } from './providers/request-types.js';
export { providerToolCallId } from './providers/tool-call-ids.js';
export type * from './providers/wire-types.js';
export {
  type CompactedRecallDocument,
  compactedRecallDocuments,
  type RecalledMessage,
  type RecallReport,
} from './recall/render-recall.js';
export {
  handleSearchHistory,
  SEARCH_HISTORY_TOOL_NAME,
  type SearchHistoryContext,
  type SearchHistoryOutcome,
  searchHistoryTool,
} from './recall/search-history-tool.js';
export {
  findArtifactId,
  hintTerms,
  knownArtifactIds,
  matchesHint,
  TOOL_SCHEMA_REHYDRATE_KEYWORD,
} from './rehydration/artifact-references.js';
export { rehydrationEventsToLifecycle, renderLifecycleEvents } from './rehydration/lifecycle-events.js';
export {
  handleReadArtifact,
  READ_ARTIFACT_TOOL_NAME,
  type ReadArtifactContext,
  type ReadArtifactOutcome,
  readArtifactTool,
} from './rehydration/read-artifact-tool.js';
export { nextRehydrationState } from './rehydration/rehydration-state.js';
export {
  emptyRehydrationState,
  type RehydrationBlockReason,
  type RehydrationEvent,
  type RehydrationOptions,
  type RehydrationState,
} from './rehydration/rehydration-types.js';
export { truncateToTokens } from './rehydration/truncate-to-tokens.js';
export { compactorToolsTokens } from './render-context.js';
export { RenderBudgetExceededError, type RenderBudgetNumbers } from './render-errors.js';
export { renderPrompt, renderPromptSync } from './render-prompt.js';
export type {
  RehydrationReport,
  RenderInput,
  RenderReport,
  RenderResult,
  TokenTotals,
} from './render-types.js';
export {
  CONTINUATION_TEXT,
  clearedPlaceholderText,
  EMPTY_RESULT_TEXT,
  externalizationText,
  MISSING_RESULT_TEXT,
  rehydrationText,
  summaryText,
  systemNoteText,
} from './synthetic-text.js';
