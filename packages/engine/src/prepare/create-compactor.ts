import {
  type ArtifactStore,
  type Clock,
  type CompactionPlan,
  type DeterminismHooks,
  type EventInput,
  type EventStore,
  type LifecycleEventLog,
  type Logger,
  noopLogger,
  type PlanStore,
  type ProviderName,
  type RenderSnapshot,
  type RenderSnapshotRef,
  type SecurityContext,
  type Summarizer,
  systemClock,
  type Thread,
  type Tokenizer,
  type ToolDefinition,
  tokenBudget,
} from '@compactor/core';
import {
  createRenderCache,
  handleSearchHistory,
  type RenderReport,
  type RequestByProvider,
  renderCeiling,
  renderPrompt,
  type SearchHistoryOutcome,
  type TokenTotals,
} from '@compactor/render';
import { createTokenizer } from '@compactor/tokenizer';
import {
  type CheckResult,
  type CompactionEngine,
  createCompactionEngine,
  threadBudget,
} from '../compaction-engine.js';
import { captureCurrentDeterminism } from '../determinism.js';
import { loadSnapshot, takeSnapshot } from '../snapshots/snapshots.js';
import { ThreadFoldCache } from '../thread-fold-cache.js';
import { loadRenderRecords } from './render-records.js';

/** Where the stores of a runtime (in-memory, embedded or production) plug in. */
export interface CompactorStores {
  events: EventStore;
  plans: PlanStore;
  artifacts?: ArtifactStore;
  lifecycle?: LifecycleEventLog;
}

export interface CompactorOptions {
  stores: CompactorStores;
  summarizer: Summarizer;
  /** Default `local`. */
  tenantId?: string;
  /**
   * `inline` (default): `prepare` compacts before it renders when the thread's trigger fires.
   * `background`: a worker owns compaction; `prepare` renders under the last committed plan.
   */
  compaction?: 'inline' | 'background';
  clock?: Clock;
  logger?: Logger;
  tokenizerFor?: (thread: Thread) => Tokenizer;
  /** Who reads rehydrated artifacts; default the tenant itself with no extra permissions. */
  securityContext?: SecurityContext;
  /**
   * `capture_determinism` per tool name (ADR-0193): replayable results whose source is proven
   * unchanged may be cleared, by the planner and by the renderer's emergency fit.
   */
  determinismHooks?: DeterminismHooks;
}

export interface PrepareOptions<P extends ProviderName> {
  provider: P;
  system?: string;
  tools?: readonly ToolDefinition[];
  /**
   * The budget: the most tokens the whole request (system, tools, formatting, messages,
   * rehydration) may take. Default: the thread's context window less the policy's output reserve
   * and safety buffer.
   */
  budget?: number;
  /**
   * Offer the `search_history` tool (ADR-0163) once the plan has compacted something; answer the
   * model's calls with `compactor.searchHistory`.
   * @defaultValue false
   */
  searchHistoryTool?: boolean;
  /**
   * Render from a snapshot (ADR-0180): the thread and plan versions it pins, never compacting first.
   * Delegated agents given one snapshot render the same bytes for the same system, tools and budget.
   */
  snapshot?: string | RenderSnapshot;
}

/** A model's `search_history` call. */
export interface SearchHistoryCall {
  /** The call's id: the result answers it. */
  toolCallId: string;
  /** The call's input, `{ query, top_k? }`. */
  input: unknown;
}

export interface PreparedRequest<P extends ProviderName> {
  request: RequestByProvider[P];
  tokens: TokenTotals;
  report: RenderReport;
  /** What compaction did before rendering: null when a background worker owns it. */
  compaction: CheckResult | null;
}

export interface Compactor {
  readonly tenantId: string;
  /** Append events (idempotent by event id); creates the thread with its first event. */
  append(threadId: string, events: EventInput[]): Promise<{ version: number; duplicates: number }>;
  /** Appends nothing; compacts if due (inline mode), renders, returns the typed request and the report. */
  prepare<P extends ProviderName>(threadId: string, options: PrepareOptions<P>): Promise<PreparedRequest<P>>;
  /**
   * Answer a `search_history` call (ADR-0163) from what the thread's current plan compacted, under
   * the thread's sensitivity rule; append the result to the thread as the call's tool result.
   */
  searchHistory(threadId: string, call: SearchHistoryCall): Promise<SearchHistoryOutcome>;
  /** Pin the thread's current version and plan version for delegated agents (ADR-0180). */
  snapshot(threadId: string): Promise<RenderSnapshotRef>;
}

/**
 * One call in process: `prepare(threadId, { provider, system, tools, budget })`. System prompt and
 * tool schemas count toward the budget, both in the trigger's target and in the render.
 */
export function createCompactor(options: CompactorOptions): Compactor {
  const tenantId = options.tenantId ?? 'local';
  const clock = options.clock ?? systemClock;
  const mode = options.compaction ?? 'inline';
  const renderCache = createRenderCache();
  // One fold per thread for the compactor and its engines: a prepare after one append folds that event.
  const folds = new ThreadFoldCache();
  const tokenizers = new Map<string, Tokenizer>();
  const tokenizerFor =
    options.tokenizerFor ??
    ((thread: Thread) => {
      const key = `${thread.model}:${thread.contextWindow}`;
      let tokenizer = tokenizers.get(key);
      if (!tokenizer) {
        tokenizer = createTokenizer({
          model: thread.model,
          modelInfo: { contextWindow: thread.contextWindow },
        });
        tokenizers.set(key, tokenizer);
      }
      return tokenizer;
    });
  // Engines measure the overhead they were made with; agents keep one system prompt and tool set.
  const engines = new Map<string, CompactionEngine>();
  function engineFor(provider: ProviderName, systemPromptTokens: number, toolSchemaTokens: number) {
    const key = `${provider}:${systemPromptTokens}:${toolSchemaTokens}`;
    let engine = engines.get(key);
    if (!engine) {
      if (engines.size >= 16) engines.clear();
      engine = createCompactionEngine({
        events: options.stores.events,
        plans: options.stores.plans,
        ...(options.stores.artifacts ? { artifacts: options.stores.artifacts } : {}),
        ...(options.stores.lifecycle ? { lifecycle: options.stores.lifecycle } : {}),
        summarizer: options.summarizer,
        clock,
        provider,
        tokenizerFor,
        overhead: { systemPromptTokens, toolSchemaTokens },
        ...(options.determinismHooks ? { determinismHooks: options.determinismHooks } : {}),
        folds,
        ...(options.logger ? { logger: options.logger } : {}),
      });
      engines.set(key, engine);
    }
    return engine;
  }

  function loadThread(threadId: string, hiddenBy?: CompactionPlan | null): Promise<Thread> {
    return folds.load(options.stores.events, tenantId, threadId, hiddenBy);
  }

  return {
    tenantId,
    async append(threadId, events) {
      const result = await options.stores.events.append(tenantId, threadId, events);
      return { version: result.version, duplicates: result.duplicates };
    },
    snapshot(threadId) {
      return takeSnapshot(options.stores, tenantId, threadId);
    },
    async prepare(threadId, prepareOptions) {
      const { provider, system = '', tools = [] } = prepareOptions;
      const pinned = prepareOptions.snapshot
        ? await loadSnapshot(options.stores, tenantId, threadId, prepareOptions.snapshot)
        : undefined;
      // The plan before the thread: the fold keeps what it hides in compact form (ADR-0285).
      const before = pinned ? undefined : await options.stores.plans.getCurrent(tenantId, threadId);
      let thread = pinned?.thread ?? (await loadThread(threadId, before?.plan));
      let compaction: CheckResult | null = null;
      if (mode === 'inline' && !pinned) {
        const tokenizer = tokenizerFor(thread);
        // A budget below the thread's own ceiling is room the planner must not plan with either.
        const withheld =
          prepareOptions.budget === undefined
            ? 0
            : Math.max(0, renderCeiling(threadBudget(thread)) - prepareOptions.budget);
        const engine = engineFor(
          provider,
          tokenizer.count(system) + withheld,
          tokenizer.countTools(tools, provider),
        );
        compaction = await engine.check(tenantId, threadId);
        if (compaction.commit.status !== 'not_needed') thread = await loadThread(threadId);
      }
      // Inline, the check may have committed a plan (here or in another process): read it again.
      const plan = pinned
        ? pinned.plan
        : mode === 'inline'
          ? (await options.stores.plans.getCurrent(tenantId, threadId)).plan
          : before!.plan;
      // Cooldowns and this turn's rehydrations live in the thread's lifecycle log (ADR-0191); a
      // snapshot's render (ADR-0180) neither reads nor records them, so its bytes depend on the pin alone.
      const records = pinned
        ? undefined
        : await loadRenderRecords(options.stores.lifecycle, { tenantId, threadId }, options.logger);
      const verified = options.determinismHooks
        ? await captureCurrentDeterminism(thread, options.determinismHooks, options.logger ?? noopLogger)
        : undefined;
      const rendered = await renderPrompt({
        thread,
        plan,
        system,
        tools,
        budget: budgetFor(thread, prepareOptions.budget),
        provider,
        tokenizer: tokenizerFor(thread),
        // A snapshot renders an older thread version: outside the cache, which follows the thread forward.
        ...(pinned ? {} : { cache: renderCache }),
        ...(records ? { rehydration: { state: records.state } } : {}),
        ...(verified ? { currentDeterminism: verified.currentDeterminism } : {}),
        ...(prepareOptions.searchHistoryTool ? { addSearchHistoryTool: true } : {}),
        ...(options.stores.artifacts
          ? {
              artifactStore: options.stores.artifacts,
              securityContext: options.securityContext ?? {
                requesterId: 'compactor',
                tenantId,
                permissions: [],
              },
            }
          : {}),
        ...(options.logger ? { logger: options.logger } : {}),
      });
      await records?.record(rendered.report, clock.now().toISOString());
      return { request: rendered.request, tokens: rendered.tokens, report: rendered.report, compaction };
    },
    async searchHistory(threadId, call) {
      const thread = await loadThread(threadId);
      const current = await options.stores.plans.getCurrent(tenantId, threadId);
      const tokenizer = tokenizerFor(thread);
      return handleSearchHistory(call.input, {
        toolCallId: call.toolCallId,
        thread,
        plan: current.plan,
        countText: (text) => tokenizer.count(text),
        maxTokens: Math.max(200, thread.policy.rehydrationReserveTokens),
      });
    },
  };
}

/** An explicit budget is the request's ceiling; the default keeps the policy's reserves free. */
function budgetFor(thread: Thread, budget: number | undefined) {
  if (budget === undefined) return threadBudget(thread);
  return tokenBudget({
    maxInputTokens: budget,
    outputReserveTokens: 0,
    safetyBufferTokens: 0,
    rehydrationReserveTokens: thread.policy.rehydrationReserveTokens,
  });
}
