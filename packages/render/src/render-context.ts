import {
  type ProviderName,
  parsePolicy,
  type RehydrationPolicy,
  type Tokenizer,
  type ToolDefinition,
} from '@compactor/core';
import { RenderCache, type ThreadRenderCache } from './cache/render-cache.js';
import { RENDER_FORMAT_VERSION } from './format-version.js';
import { PieceMaker } from './plan/piece-maker.js';
import { indexToolExchanges, type ToolExchangeIndex } from './plan/tool-exchanges.js';
import { providerFormat } from './providers/formats.js';
import type { ProviderFormat } from './providers/provider-format.js';
import { READ_ARTIFACT_TOOL_NAME, readArtifactTool } from './rehydration/read-artifact-tool.js';
import { emptyRehydrationState, type RehydrationState } from './rehydration/rehydration-types.js';
import type { RenderInput } from './render-types.js';

/** What both entry points set up before rendering. */
export interface RenderContext {
  format: ProviderFormat;
  cache: RenderCache;
  threadCache: ThreadRenderCache;
  exchanges: ToolExchangeIndex;
  maker: PieceMaker;
  agent: string | undefined;
  turn: number;
  rehydrationPolicy: RehydrationPolicy;
  rehydrationState: RehydrationState;
}

export function renderContext(input: RenderInput): RenderContext {
  const format = providerFormat(input.provider);
  const cache = input.cache ?? new RenderCache({ maxThreads: 1 });
  const threadCache = cache.thread(
    // The tenant is part of the key: two tenants may use the same thread and message ids.
    `${input.thread.tenantId}\u0000${input.thread.id}\u0000${input.provider}\u0000${input.tokenizer.id}\u0000${RENDER_FORMAT_VERSION}`,
  );
  const exchanges = indexToolExchanges(input.thread.messages, threadCache.exchanges);
  threadCache.exchanges = exchanges;
  const rehydrationPolicy =
    input.rehydration?.policy ?? input.thread.policy?.rehydration ?? parsePolicy().rehydration;
  return {
    format,
    cache,
    threadCache,
    exchanges,
    maker: new PieceMaker(cache, threadCache, format, input.tokenizer),
    agent: input.agent,
    turn: input.turn ?? input.thread.messages.at(-1)?.turn ?? 0,
    rehydrationPolicy,
    rehydrationState: input.rehydration?.state ?? emptyRehydrationState,
  };
}

const withReadArtifact = new WeakMap<readonly ToolDefinition[], readonly ToolDefinition[]>();

/** The tools sent: the caller's, plus read_artifact when pointers tell the model to call it. */
export function effectiveTools(
  tools: readonly ToolDefinition[],
  needsReadArtifact: boolean,
): readonly ToolDefinition[] {
  if (!needsReadArtifact || tools.some((tool) => tool.name === READ_ARTIFACT_TOOL_NAME)) return tools;
  let augmented = withReadArtifact.get(tools);
  if (!augmented) {
    augmented = [...tools, readArtifactTool];
    withReadArtifact.set(tools, augmented);
  }
  return augmented;
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
): { wire: unknown[]; tokens: number } {
  let byKey = context.cache.tools.get(tools);
  if (!byKey) {
    byKey = new Map();
    context.cache.tools.set(tools, byKey);
  }
  const key = `${provider}\u0000${tokenizer.id}`;
  let part = byKey.get(key);
  if (!part) {
    const contentKey = `${key}\u0000${JSON.stringify(tools)}`;
    part = context.cache.toolsByContent.get(contentKey);
    if (!part) {
      part = {
        wire: context.format.formatTools(tools),
        tokens: tools.length === 0 ? 0 : tokenizer.countTools(tools, provider),
      };
      context.cache.rememberTools(contentKey, part);
    }
    byKey.set(key, part);
  }
  return part;
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
  const key = `${provider}\u0000${tokenizer.id}`;
  const cached = context.cache.requestOverhead.get(key);
  if (cached !== undefined) return cached;
  let overhead = 0;
  if (tokenizer.countRequest) {
    try {
      overhead = Math.max(0, tokenizer.countRequest(context.format.emptyRequest(), provider));
    } catch {
      overhead = 0;
    }
  }
  context.cache.requestOverhead.set(key, overhead);
  return overhead;
}
