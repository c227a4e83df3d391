import {
  type ArtifactSensitivity,
  type ArtifactStore,
  availableForMessages,
  buildTrigger,
  type Clock,
  type CompactionOutcome,
  type CompactionPlan,
  compactionOutcome,
  type DeterminismHooks,
  type DeterminismReport,
  type EventStore,
  extendTriggerView,
  type LifecycleEventLog,
  type Logger,
  noopLogger,
  type PlannerOutcome,
  type PlanStore,
  type ProviderName,
  planCommittedEvent,
  planVersionsMissing,
  planWithPolicy,
  rehydrationHappenedInTurn,
  type Summarizer,
  type Thread,
  type TokenBudget,
  type Tokenizer,
  type TriggerDecision,
  type TriggerView,
  tokenBudget,
  triggerThresholdPercent,
} from '@compactor/core';
import { compactorToolsTokens, createRenderCache } from '@compactor/render';
import { createThreadTokenizers } from '@compactor/tokenizer';
import { captureCurrentDeterminism } from './determinism.js';
import { createRenderMeasurer } from './measure.js';
import { abridgeOnly, mediaPastTurnTrigger } from './media-trigger.js';
import { recallBlocksTrigger } from './recall-trigger.js';
import { ThreadFoldCache } from './thread-fold-cache.js';

/** The stores, summarizer and defaults a compaction engine works with. */
export interface CompactionEngineOptions {
  events: EventStore;
  plans: PlanStore;
  summarizer: Summarizer;
  clock: Clock;
  /** Where externalized content goes; without it the planner does not externalize. */
  artifacts?: ArtifactStore;
  /** Receives the planner's lifecycle events. */
  lifecycle?: LifecycleEventLog;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
  /** The wire format budgets are measured in. @defaultValue `'anthropic'` */
  provider?: ProviderName;
  /** Tokenizer for a thread's model; default @compactor/tokenizer's `tokenizerForThread` (honours its tokenizer family). */
  tokenizerFor?: (thread: Thread) => Tokenizer;
  /**
   * What the runtime sends besides messages (system prompt, tool schemas), estimated. A thread with a
   * registered system prompt and tools (`context.registered`, ADR-0192) is measured by those instead.
   */
  overhead?: { systemPromptTokens?: number; toolSchemaTokens?: number };
  /** Sensitivity, time to live and key id given to artifacts the planner writes. */
  artifactDefaults?: { sensitivity?: ArtifactSensitivity; ttlSeconds?: number; encryptionKeyId?: string };
  /**
   * Called when recursive summarization gets no usable summary and leaves the history unchanged (the
   * session service's failure callback); a `compaction_failed` lifecycle event records it as well.
   */
  onSummarizationFailure?: (failure: SummarizationFailure) => void;
  /**
   * The default policy's `capture_determinism` (ADR-0193): per tool name, a hook that reads a replayable
   * result's source metadata now. With it the clear rung may clear replayable results whose source
   * is proven unchanged; without it (or when a hook fails) they are kept.
   */
  determinismHooks?: DeterminismHooks;
  /**
   * The deployment's switch (ADR-0183): false, no trigger fires, whatever a thread's policy says;
   * manual compaction still runs. @defaultValue true
   */
  autoCompact?: boolean;
  /**
   * Folded threads kept between checks (ADR-0121); pass the one the process's renders use to share
   * it. @defaultValue a cache of its own (64 MiB)
   */
  folds?: ThreadFoldCache;
}

export interface SummarizationFailure {
  tenantId: string;
  threadId: string;
  error: unknown;
}

/** How one check runs. */
export interface CheckOptions {
  /** A requested compaction: it fires the trigger; `force` compacts even under target. */
  manual?: { instructions?: string; force?: boolean };
  /**
   * Rehydration happened this turn: the planner skips externalize and drop (ADR-0008). Default: what
   * the thread's lifecycle log says (a `compaction_rehydrated` event of the thread's current turn,
   * recorded by the prompt route; ADR-0191).
   */
  rehydrationHappened?: boolean;
  /** Aborts the summarizer call. */
  signal?: AbortSignal;
}

/** What happened to the plan: committed, lost a concurrent commit, or nothing to commit. */
export type CommitOutcome =
  | { status: 'committed'; version: number }
  | { status: 'lost_race'; currentVersion: number }
  | { status: 'not_needed' };

/** One check's outcome: the trigger's decision, the planner's outcome and the commit. */
export interface CheckResult {
  tenantId: string;
  threadId: string;
  /** The thread version the check read. */
  threadVersion: number;
  /** The plan version the planner started from. */
  planVersionBefore: number;
  trigger: TriggerDecision;
  /** Null when the trigger did not fire. */
  planner: PlannerOutcome | null;
  commit: CommitOutcome;
  /** tokensBefore / tokensAfter of this compaction (1 when nothing changed). */
  compressionRatio: number;
  /** What the `capture_determinism` hooks found, when hooks are registered and the planner ran. */
  determinism?: DeterminismReport;
  /**
   * What a committed compaction archived and kept, and the tokens it saved (the `seed-004-*` presets' result); null
   * when nothing was committed.
   */
  outcome: CompactionOutcome | null;
}

/** How many recent lifecycle events a check reads to learn whether this turn rehydrated. */
export const REHYDRATION_LOOKBACK_EVENTS = 200;

/**
 * The budget a thread's policy implies, for the worker's target (the runtime renders with its own).
 *
 * @param thread - The folded thread (its context window and policy).
 * @param overhead - Estimated system prompt and tool schema tokens; missing figures count as 0.
 * @returns The token budget.
 */
export function threadBudget(
  thread: Thread,
  overhead: CompactionEngineOptions['overhead'] = {},
  softThresholdPercent: number = thread.policy.softThresholdPercent,
): TokenBudget {
  const policy = thread.policy;
  return tokenBudget({
    maxInputTokens: thread.contextWindow,
    softThresholdPercent,
    systemPromptTokens: overhead.systemPromptTokens ?? 0,
    toolSchemaTokens: overhead.toolSchemaTokens ?? 0,
    safetyBufferTokens: policy.safetyBufferTokens,
    outputReserveTokens: policy.outputReserveTokens,
    rehydrationReserveTokens: policy.rehydrationReserveTokens,
  });
}

/**
 * What the planner's target leaves room for beside the messages: the caller's system prompt and tools
 * (`base`) and Compactor's own tools, which are in every request from the start (ADR-0141).
 *
 * @param thread - The thread (its policy).
 * @param tokenizer - Counts the tool definitions.
 * @param provider - Whose tool format is counted.
 * @param base - The caller's system prompt and tool tokens (registered, else the deployment's estimate).
 * @returns The overhead `threadBudget` takes.
 */
export function plannerOverhead(
  thread: Thread,
  tokenizer: Tokenizer,
  provider: ProviderName,
  base: CompactionEngineOptions['overhead'] = {},
): NonNullable<CompactionEngineOptions['overhead']> {
  const toolSchemaTokens =
    (base.toolSchemaTokens ?? 0) + compactorToolsTokens(thread.policy, tokenizer, provider);
  return { ...base, toolSchemaTokens };
}

/**
 * The planner's target for a thread, as a check computes it: what the budget leaves for messages
 * beside `plannerOverhead`. The summary budget is a share of it (`summaryBudgetFor`), so whoever holds
 * a plan's summaries to their budget (the eval, ADR-0260) starts from this figure, not from a budget
 * without Compactor's tools.
 *
 * @param thread - The thread.
 * @param tokenizer - Its tokenizer.
 * @param provider - The provider whose format is counted.
 * @param base - The caller's system prompt and tool tokens, when any.
 * @returns Message tokens the planner compacts to.
 */
export function plannerTargetTokens(
  thread: Thread,
  tokenizer: Tokenizer,
  provider: ProviderName,
  base?: CompactionEngineOptions['overhead'],
): number {
  return availableForMessages(threadBudget(thread, plannerOverhead(thread, tokenizer, provider, base)));
}

/**
 * Where the `target` trigger fires (ADR-0151): with the cache cost model on, the messages may grow to
 * `highWaterPercent` of the window (computed as the target is, never below it) before a compaction
 * brings them to the target or deeper; with it off, at the target.
 *
 * @param thread - The thread (its policy and window).
 * @param overhead - System prompt and tool tokens.
 * @param targetTokens - The planner's target.
 * @returns Message tokens at which the target trigger fires.
 */
export function highWaterFor(
  thread: Thread,
  overhead: CompactionEngineOptions['overhead'],
  targetTokens: number,
): number {
  const percent = triggerThresholdPercent(thread.policy);
  if (percent === thread.policy.softThresholdPercent) return targetTokens;
  return Math.max(targetTokens, availableForMessages(threadBudget(thread, overhead, percent)));
}

/**
 * The compaction service: load the thread and its current plan, evaluate the thread's trigger,
 * run the planner, and commit with the plan version it started from. Two engines racing on one
 * thread commit exactly one plan; the loser reports `lost_race` and commits nothing.
 *
 * @param options - Stores, summarizer, clock and defaults.
 * @returns An engine whose `check(tenantId, threadId, options?)` and `compactThread(tenantId, threadId, manual?)`
 *   resolve to a {@link CheckResult}, and reject with `NotFoundError` for a thread with no events.
 */
export function createCompactionEngine(options: CompactionEngineOptions) {
  const provider = options.provider ?? 'anthropic';
  const logger = options.logger ?? noopLogger;
  const renderCache = createRenderCache();
  const folds = options.folds ?? new ThreadFoldCache();
  // What the trigger counts, per plan object, extended as the thread grows: lives as long as the
  // store keeps handing out that plan (the embedded store hands out one object per version).
  const triggerViews = new WeakMap<CompactionPlan, TriggerView>();
  const triggerMessages = (thread: Thread, plan: CompactionPlan | null) => {
    if (!plan) return extendTriggerView(undefined, thread.messages, null).messages;
    const view = extendTriggerView(triggerViews.get(plan), thread.messages, plan);
    triggerViews.set(plan, view);
    return view.messages;
  };
  const threadTokenizers = createThreadTokenizers();
  const tokenizerFor = options.tokenizerFor ?? ((thread: Thread) => threadTokenizers.forThread(thread));

  async function check(
    tenantId: string,
    threadId: string,
    checkOptions: CheckOptions = {},
  ): Promise<CheckResult> {
    // The plan first: the fold keeps what it hides in compact form (ADR-0285). The log only grows,
    // so a fold read after the plan covers every message the plan names.
    const current = await options.plans.getCurrent(tenantId, threadId);
    const fold = await folds.loadFold(options.events, tenantId, threadId, current.plan);
    const { thread, service } = fold;
    await recordMissingPlanVersions(tenantId, threadId, service.loggedPlanVersions, current.version);
    const tokenizer = tokenizerFor(thread);
    const measurer = createRenderMeasurer(thread, tokenizer, provider, renderCache);
    const messageTokens = measurer.measure(current.plan);
    const manual = checkOptions.manual;
    const registered = service.registered;
    // Compactor's own tools are in every request from the start (ADR-0141): the target leaves them room.
    const baseOverhead = registered
      ? {
          systemPromptTokens: registered.system === '' ? 0 : tokenizer.count(registered.system),
          toolSchemaTokens: tokenizer.countTools(registered.tools, provider),
        }
      : options.overhead;
    const overhead = plannerOverhead(thread, tokenizer, provider, baseOverhead);
    const targetTokens = availableForMessages(threadBudget(thread, overhead));
    const highWaterTokens = highWaterFor(thread, overhead, targetTokens);
    const automatic: TriggerDecision =
      options.autoCompact === false
        ? {
            fire: false,
            trigger: 'deployment',
            reason: 'automatic compaction is switched off for this deployment',
          }
        : buildTrigger(thread.policy.trigger).evaluate({
            messages: triggerMessages(thread, current.plan),
            messageTokens,
            contextWindow: thread.contextWindow,
            // The target trigger fires at the high-water mark; the planner compacts to the target or deeper (ADR-0151).
            targetTokens: highWaterTokens,
          });
    // Under the append placement a recall block left out by the growing messages breaks the prefix
    // anyway: commit then, once, rather than a few calls later again (ADR-0361).
    const recallFired =
      automatic.fire || options.autoCompact === false || manual
        ? undefined
        : recallBlocksTrigger({
            thread,
            plan: current.plan,
            tokenizer,
            provider,
            cache: renderCache,
            overheadTokens: (baseOverhead?.systemPromptTokens ?? 0) + (baseOverhead?.toolSchemaTokens ?? 0),
            messageTokens,
            floorTokens: Math.floor(targetTokens * thread.policy.lowWaterPercent),
            highWaterTokens,
          });
    // On a dialogue, a picture whose turn is over is abridged while it is near the end (ADR-0440).
    const media =
      automatic.fire || recallFired || options.autoCompact === false || manual
        ? undefined
        : mediaPastTurnTrigger({
            thread,
            plan: current.plan,
            messageTokens,
            highWaterTokens,
            targetTokens,
            measure: measurer.measure,
            countMessage: measurer.countMessage,
          });
    // A request always runs; the thread's own trigger still says whether to act within the target.
    const trigger = manual
      ? { fire: true, trigger: 'manual', reason: 'compaction was requested', children: [automatic] }
      : (recallFired ?? media?.decision ?? automatic);
    const base = {
      tenantId,
      threadId,
      threadVersion: thread.version,
      planVersionBefore: current.version,
      trigger,
    };
    // Whether automatic compaction is on is the planner's to say (it answers `disabled`).
    if (!trigger.fire) {
      return { ...base, planner: null, commit: { status: 'not_needed' }, compressionRatio: 1, outcome: null };
    }
    // A trigger that fires within the target compacts once per thread version (ADR-0105): with
    // nothing appended since the last plan, compacting again would erode the prompt check by check.
    // Service records (a logged plan commit, a registration) are not news to the conversation.
    if (
      !manual &&
      messageTokens <= targetTokens &&
      (current.plan?.basedOnSeq ?? -1) >= service.lastConversationSeq
    ) {
      return { ...base, planner: null, commit: { status: 'not_needed' }, compressionRatio: 1, outcome: null };
    }
    const failures: unknown[] = [];
    // Read only when the planner will run: a check whose trigger does not fire costs no lifecycle read.
    const rehydrationHappened =
      checkOptions.rehydrationHappened ?? (await rehydratedThisTurn(tenantId, threadId, thread));
    const verified = options.determinismHooks
      ? await captureCurrentDeterminism(thread, options.determinismHooks, logger)
      : undefined;
    const planner = await planWithPolicy({
      onSummarizationFailure: ({ error }) => failures.push(error),
      // The media commit is the abridge rung's alone, down to what the abridgements leave.
      thread: media ? { ...thread, policy: abridgeOnly(thread.policy) } : thread,
      currentPlan: current.plan,
      targetTokens: media?.targetTokens ?? targetTokens,
      highWaterTokens,
      measure: measurer.measure,
      countMessage: measurer.countMessage,
      countText: measurer.countText,
      summarizer: options.summarizer,
      now: options.clock.now().toISOString(),
      logger,
      ...(options.artifacts ? { artifactStore: options.artifacts } : {}),
      ...(options.lifecycle ? { lifecycle: options.lifecycle } : {}),
      ...(manual ? { manual } : {}),
      ...(automatic.fire || recallFired || media ? { triggerFired: true } : {}),
      triggerReason: trigger.reason,
      ...(rehydrationHappened ? { rehydrationHappened: true } : {}),
      ...(checkOptions.signal ? { signal: checkOptions.signal } : {}),
      ...(verified ? { currentDeterminism: verified.currentDeterminism } : {}),
      ...(options.artifactDefaults ? { artifactDefaults: options.artifactDefaults } : {}),
    });
    for (const error of failures) await reportSummarizationFailure(tenantId, threadId, planner, error);
    const compressionRatio = planner.tokensAfter > 0 ? planner.tokensBefore / planner.tokensAfter : 1;
    const freed = planner.tokensBefore - planner.tokensAfter;
    const withReport = verified ? { determinism: verified.report } : {};
    // A plan that frees nothing is never committed automatically, whatever fired: no compaction loops.
    if (planner.added.length === 0 || (freed <= 0 && !manual))
      return {
        ...base,
        ...withReport,
        planner,
        commit: { status: 'not_needed' },
        compressionRatio,
        outcome: null,
      };
    // A plan that misses its target and frees little is not worth a new prompt prefix: every commit
    // invalidates the runtime's prompt cache. The renderer's emergency fit covers the gap meanwhile.
    if (planner.status === 'target_unreachable' && freed < thread.policy.clearAtLeastTokens && !manual) {
      logger.info({ tenantId, threadId, freed }, 'compaction freed too little to commit');
      return {
        ...base,
        ...withReport,
        planner,
        commit: { status: 'not_needed' },
        compressionRatio,
        outcome: null,
      };
    }
    const commit = await options.plans.commit(tenantId, threadId, planner.plan, current.version);
    if (!commit.committed) {
      logger.info(
        { tenantId, threadId, expected: current.version, current: commit.currentVersion },
        'another worker committed first',
      );
      return {
        ...base,
        ...withReport,
        planner,
        commit: { status: 'lost_race', currentVersion: commit.currentVersion },
        compressionRatio,
        outcome: null,
      };
    }
    await recordPlanCommitted(tenantId, threadId, planner.plan, commit.version);
    logger.info(
      {
        tenantId,
        threadId,
        version: commit.version,
        tokensBefore: planner.tokensBefore,
        tokensAfter: planner.tokensAfter,
        status: planner.status,
      },
      'compaction plan committed',
    );
    const outcome = compactionOutcome(thread.messages, current.plan, planner.plan, {
      before: planner.tokensBefore,
      after: planner.tokensAfter,
    });
    const strategy =
      thread.policy.mode.kind === 'ladder' ? planner.rungsUsed.join(',') : thread.policy.mode.kind;
    await reportCommitted(tenantId, threadId, {
      planner,
      planVersion: commit.version,
      outcome,
      strategy,
      manual: manual !== undefined,
      triggerReason: trigger.reason,
    });
    return {
      ...base,
      ...withReport,
      planner,
      commit: { status: 'committed', version: commit.version },
      compressionRatio,
      outcome,
    };
  }

  /**
   * Append the won commit to the thread's log (ADR-0190). Only after the compare-and-set won, so a
   * lost race appends nothing; the event id is the plan version's, so a retry stores it once. A
   * failed append loses nothing: the next check finds the version missing and appends it then.
   */
  async function recordPlanCommitted(
    tenantId: string,
    threadId: string,
    plan: CompactionPlan,
    version: number,
  ): Promise<void> {
    try {
      await options.events.append(tenantId, threadId, [
        planCommittedEvent(plan, version, options.clock.now().toISOString()),
      ]);
    } catch (error) {
      logger.warn(
        { err: error, tenantId, threadId, version },
        'could not log the plan commit; the next check will',
      );
    }
  }

  /** Plan versions committed but not in the log yet (a failed append, or a thread older than ADR-0190). */
  async function recordMissingPlanVersions(
    tenantId: string,
    threadId: string,
    loggedPlanVersions: ReadonlySet<number>,
    currentVersion: number,
  ): Promise<void> {
    for (const version of planVersionsMissing(loggedPlanVersions, currentVersion)) {
      const plan = await options.plans.getVersion(tenantId, threadId, version);
      if (plan) await recordPlanCommitted(tenantId, threadId, plan, version);
    }
  }

  /** Whether the prompt route recorded a rehydration in the thread's current turn (ADR-0191). */
  async function rehydratedThisTurn(tenantId: string, threadId: string, thread: Thread): Promise<boolean> {
    const turn = thread.messages.at(-1)?.turn;
    if (!options.lifecycle || turn === undefined) return false;
    try {
      const recent = await options.lifecycle.list(tenantId, threadId, { limit: REHYDRATION_LOOKBACK_EVENTS });
      return rehydrationHappenedInTurn(recent, turn);
    } catch (error) {
      logger.warn(
        { err: error, tenantId, threadId },
        'could not read rehydrations; planning as if none happened',
      );
      return false;
    }
  }

  /** The user is told a compaction happened (ADR-0183): one lifecycle event per committed plan. */
  async function reportCommitted(
    tenantId: string,
    threadId: string,
    committed: {
      planner: PlannerOutcome;
      planVersion: number;
      outcome: CompactionOutcome;
      strategy: string;
      manual: boolean;
      triggerReason: string;
    },
  ): Promise<void> {
    const { planner, planVersion, outcome, manual } = committed;
    await options.lifecycle
      ?.append({
        tenantId,
        threadId,
        name: 'compaction_committed',
        at: options.clock.now().toISOString(),
        tokensBefore: planner.tokensBefore,
        tokensAfter: planner.tokensAfter,
        tokensFreed: outcome.tokensSaved,
        strategy: committed.strategy,
        details: {
          planVersion,
          trigger: manual ? 'manual' : 'automatic',
          triggerReason: committed.triggerReason,
          archivedMessages: outcome.archivedMessageIds.length,
          keptMessages: outcome.keptMessageIds.length,
        },
      })
      .catch((appendError: unknown) =>
        logger.warn({ err: appendError, tenantId, threadId }, 'could not record the committed compaction'),
      );
  }

  async function reportSummarizationFailure(
    tenantId: string,
    threadId: string,
    planner: PlannerOutcome,
    error: unknown,
  ): Promise<void> {
    options.onSummarizationFailure?.({ tenantId, threadId, error });
    await options.lifecycle
      ?.append({
        tenantId,
        threadId,
        name: 'compaction_failed',
        at: options.clock.now().toISOString(),
        tokensBefore: planner.tokensBefore,
        strategy: 'recursive-summarization',
        details: { error: error instanceof Error ? error.message : String(error) },
      })
      .catch((appendError: unknown) =>
        logger.warn({ err: appendError, tenantId, threadId }, 'could not record the summarization failure'),
      );
  }

  return {
    check,
    /** The byte bounds of the caches this engine keeps (render memo, folded threads), summed: part of a server's heap budget (ADR-0425). */
    cacheMaxBytes: renderCache.stats.maxBytes + folds.stats.maxBytes,
    /**
     * Manual compaction (`/compact [instructions]`): compacts over the target, or within it when the
     * thread's trigger fires (ADR-0105); `force` compacts even when neither holds.
     */
    async compactThread(
      tenantId: string,
      threadId: string,
      manual: { instructions?: string; force?: boolean } = {},
    ): Promise<CheckResult> {
      const result = await check(tenantId, threadId, { manual });
      // Instructions only steer a summary; when nothing was compacted the caller must hear they went unused.
      if (manual.instructions && result.planner?.status === 'unchanged') {
        const reason = `${result.planner.reason}; the instructions were not used`;
        return { ...result, planner: { ...result.planner, reason } };
      }
      return result;
    },
  };
}

/** The engine {@link createCompactionEngine} returns. */
export type CompactionEngine = ReturnType<typeof createCompactionEngine>;
