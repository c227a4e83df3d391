import { ValidationError } from '@compactor/core';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { createAuthenticator } from '../auth/authenticate.js';
import { defaultIngestTimeouts, type IngestDependencies } from '../dependencies.js';
import { answerClientError, answerFrameworkError } from '../errors/framework-errors.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../http/json-depth.js';
import { zodValidatorCompiler } from '../http/zod-validation.js';
import { registerArtifactRoute } from '../routes/artifact-route.js';
import { registerBranchRoute } from '../routes/branch-route.js';
import { registerCompactRoute } from '../routes/compact-route.js';
import { registerEventRoutes } from '../routes/events-routes.js';
import { registerLifecycleRoutes } from '../routes/lifecycle-routes.js';
import { registerOperationsRoutes } from '../routes/operations-routes.js';
import { registerPlanDiffRoute } from '../routes/plan-diff-route.js';
import { registerPlanRoute } from '../routes/plan-route.js';
import { registerPolicyRoute } from '../routes/policy-route.js';
import { registerPromptRoute } from '../routes/prompt-route.js';
import { registerSnapshotRoute } from '../routes/snapshot-route.js';
import { registerThreadListRoute } from '../routes/thread-list-route.js';
import { registerThreadRoutes } from '../routes/threads-routes.js';
import { openApiTransform } from '../schemas/openapi-transform.js';
import { THREAD_ID_MAX_LENGTH } from '../schemas/request-schemas.js';
import { installErrorHandling } from './error-handling.js';
import type { IngestApp } from './ingest-app.js';
import { createIngestContext } from './ingest-context.js';
import { registerInspectorPage } from './inspector-page.js';
import { installRequestLogging } from './request-logging.js';
import { installRequestMetrics } from './request-metrics.js';

/** The API version reported in the OpenAPI document. */
export const INGEST_API_VERSION = '0.1.0';

/**
 * The ingest HTTP API over the given stores, queue and engine. Not yet listening: call `listen`
 * (or use `inject` in tests). Closing the app does not close the dependencies.
 *
 * @param dependencies - Stores, queue, engine, keys, limits, metrics, logger and clock.
 * @returns The Fastify app.
 */
export function buildIngestApp(dependencies: IngestDependencies): FastifyInstance {
  const timeouts = { ...defaultIngestTimeouts, ...dependencies.timeouts };
  const app = Fastify({
    loggerInstance: dependencies.logger,
    bodyLimit: dependencies.limits.maxBodyBytes,
    // One id limit everywhere (ADR-0045): any id that can be created can be addressed.
    routerOptions: { maxParamLength: THREAD_ID_MAX_LENGTH },
    // Slow clients (ADR-0047): the whole request within requestTimeout, its headers within
    // headersTimeout, an idle socket closed after connectionTimeout, an idle keep-alive after
    // keepAliveTimeout. Node checks request and header deadlines every checkInterval.
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkIntervalMs },
    // Our own per-request log lines (debug; slow ones and failures at info and above).
    logController: new LogController({ disableRequestLogging: true }),
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  }) as unknown as FastifyInstance;
  const context = createIngestContext(dependencies);

  // One zod schema per route part validates (and types the handler through the type provider);
  // a failure is a ValidationError, so every 400 has the same field-level shape. Responses are
  // sent as built (no schema stripping).
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installJsonParser(app);
  app.decorateRequest('caller', null);
  installErrorHandling(app);
  installRequestLogging(app, timeouts.slowRequestMs);
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
    transform: openApiTransform,
  });
  app.register(swaggerUi, { routePrefix: '/docs' });

  // Routes are added inside plugins so that @fastify/swagger (loaded first) sees every one of them.
  app.register(async (operations) => registerOperationsRoutes(operations, app, context));
  if (dependencies.inspectorDirectory !== null) {
    app.register(async (page) => registerInspectorPage(page, dependencies.inspectorDirectory ?? undefined));
  }
  app.register(async (plugin) => {
    const v1 = plugin.withTypeProvider<ZodTypeProvider>() as IngestApp;
    v1.addHook('onRequest', createAuthenticator(dependencies.apiKeys));
    registerThreadRoutes(v1, context);
    registerEventRoutes(v1, context);
    registerPlanRoute(v1, context);
    registerPromptRoute(v1, context);
    registerSnapshotRoute(v1, context);
    registerCompactRoute(v1, context);
    registerBranchRoute(v1, context);
    registerArtifactRoute(v1, context);
    // Behind the inspector page (ADR-0090), and usable without it.
    registerThreadListRoute(v1, context);
    registerLifecycleRoutes(v1, context);
    registerPlanDiffRoute(v1, context);
    registerPolicyRoute(v1, context);
  });
  return app;
}

/**
 * JSON bodies: empty means absent (`POST .../compact` from `curl -X POST` is `{}`, not a 400), and
 * nesting deeper than MAX_JSON_DEPTH is a 400 before any recursive code sees it.
 */
function installJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (error, value) => {
      if (error) {
        done(error, undefined);
        return;
      }
      if (exceedsJsonDepth(value, MAX_JSON_DEPTH)) {
        done(
          new ValidationError(`the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`, [
            { path: '', message: `at most ${MAX_JSON_DEPTH} levels of objects and arrays` },
          ]),
          undefined,
        );
        return;
      }
      done(null, value);
    });
  });
}
