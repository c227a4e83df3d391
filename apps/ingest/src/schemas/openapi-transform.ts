import { createJsonSchemaTransform } from 'fastify-type-provider-zod';

type SwaggerTransform = ReturnType<typeof createJsonSchemaTransform>;

const requestPartsTransform = createJsonSchemaTransform({ skipList: [] });

/**
 * @fastify/swagger's transform: request parts (params, query, headers, body) are zod schemas and
 * become JSON Schema through the type provider; responses are documented with plain JSON Schema
 * (they are sent as built, not validated), so they pass through untouched.
 */
export const openApiTransform: SwaggerTransform = (document) => {
  const { response, ...requestParts } = (document.schema ?? {}) as Record<string, unknown>;
  const transformed = requestPartsTransform({ ...document, schema: requestParts } as typeof document);
  if (response === undefined || transformed.schema === undefined) return transformed;
  return { ...transformed, schema: { ...transformed.schema, response } as typeof transformed.schema };
};
