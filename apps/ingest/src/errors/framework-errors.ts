import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { THREAD_ID_MAX_LENGTH } from '../schemas/request-schemas.js';
import type { ErrorBody } from './error-response.js';
import type { HttpOnlyErrorCode } from './http-error.js';

/**
 * Errors Fastify raises before a route is chosen (bad percent-encoding, a path parameter over
 * `maxParamLength`): the same envelope as every other error, instead of Fastify's own shape.
 */
export function answerFrameworkError(
  error: Error & { code?: string },
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const body: ErrorBody = tooLong
    ? {
        error: {
          code: 'uri_too_long',
          message: `a path parameter is too long (ids are at most ${THREAD_ID_MAX_LENGTH} characters)`,
        },
      }
    : { error: { code: 'validation', message: 'the URL is not valid percent-encoding' } };
  reply.code(tooLong ? 414 : 400).send(body);
}

const clientErrors: Record<
  string,
  { status: number; reason: string; code: HttpOnlyErrorCode; message: string }
> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'headers_too_large',
    message: 'the request headers are too large',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'request_timeout',
    message: 'the request was not received in time',
  },
};

const malformed = {
  status: 400,
  reason: 'Bad Request',
  code: 'malformed_request',
  message: 'malformed HTTP request',
} as const;

/**
 * Node's `clientError` (a request the HTTP parser refuses, headers too large, a request that took
 * too long): written straight to the socket in our envelope, then the socket is closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = (error.code !== undefined ? clientErrors[error.code] : undefined) ?? malformed;
  const body = JSON.stringify({ error: { code: known.code, message: known.message } } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.status} ${known.reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
