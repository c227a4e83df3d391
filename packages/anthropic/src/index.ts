export { messageParamsToMessages, messagesToEvents, stableMessageId } from './message-conversion.js';
export { type MessagesClient, type WithCompactionOptions, withCompaction } from './with-compaction.js';
