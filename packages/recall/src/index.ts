export { messageRecallText, recallQuery } from './message-text.js';
export {
  createRecallIndex,
  type RecallDocument,
  type RecallHit,
  type RecallIndex,
  type RecallIndexOptions,
  type RecallResult,
  type RecallSearchOptions,
} from './recall-index.js';
export { asksForRecall } from './recall-need.js';
