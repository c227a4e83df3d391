import { CompactorError, type CompactorErrorCode, type FieldIssue } from '@compactor/core';
import { HttpError, type HttpOnlyErrorCode } from './http-error.js';
import { withoutFilePaths } from './redact-paths.js';
import { storageFaultCode } from './storage-faults.js';

/** Seconds a client should wait before retrying after a storage fault (disk full, read-only). */
export const STORAGE_RETRY_AFTER_SECONDS = 30;

/** Every `error.code` the API answers with: core's codes and the HTTP layer's own. */
export type ApiErrorCode = CompactorErrorCode | HttpOnlyErrorCode;

/** The API's error envelope. */
export interface ErrorBody {
  error: {
    code: ApiErrorCode;
    message: string;
    issues?: FieldIssue[];
    details?: Record<string, unknown>;
  };
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** A server fault worth logging at error level. */
  serverFault: boolean;
}

/** Status of each core error code; decided by `code`, never by message text. */
const statusByCode: Record<CompactorErrorCode, number> = {
  validation: 400,
  not_found: 404,
  concurrency: 409,
  idempotency_conflict: 409,
  access_denied: 403,
  budget_exceeded: 422,
  unknown_model: 422,
  integrity: 500,
  summarizer: 502,
  unavailable: 503,
};

/** Fastify's own errors that are the client's fault. */
const fastifyClientErrors: Record<string, { status: number; code: ApiErrorCode }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'validation' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'validation' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'validation' },
};

/**
 * Turn anything a handler threw into the API's error envelope. Messages never carry a server file
 * path (stores name their files in messages; that is for the log, not the client).
 *
 * @param error - Anything a handler threw.
 * @returns Status, body, headers, and whether it is a server fault.
 */
export function errorResponse(error: unknown): ErrorResponse {
  const response = envelopeOf(error);
  response.body.error.message = withoutFilePaths(response.body.error.message);
  return response;
}

function envelopeOf(error: unknown): ErrorResponse {
  const storageFault = storageFaultCode(error);
  if (storageFault !== undefined) {
    return {
      status: 503,
      headers: { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) },
      serverFault: true,
      body: {
        error: {
          code: 'unavailable',
          message:
            storageFault === 'EROFS' ? 'storage is read-only; retry later' : 'storage is full; retry later',
        },
      },
    };
  }
  if (error instanceof HttpError) {
    return {
      status: error.statusCode,
      headers: error.headers,
      serverFault: false,
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(error.issues.length > 0 ? { issues: error.issues } : {}),
          ...(Object.keys(error.details).length > 0 ? { details: error.details } : {}),
        },
      },
    };
  }
  if (CompactorError.isInstance(error)) {
    const status = statusByCode[error.code] ?? 500;
    const { issues: _issues, ...details } = error.details;
    const issues = error.code === 'validation' ? issuesOf(error) : [];
    return {
      status,
      headers: status === 503 ? { 'retry-after': '1' } : {},
      serverFault: status >= 500,
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(issues.length > 0 ? { issues } : {}),
          ...(status < 500 && Object.keys(details).length > 0 ? { details } : {}),
        },
      },
    };
  }
  const fastifyCode = (error as { code?: unknown } | null)?.code;
  const known = typeof fastifyCode === 'string' ? fastifyClientErrors[fastifyCode] : undefined;
  if (known) {
    return {
      status: known.status,
      headers: {},
      serverFault: false,
      body: { error: { code: known.code, message: (error as Error).message } },
    };
  }
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Another client error Fastify raised (malformed JSON, bad headers): say what it was.
    return {
      status,
      headers: {},
      serverFault: false,
      body: { error: { code: 'validation', message: (error as Error).message } },
    };
  }
  return {
    status: 500,
    headers: {},
    serverFault: true,
    body: { error: { code: 'internal', message: 'internal server error' } },
  };
}

function issuesOf(error: CompactorError): FieldIssue[] {
  const issues = (error as { issues?: unknown }).issues ?? error.details.issues;
  return Array.isArray(issues) ? (issues as FieldIssue[]) : [];
}
