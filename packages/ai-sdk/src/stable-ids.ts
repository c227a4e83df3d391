/** Ids are core's `stableMessageId` (position + hash of role and content, ADR-0084), the one every adapter uses. */
export { stableMessageId } from '@compactor/core';
