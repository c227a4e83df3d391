export {
  assistantMessage,
  type CompactionMiddlewareOptions,
  compactionMiddleware,
  functionTools,
} from './compaction-middleware.js';
export {
  type CompactionPrepareStepOptions,
  compactionPrepareStep,
  modelMessagesToMessages,
} from './prepare-step.js';
export {
  type ConvertedConversation,
  messagesToEvents,
  promptToMessages,
  requestToPrompt,
} from './prompt-conversion.js';
export {
  SEARCH_HISTORY_TOOL_NAME,
  type SearchHistoryToolOptions,
  searchHistoryTool,
} from './search-history-tool.js';
export { stableMessageId } from './stable-ids.js';
export type { ThreadOptions } from './thread-setup.js';
