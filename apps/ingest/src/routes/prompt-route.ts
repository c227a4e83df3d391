import { randomUUID } from 'node:crypto';
import {
  type CompactionPlan,
  type CompactionPolicy,
  type EventStore,
  foldThread,
  type ProviderName,
  parseSnapshotId,
  type RegisteredContext,
  type RenderSnapshot,
  stableStringify,
  type TokenBudget,
  type ToolDefinition,
  tokenBudget,
  ValidationError,
} from '@compactor/core';
import { loadRenderRecords, loadSnapshot } from '@compactor/engine';
import { handleSearchHistory, renderPrompt } from '@compactor/render';
import type { FastifyRequest } from 'fastify';
import type { IngestApp } from '../app/ingest-app.js';
import type { IngestContext } from '../app/ingest-context.js';
import { callerOf } from '../auth/authenticate.js';
import { objectResponse, securedByApiKey, withErrors } from '../schemas/openapi-schemas.js';
import {
  promptBodySchema,
  promptQuerySchema,
  searchHistoryBodySchema,
  threadParamsSchema,
} from '../schemas/request-schemas.js';
import { toolOutputAccess, visibleMessages } from '../threads/tool-output-access.js';

/** What a prompt is rendered from, whichever way it was asked for. */
interface PromptRequest {
  provider: ProviderName;
  budget?: number | undefined;
  system: string;
  tools: readonly ToolDefinition[];
  /** The recall query (POST only); default the newest user turn. */
  query?: string | undefined;
  /** Register system and tools on the thread (POST only, ADR-0192). */
  register?: boolean | undefined;
  /** Offer `search_history` (POST only, ADR-0163). */
  searchHistoryTool?: boolean | undefined;
  /** Pins (ADR-0180): a snapshot id, or a plan version with an optional thread version. */
  snapshot?: string | undefined;
  planVersion?: number | undefined;
  threadVersion?: number | undefined;
}

const promptDescription =
  '`budget` caps every token of the request (system, tools, formatting, messages, rehydrated ' +
  'artifacts) and may not exceed the thread context window; without it the cap is the window less ' +
  'the policy output reserve and safety buffer. A budget no valid request fits in is a 422 with the numbers. ' +
  '`snapshot` (an id from `POST .../snapshots`) or `planVersion` (with `threadVersion`, default the current ' +
  'one) renders the versions they pin, the same bytes whatever was appended or committed since (ADR-0180).';

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

  app.post(
    '/v1/threads/:id/search-history',
    {
      schema: {
        summary: "Answer a model's search_history call from what the thread's current plan compacted",
        description:
          'BM25 over the messages the current plan summarized, dropped, cleared or externalized, under the ' +
          'same rule as render-time recall: tool output this key may not read, or whose sensitivity is not ' +
          'auto-rehydratable, never comes back. The answer is a tool result for the call: append it to the ' +
          'thread in a tool message. A malformed call input is answered with a failure result, not a 400.',
        tags: ['prompt'],
        security: securedByApiKey,
        params: threadParamsSchema,
        body: searchHistoryBodySchema,
        response: withErrors(
          {
            200: objectResponse('The tool result answering the call, and the messages found', {
              result: { type: 'object', additionalProperties: true },
              hits: { type: 'array', items: { type: 'object', additionalProperties: true } },
            }),
          },
          [400, 401, 404, 413],
        ),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { events, plans } = context.dependencies.stores;
      const threadId = request.params.id;
      const { created } = await context.origins.get(caller.tenantId, threadId);
      const [log, current] = await Promise.all([
        events.readAll(caller.tenantId, threadId),
        plans.getCurrent(caller.tenantId, threadId),
      ]);
      const folded = foldThread(log);
      const visible = visibleMessages(
        folded.messages,
        toolOutputAccess(created, caller, context.dependencies),
      );
      const thread = visible.withheld ? { ...folded, messages: visible.messages } : folded;
      const tokenizer = context.tokenizers.forThread(created);
      const outcome = handleSearchHistory(request.body.input, {
        toolCallId: request.body.toolCallId,
        thread,
        plan: current.plan,
        countText: (text) => tokenizer.count(text),
        maxTokens: Math.max(200, thread.policy.rehydrationReserveTokens),
      });
      return { result: outcome.result, hits: outcome.hits };
    },
  );
}

async function render(
  context: IngestContext,
  request: FastifyRequest,
  threadId: string,
  prompt: PromptRequest,
) {
  const caller = callerOf(request);
  const { events, plans, artifacts, lifecycle } = context.dependencies.stores;
  const { created } = await context.origins.get(caller.tenantId, threadId);
  const owner = { tenantId: caller.tenantId, threadId };
  const pin = await pinnedVersions(context, caller.tenantId, threadId, prompt);
  let folded: ReturnType<typeof foldThread>;
  let plan: CompactionPlan | null;
  // Rehydration's cooldowns and this turn's injections are kept in the thread's lifecycle log, so
  // they hold across requests, processes and restarts, and the worker reads the same (ADR-0191).
  // A pinned render (ADR-0180) neither reads nor records them: its bytes depend on the pin alone.
  let records: Awaited<ReturnType<typeof loadRenderRecords>> | undefined;
  if (pin) {
    ({ thread: folded, plan } = await loadSnapshot({ events, plans }, caller.tenantId, threadId, pin));
  } else {
    // The plan before the fold: the fold keeps what the plan hides in compact form (ADR-0285).
    const foldAfterPlan = async () => {
      const current = await plans.getCurrent(caller.tenantId, threadId);
      return [
        await context.folds.loadFold(events, caller.tenantId, threadId, current.plan),
        current,
      ] as const;
    };
    const [[fold, current], loaded] = await Promise.all([
      foldAfterPlan(),
      loadRenderRecords(lifecycle, owner, context.logger),
    ]);
    folded = fold.thread;
    plan = current.plan;
    records = loaded;
    if (prompt.register) await registerContext(events, owner, fold.service.registered, prompt);
  }
  // Tool output this key may not read is rendered as a stand-in (ADR-0059). Such a render is not
  // cached: the cache holds what keys with every permission see.
  const visible = visibleMessages(folded.messages, toolOutputAccess(created, caller, context.dependencies));
  const thread = visible.withheld ? { ...folded, messages: visible.messages } : folded;
  const result = await renderPrompt({
    thread,
    plan,
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
    // A pinned render is of an older thread version; the cache follows each thread forward.
    ...(visible.withheld || pin ? {} : { cache: context.renderCache }),
    ...(records ? { rehydration: { state: records.state } } : {}),
    ...(prompt.query !== undefined ? { query: prompt.query } : {}),
    ...(prompt.searchHistoryTool ? { addSearchHistoryTool: true } : {}),
    logger: context.logger,
  });
  await records?.record(result.report, context.dependencies.clock.now().toISOString());
  return { request: result.request, tokens: result.tokens, report: result.report };
}

/** The versions a prompt request pins, or undefined for the current ones. */
async function pinnedVersions(
  context: IngestContext,
  tenantId: string,
  threadId: string,
  prompt: PromptRequest,
): Promise<RenderSnapshot | undefined> {
  if (prompt.snapshot !== undefined) {
    if (prompt.planVersion !== undefined || prompt.threadVersion !== undefined) {
      throw new ValidationError('give a snapshot or versions, not both', [
        { path: 'snapshot', message: 'not with planVersion or threadVersion' },
      ]);
    }
    return parseSnapshotId(prompt.snapshot);
  }
  if (prompt.planVersion === undefined) {
    if (prompt.threadVersion === undefined) return undefined;
    throw new ValidationError('threadVersion needs planVersion', [
      { path: 'planVersion', message: 'required with threadVersion' },
    ]);
  }
  const threadVersion =
    prompt.threadVersion ??
    (await context.dependencies.stores.events.getThread(tenantId, threadId))?.version ??
    0;
  return { threadVersion, planVersion: prompt.planVersion };
}

/**
 * Append `context.registered` when the system prompt or tools differ from the thread's last
 * registration (an unchanged registration appends nothing, so a runtime may send it every turn).
 */
async function registerContext(
  events: EventStore,
  owner: { tenantId: string; threadId: string },
  last: RegisteredContext | undefined,
  prompt: PromptRequest,
): Promise<void> {
  const next = { system: prompt.system, tools: [...prompt.tools] };
  if (last && stableStringify({ system: last.system, tools: last.tools }) === stableStringify(next)) return;
  await events.append(owner.tenantId, owner.threadId, [
    { eventId: `context.registered:${randomUUID()}`, type: 'context.registered', ...next },
  ]);
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
