export type * from './api-types.js';
export {
  CompactorApiError,
  CompactorClientError,
  CompactorNetworkError,
  isRetryableStatus,
} from './client-errors.js';
export {
  type CallOptions,
  type CompactorClient,
  type CompactorClientOptions,
  createCompactorClient,
} from './compactor-client.js';
export type { RetryEvent } from './http-transport.js';
export type * from './inspector-types.js';
export { backoffDelay, defaultRetryPolicy, type RetryPolicy, retryAfterMs } from './retry-policy.js';
