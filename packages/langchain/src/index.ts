export { type CompactionMiddlewareOptions, compactionMiddleware } from './compaction-middleware.js';
export {
  baseMessagesToMessages,
  messagesToEvents,
  requestToBaseMessages,
  stableMessageId,
} from './message-conversion.js';
