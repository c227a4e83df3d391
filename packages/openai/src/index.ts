export { stableMessageId } from '@compactor/core';
export { type ChatMessage, chatMessagesToMessages } from './chat-conversion.js';
export { type ResponsesItem, responsesItemsToMessages } from './responses-conversion.js';
