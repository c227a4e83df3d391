import { fieldIssuesFrom, ValidationError } from '@compactor/core';
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';

/** How each part of a request is named in an error: the message's noun and the issue paths' prefix. */
const partNames: Record<string, { what: string; prefix?: string }> = {
  body: { what: 'body' },
  querystring: { what: 'query', prefix: 'query' },
  params: { what: 'path' },
  headers: { what: 'headers', prefix: 'headers' },
};

/**
 * Fastify's validator for route schemas written in zod (the one schema of each route part; the
 * type provider types the handler from it). A failure is core's ValidationError listing every
 * field, so it leaves through the same error envelope as any other 400. The parsed value (defaults
 * applied, query integers converted) replaces the raw input.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart }) => {
  const names = partNames[httpPart ?? 'body'] ?? { what: httpPart ?? 'input' };
  return (data) => {
    // Fastify gives an absent body as null; to the schema it is absent (its default applies).
    const result = schema.safeParse(httpPart === 'body' && data === null ? undefined : data);
    if (result.success) return { value: result.data };
    return {
      error: new ValidationError(`invalid ${names.what}`, fieldIssuesFrom(result.error.issues, names.prefix)),
    };
  };
};
