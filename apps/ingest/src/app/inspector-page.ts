import { INSPECTOR_BUILD_COMMAND, inspectorAssetsDirectory, inspectorIsBuilt } from '@compactor/inspector';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The inspector page at /ui/ (ADR-0090): static files built by the inspector package, served
 * without authentication (they hold no data; every API call they make carries the key). Before
 * the page is built, /ui answers 503 with the command that builds it.
 */
export function registerInspectorPage(
  app: FastifyInstance,
  directory: string = inspectorAssetsDirectory,
): void {
  const hidden = { schema: { hide: true } };
  app.get('/ui', hidden, async (_request, reply) => reply.redirect('/ui/'));
  if (!inspectorIsBuilt(directory)) {
    app.get('/ui/*', hidden, async (_request, reply) =>
      reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send(`The inspector page is not built. Run: ${INSPECTOR_BUILD_COMMAND}\n`),
    );
    return;
  }
  app.register(fastifyStatic, {
    root: directory,
    prefix: '/ui/',
    cacheControl: false,
    // Hashed asset names change with their content; index.html must be re-read after a build.
    setHeaders(response, path) {
      response.setHeader(
        'cache-control',
        path.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
      );
      response.setHeader('x-content-type-options', 'nosniff');
    },
  });
}
