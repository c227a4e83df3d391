import type { FieldIssue } from '@compactor/core';

/** Codes the API answers with, beyond core's error codes. */
export type HttpOnlyErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'route_not_found'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'request_timeout'
  | 'malformed_request'
  | 'internal';

/** An HTTP-level refusal (auth, size limits) that is not a domain error. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: HttpOnlyErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly details: Record<string, unknown> = {},
    readonly issues: FieldIssue[] = [],
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
