import type { FastifyInstance } from 'fastify';
import { errorResponse } from '../errors/error-response.js';

/** Every error leaves as `{ error: { code, message, issues?, details? } }`. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const response = errorResponse(error);
    if (response.serverFault) {
      request.log.error({ err: error, route: request.routeOptions.url }, 'request failed');
    } else {
      // A refusal is the client's mistake: per-request detail, so debug (ADR-0049).
      request.log.debug(
        { code: response.body.error.code, status: response.status, route: request.routeOptions.url },
        'request refused',
      );
    }
    reply.code(response.status).headers(response.headers).send(response.body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({
      error: {
        code: 'route_not_found',
        message: `no route ${request.method} ${request.url.split('?', 1)[0]}`,
      },
    });
  });
}
