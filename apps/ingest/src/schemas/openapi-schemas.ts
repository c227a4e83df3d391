type JsonSchema = Record<string, unknown>;

const issueSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, message: { type: 'string' } },
  required: ['path', 'message'],
};

export const errorBodyJsonSchema: JsonSchema = {
  type: 'object',
  description: 'Every error: a stable code, a message, field-level issues for 400s, details for some 4xx.',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        issues: { type: 'array', items: issueSchema },
        details: { type: 'object', additionalProperties: true },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

/** A documented response of any JSON object, with a description. */
export function objectResponse(description: string, properties: Record<string, JsonSchema> = {}): JsonSchema {
  return { description, type: 'object', properties, additionalProperties: true };
}

/** The error responses a /v1 route may give, plus its own. */
export function withErrors(
  responses: Record<number, JsonSchema>,
  statuses: readonly number[] = [400, 401, 404],
): Record<number, JsonSchema> {
  const errors = Object.fromEntries(
    statuses.map((status) => [status, { ...errorBodyJsonSchema, description: `error ${status}` }]),
  );
  return { ...responses, ...errors };
}

export const securedByApiKey = [{ apiKey: [] }];
