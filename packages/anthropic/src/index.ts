export { messageParamsToMessages, messagesToEvents, stableMessageId } from './message-conversion.js';
export { answerSearchHistory, SEARCH_HISTORY_TOOL_NAME } from './search-history.js';
export { assembleStreamedMessage, type EventStream } from './stream-assembly.js';
export {
  type CompactedMessagesClient,
  type MessagesClient,
  type WithCompactionOptions,
  withCompaction,
} from './with-compaction.js';
