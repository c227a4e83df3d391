import { CompactorError } from '@compactor/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors/http-error.js';
import type { ApiKeyGrant, Caller } from './api-keys.js';
import { createKeyring } from './api-keys.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** An `onRequest` hook: `Authorization: Bearer KEY`, or 401 with `WWW-Authenticate: Bearer`. */
export function createAuthenticator(apiKeys: ReadonlyMap<string, string | ApiKeyGrant>) {
  const keyring = createKeyring(apiKeys);
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    const caller = match ? keyring.find(match[1]!) : undefined;
    if (!caller) {
      throw new HttpError(
        401,
        'unauthorized',
        header === undefined ? 'missing Authorization: Bearer <api key>' : 'unknown or malformed API key',
        { 'www-authenticate': 'Bearer realm="compactor"' },
      );
    }
    request.caller = caller;
  };
}

/** The authenticated caller (routes under /v1 always have one). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new CompactorError('unavailable', 'request was not authenticated');
  return request.caller;
}
