import {
  type CompactionPlan,
  type CompactionPolicy,
  type CompactorToolName,
  compactorToolNames,
  type ProviderName,
  parsePolicy,
  type RehydrationPolicy,
  type Tokenizer,
  type ToolDefinition,
} from '@compactor/core';
import { RenderCache, type ToolsPart } from './cache/render-cache.js';
import type { ThreadRenderMemo } from './cache/thread-render-memo.js';
import { RENDER_FORMAT_VERSION } from './format-version.js';
import { PieceMaker } from './plan/piece-maker.js';
import type { ToolExchangeIndex } from './plan/tool-exchanges.js';
import { providerFormat } from './providers/formats.js';
import type { ProviderFormat } from './providers/provider-format.js';
import { SEARCH_HISTORY_TOOL_NAME, searchHistoryTool } from './recall/search-history-tool.js';
import { READ_ARTIFACT_TOOL_NAME, readArtifactTool } from './rehydration/read-artifact-tool.js';
import { emptyRehydrationState, type RehydrationState } from './rehydration/rehydration-types.js';
import type { RenderInput } from './render-types.js';

/** What both entry points set up before rendering. */
export interface RenderContext {
  format: ProviderFormat;
  /** The caller's cache (or one for this render alone), and this thread's memo in it. */
  cache: RenderCache;
  memo: ThreadRenderMemo;
  /** The input's plan, or the equal plan this memo already knows (what every memo is keyed by). */
  plan: CompactionPlan | null;
  exchanges: ToolExchangeIndex;
  maker: PieceMaker;
  agent: string | undefined;
  turn: number;
  rehydrationPolicy: RehydrationPolicy;
  rehydrationState: RehydrationState;
}

export function renderContext(input: RenderInput): RenderContext {
  const format = providerFormat(input.provider);
  const cache = input.cache ?? new RenderCache();
  const memo = cache.thread(
    // The tenant is part of the key: two tenants may use the same thread and message ids.
    `${input.thread.tenantId}\u0000${input.thread.id}\u0000${input.provider}\u0000${input.tokenizer.id}\u0000${RENDER_FORMAT_VERSION}`,
  );
  const exchanges = memo.toolExchanges(input.thread.messages);
  const rehydrationPolicy =
    input.rehydration?.policy ?? input.thread.policy?.rehydration ?? parsePolicy().rehydration;
  return {
    format,
    cache,
    memo,
    plan: memo.canonicalPlan(input.plan),
    exchanges,
    maker: new PieceMaker(cache, memo, format, input.tokenizer, input.thread.policy),
    agent: input.agent,
    turn: input.turn ?? input.thread.messages.at(-1)?.turn ?? 0,
    rehydrationPolicy,
    rehydrationState: input.rehydration?.state ?? emptyRehydrationState,
  };
}

/** The definitions of Compactor's own tools this renderer can offer, by name. */
const compactorToolDefinitions: Partial<Record<CompactorToolName, ToolDefinition>> = {
  [READ_ARTIFACT_TOOL_NAME]: readArtifactTool,
  [SEARCH_HISTORY_TOOL_NAME]: searchHistoryTool,
};

/**
 * The tools sent: the caller's, then Compactor's own (core's `compactorToolNames`, ADR-0141) in their
 * fixed order, each unless the caller already has a tool of that name.
 */
export function effectiveTools(
  context: RenderContext,
  tools: readonly ToolDefinition[],
  names: readonly CompactorToolName[],
): readonly ToolDefinition[] {
  const added = names.filter(
    (name) => compactorToolDefinitions[name] && !tools.some((tool) => tool.name === name),
  );
  if (added.length === 0) return tools;
  return context.cache.toolsWithCompactorTools(tools, added.join(','), (original) => [
    ...original,
    ...added.map((name) => compactorToolDefinitions[name]!),
  ]);
}

/**
 * Tokens of Compactor's own tools as a request for `policy` carries them before any plan (ADR-0141):
 * what the planner sets aside beside the caller's tools, so its target leaves them room.
 *
 * @param policy - The thread's policy.
 * @param tokenizer - The thread's tokenizer.
 * @param provider - The wire format counted.
 * @param offer - What the caller offers (`search_history`), as for render.
 * @returns The tokens they add to a request with no tools of the caller's (0 when none are added).
 */
export function compactorToolsTokens(
  policy: CompactionPolicy,
  tokenizer: Tokenizer,
  provider: ProviderName,
  offer: { offerSearchHistory?: boolean } = {},
): number {
  const definitions = compactorToolNames({
    policy,
    planExternalizes: false,
    planCompacts: false,
    offerSearchHistory: offer.offerSearchHistory === true,
  }).flatMap((name) => {
    const definition = compactorToolDefinitions[name];
    return definition ? [definition] : [];
  });
  return definitions.length === 0 ? 0 : tokenizer.countTools(definitions, provider);
}

/**
 * Formatted tools and their count, once per tools array, provider and tokenizer; a runtime that
 * builds an equal tools array for every call is served by content (bounded memo).
 */
export function toolsPart(
  context: RenderContext,
  tools: readonly ToolDefinition[],
  tokenizer: Tokenizer,
  provider: ProviderName,
): ToolsPart {
  return context.cache.toolsPart(tools, `${provider}\u0000${tokenizer.id}`, () => ({
    wire: context.format.formatTools(tools),
    tokens: tools.length === 0 ? 0 : tokenizer.countTools(tools, provider),
  }));
}

/**
 * Request-level overhead (e.g. reply priming) the tokenizer charges beyond its per-message counts:
 * what it says an empty request costs, when it can count whole requests.
 */
export function requestOverhead(
  context: RenderContext,
  tokenizer: Tokenizer,
  provider: ProviderName,
): number {
  return context.cache.requestOverhead(`${provider}\u0000${tokenizer.id}`, () => {
    if (!tokenizer.countRequest) return 0;
    try {
      return Math.max(0, tokenizer.countRequest(context.format.emptyRequest(), provider));
    } catch {
      return 0;
    }
  });
}
