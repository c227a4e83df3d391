import { foldThread, type TokenBudget, tokenBudget } from '@compactor/core';
import { renderPrompt } from '@compactor/render';
import type { FastifyInstance } from 'fastify';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { parseInput } from '../http/parse-input.js';
import { inputJsonSchema, objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { promptQuerySchema, threadParamsSchema } from '../schemas/request-schemas.js';
import { toolOutputAccess, visibleMessages } from '../threads/tool-output-access.js';

export function registerPromptRoute(app: FastifyInstance, context: IngestContext): void {
  const { events, plans, artifacts } = context.dependencies.stores;
  app.get(
    '/v1/threads/:id/prompt',
    {
      schema: {
        summary: 'Render the thread under its current plan as a provider request within a token budget',
        description:
          '`budget` caps every token of the request (system, tools, formatting, messages, rehydrated ' +
          'artifacts); without it the cap is the context window less the policy output reserve and ' +
          'safety buffer. `system` is the system prompt. A budget no valid request fits in is a 422 with the numbers.',
        tags: ['prompt'],
        security: securedByApiKey,
        params: inputJsonSchema(threadParamsSchema),
        querystring: inputJsonSchema(promptQuerySchema),
        response: withErrors(
          {
            200: objectResponse('The provider request, its token counts and the render report', {
              request: { type: 'object', additionalProperties: true },
              tokens: { type: 'object', additionalProperties: true },
              report: { type: 'object', additionalProperties: true },
            }),
          },
          [400, 401, 404, 422],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { id } = parseInput(threadParamsSchema, request.params, 'path');
      const query = parseInput(promptQuerySchema, request.query, 'query', 'query');
      const { created } = await context.origins.get(caller.tenantId, id);
      const [log, current] = await Promise.all([
        events.readAll(caller.tenantId, id),
        plans.getCurrent(caller.tenantId, id),
      ]);
      const folded = foldThread(log);
      // Tool output this key may not read is rendered as a stand-in (ADR-0059). Such a render is
      // not cached: the tenant's cache holds what keys with every permission see.
      const visible = visibleMessages(
        folded.messages,
        toolOutputAccess(created, caller, context.dependencies),
      );
      const thread = visible.withheld ? { ...folded, messages: visible.messages } : folded;
      const result = await renderPrompt({
        thread,
        plan: current.plan,
        system: query.system,
        tools: [],
        budget: budgetFor(thread.contextWindow, thread.policy, query.budget),
        provider: query.provider,
        tokenizer: context.tokenizers.forThread(created),
        artifactStore: artifacts,
        securityContext: {
          requesterId: caller.requesterId,
          tenantId: caller.tenantId,
          permissions: caller.permissions,
        },
        ...(visible.withheld ? {} : { cache: context.renderCacheFor(caller.tenantId) }),
        logger: context.logger,
      });
      return { request: result.request, tokens: result.tokens, report: result.report };
    },
  );
}

/** An explicit budget is the request's hard ceiling; the default keeps the policy's reserves free. */
function budgetFor(
  contextWindow: number,
  policy: { outputReserveTokens: number; safetyBufferTokens: number; rehydrationReserveTokens: number },
  budget: number | undefined,
): TokenBudget {
  if (budget !== undefined) {
    return tokenBudget({
      maxInputTokens: budget,
      outputReserveTokens: 0,
      safetyBufferTokens: 0,
      rehydrationReserveTokens: policy.rehydrationReserveTokens,
    });
  }
  return tokenBudget({
    maxInputTokens: contextWindow,
    outputReserveTokens: policy.outputReserveTokens,
    safetyBufferTokens: policy.safetyBufferTokens,
    rehydrationReserveTokens: policy.rehydrationReserveTokens,
  });
}
