export { type CompactionMiddlewareOptions, compactionMiddleware } from './compaction-middleware.js';
export {
  baseMessagesToMessages,
  messagesToEvents,
  requestToBaseMessages,
  stableMessageId,
} from './message-conversion.js';
export {
  SEARCH_HISTORY_TOOL_NAME,
  type SearchHistoryToolOptions,
  searchHistoryTool,
} from './search-history-tool.js';
