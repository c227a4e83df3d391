import {
  type CompactionPolicy,
  type ProviderName,
  type TokenBudget,
  type ToolDefinition,
  tokenBudget,
  ValidationError,
} from '@compactor/core';
import { renderPrompt } from '@compactor/render';
import type { FastifyRequest } from 'fastify';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import { promptBodySchema, promptQuerySchema, threadParamsSchema } from '../schemas/request-schemas.js';
import { toolOutputAccess, visibleMessages } from '../threads/tool-output-access.js';

/** What a prompt is rendered from, whichever way it was asked for. */
interface PromptRequest {
  provider: ProviderName;
  budget?: number | undefined;
  system: string;
  tools: readonly ToolDefinition[];
  /** The recall query (POST only); default the newest user turn. */
  query?: string | undefined;
}

const promptDescription =
  '`budget` caps every token of the request (system, tools, formatting, messages, rehydrated ' +
  'artifacts) and may not exceed the thread context window; without it the cap is the window less ' +
  'the policy output reserve and safety buffer. A budget no valid request fits in is a 422 with the numbers.';

const promptResponses = withErrors(
  {
    200: objectResponse('The provider request, its token counts and the render report', {
      request: { type: 'object', additionalProperties: true },
      tokens: { type: 'object', additionalProperties: true },
      report: { type: 'object', additionalProperties: true },
    }),
  },
  [400, 401, 404, 413, 422],
);

export function registerPromptRoute(app: IngestApp, context: IngestContext): void {
  app.get(
    '/v1/threads/:id/prompt',
    {
      schema: {
        summary: 'Render the thread under its current plan as a provider request within a token budget',
        description: `${promptDescription} \`system\` is the system prompt; a long one, or tools, belong in POST.`,
        tags: ['prompt'],
        security: securedByApiKey,
        params: threadParamsSchema,
        querystring: promptQuerySchema,
        response: promptResponses,
      },
    },
    async (request) => render(context, request, request.params.id, { ...request.query, tools: [] }),
  );

  app.post(
    '/v1/threads/:id/prompt',
    {
      schema: {
        summary: 'Render the thread for a system prompt and tools sent in the body, within a token budget',
        description: `${promptDescription} System and tools count toward the budget and are rendered in the request.`,
        tags: ['prompt'],
        security: securedByApiKey,
        params: threadParamsSchema,
        body: promptBodySchema,
        response: promptResponses,
      },
    },
    async (request) => render(context, request, request.params.id, request.body),
  );
}

async function render(
  context: IngestContext,
  request: FastifyRequest,
  threadId: string,
  prompt: PromptRequest,
) {
  const caller = callerOf(request);
  const { events, plans, artifacts } = context.dependencies.stores;
  const { created } = await context.origins.get(caller.tenantId, threadId);
  const [folded, current] = await Promise.all([
    context.folds.load(events, caller.tenantId, threadId),
    plans.getCurrent(caller.tenantId, threadId),
  ]);
  // Tool output this key may not read is rendered as a stand-in (ADR-0059). Such a render is not
  // cached: the cache holds what keys with every permission see.
  const visible = visibleMessages(folded.messages, toolOutputAccess(created, caller, context.dependencies));
  const thread = visible.withheld ? { ...folded, messages: visible.messages } : folded;
  const result = await renderPrompt({
    thread,
    plan: current.plan,
    system: prompt.system,
    tools: prompt.tools,
    budget: budgetFor(thread.contextWindow, thread.policy, prompt.budget),
    provider: prompt.provider,
    tokenizer: context.tokenizers.forThread(created),
    artifactStore: artifacts,
    securityContext: {
      requesterId: caller.requesterId,
      tenantId: caller.tenantId,
      permissions: caller.permissions,
    },
    ...(visible.withheld ? {} : { cache: context.renderCache }),
    ...(prompt.query !== undefined ? { query: prompt.query } : {}),
    logger: context.logger,
  });
  return { request: result.request, tokens: result.tokens, report: result.report };
}

/**
 * An explicit budget is the request's hard ceiling, and no larger than the window (a request the
 * model cannot take is never what the caller meant); the default keeps the policy's reserves free.
 */
function budgetFor(
  contextWindow: number,
  policy: Pick<CompactionPolicy, 'outputReserveTokens' | 'safetyBufferTokens' | 'rehydrationReserveTokens'>,
  budget: number | undefined,
): TokenBudget {
  if (budget !== undefined) {
    if (budget > contextWindow) {
      throw new ValidationError(
        `budget ${budget} is above the thread's context window of ${contextWindow} tokens`,
        [{ path: 'budget', message: `at most the context window (${contextWindow})` }],
      );
    }
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
