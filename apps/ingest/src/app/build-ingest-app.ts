import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { createAuthenticator } from '../auth/authenticate.js';
import type { IngestDependencies } from '../dependencies.js';
import { registerArtifactRoute } from '../routes/artifact-route.js';
import { registerBranchRoute } from '../routes/branch-route.js';
import { registerCompactRoute } from '../routes/compact-route.js';
import { registerEventRoutes } from '../routes/events-routes.js';
import { registerOperationsRoutes } from '../routes/operations-routes.js';
import { registerPlanRoute } from '../routes/plan-route.js';
import { registerPromptRoute } from '../routes/prompt-route.js';
import { registerThreadRoutes } from '../routes/threads-routes.js';
import { installErrorHandling } from './error-handling.js';
import { createIngestContext } from './ingest-context.js';
import { installRequestMetrics } from './request-metrics.js';

export const INGEST_API_VERSION = '0.1.0';

/**
 * The ingest HTTP API over the given stores, queue and engine. Not yet listening: call `listen`
 * (or use `inject` in tests). Closing the app does not close the dependencies.
 */
export function buildIngestApp(dependencies: IngestDependencies): FastifyInstance {
  const app = Fastify({
    loggerInstance: dependencies.logger,
    bodyLimit: dependencies.limits.maxBodyBytes,
  }) as unknown as FastifyInstance;
  const context = createIngestContext(dependencies);

  // Route schemas document the API; zod (core's schemas) validates inside the handlers, so every
  // 400 has the same field-level shape, and responses are sent as built (no schema stripping).
  app.setValidatorCompiler(() => (data) => ({ value: data }));
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  acceptEmptyJsonBodies(app);
  app.decorateRequest('caller', null);
  installErrorHandling(app);
  installRequestMetrics(app, context.metrics);

  app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Compactor ingest API',
        version: INGEST_API_VERSION,
        description:
          'Append conversation events idempotently, read threads and plans, render prompts within a ' +
          'budget, compact, branch and read externalized artifacts. Errors are ' +
          '{ error: { code, message, issues?, details? } }.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key' } },
      },
    },
  });
  app.register(swaggerUi, { routePrefix: '/docs' });

  // Routes are added inside plugins so that @fastify/swagger (loaded first) sees every one of them.
  app.register(async (operations) => registerOperationsRoutes(operations, app, context));
  app.register(async (v1) => {
    v1.addHook('onRequest', createAuthenticator(dependencies.apiKeys));
    registerThreadRoutes(v1, context);
    registerEventRoutes(v1, context);
    registerPlanRoute(v1, context);
    registerPromptRoute(v1, context);
    registerCompactRoute(v1, context);
    registerBranchRoute(v1, context);
    registerArtifactRoute(v1, context);
  });
  return app;
}

/** `POST .../compact` with no body (curl -X POST) means `{}`, not a 400. */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
