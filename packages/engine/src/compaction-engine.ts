import {
  type ArtifactSensitivity,
  type ArtifactStore,
  availableForMessages,
  buildTrigger,
  type Clock,
  type EventStore,
  foldThread,
  type LifecycleEventLog,
  type Logger,
  messagesForTrigger,
  NotFoundError,
  noopLogger,
  type PlannerOutcome,
  type PlanStore,
  type ProviderName,
  planWithPolicy,
  type Summarizer,
  type Thread,
  type TokenBudget,
  type Tokenizer,
  type TriggerDecision,
  tokenBudget,
} from '@compactor/core';
import { createRenderCache } from '@compactor/render';
import { createThreadTokenizers } from '@compactor/tokenizer';
import { createRenderMeasurer } from './measure.js';

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
  /** What the runtime sends besides messages (system prompt, tool schemas), estimated. */
  overhead?: { systemPromptTokens?: number; toolSchemaTokens?: number };
  /** Sensitivity, time to live and key id given to artifacts the planner writes. */
  artifactDefaults?: { sensitivity?: ArtifactSensitivity; ttlSeconds?: number; encryptionKeyId?: string };
  /**
   * Called when recursive summarization gets no usable summary and leaves the history unchanged (the
   * session service's failure callback); a `compaction_failed` lifecycle event records it as well.
   */
  onSummarizationFailure?: (failure: SummarizationFailure) => void;
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
  /** Rehydration happened this turn: the planner skips externalize and drop (ADR-0008). */
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
}

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
  const policy = thread.policy;
  if (!policy.cacheCostModel || policy.highWaterPercent <= policy.softThresholdPercent) return targetTokens;
  return Math.max(
    targetTokens,
    availableForMessages(threadBudget(thread, overhead, policy.highWaterPercent)),
  );
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
  const threadTokenizers = createThreadTokenizers();
  const tokenizerFor = options.tokenizerFor ?? ((thread: Thread) => threadTokenizers.forThread(thread));

  async function check(
    tenantId: string,
    threadId: string,
    checkOptions: CheckOptions = {},
  ): Promise<CheckResult> {
    const events = await options.events.readAll(tenantId, threadId);
    if (events.length === 0) throw new NotFoundError('thread', threadId);
    const thread = foldThread(events);
    const current = await options.plans.getCurrent(tenantId, threadId);
    const measurer = createRenderMeasurer(thread, tokenizerFor(thread), provider, renderCache);
    const messageTokens = measurer.measure(current.plan);
    const manual = checkOptions.manual;
    const targetTokens = availableForMessages(threadBudget(thread, options.overhead));
    const highWaterTokens = highWaterFor(thread, options.overhead, targetTokens);
    const automatic = buildTrigger(thread.policy.trigger).evaluate({
      messages: messagesForTrigger(thread.messages, current.plan),
      messageTokens,
      contextWindow: thread.contextWindow,
      // The target trigger fires at the high-water mark; the planner compacts to the target or deeper (ADR-0151).
      targetTokens: highWaterTokens,
    });
    // A request always runs; the thread's own trigger still says whether to act within the target.
    const trigger = manual
      ? { fire: true, trigger: 'manual', reason: 'compaction was requested', children: [automatic] }
      : automatic;
    const base = {
      tenantId,
      threadId,
      threadVersion: thread.version,
      planVersionBefore: current.version,
      trigger,
    };
    // Whether automatic compaction is on is the planner's to say (it answers `disabled`).
    if (!trigger.fire) {
      return { ...base, planner: null, commit: { status: 'not_needed' }, compressionRatio: 1 };
    }
    // A trigger that fires within the target compacts once per thread version (ADR-0105): with
    // nothing appended since the last plan, compacting again would erode the prompt check by check.
    if (!manual && messageTokens <= targetTokens && (current.plan?.basedOnSeq ?? -1) >= thread.version) {
      return { ...base, planner: null, commit: { status: 'not_needed' }, compressionRatio: 1 };
    }
    const failures: unknown[] = [];
    const planner = await planWithPolicy({
      onSummarizationFailure: ({ error }) => failures.push(error),
      thread,
      currentPlan: current.plan,
      targetTokens,
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
      ...(automatic.fire ? { triggerFired: true } : {}),
      triggerReason: trigger.reason,
      ...(checkOptions.rehydrationHappened ? { rehydrationHappened: true } : {}),
      ...(checkOptions.signal ? { signal: checkOptions.signal } : {}),
      ...(options.artifactDefaults ? { artifactDefaults: options.artifactDefaults } : {}),
    });
    for (const error of failures) await reportSummarizationFailure(tenantId, threadId, planner, error);
    const compressionRatio = planner.tokensAfter > 0 ? planner.tokensBefore / planner.tokensAfter : 1;
    const freed = planner.tokensBefore - planner.tokensAfter;
    // A plan that frees nothing is never committed automatically, whatever fired: no compaction loops.
    if (planner.added.length === 0 || (freed <= 0 && !manual))
      return { ...base, planner, commit: { status: 'not_needed' }, compressionRatio };
    // A plan that misses its target and frees little is not worth a new prompt prefix: every commit
    // invalidates the runtime's prompt cache. The renderer's emergency fit covers the gap meanwhile.
    if (planner.status === 'target_unreachable' && freed < thread.policy.clearAtLeastTokens && !manual) {
      logger.info({ tenantId, threadId, freed }, 'compaction freed too little to commit');
      return { ...base, planner, commit: { status: 'not_needed' }, compressionRatio };
    }
    const commit = await options.plans.commit(tenantId, threadId, planner.plan, current.version);
    if (!commit.committed) {
      logger.info(
        { tenantId, threadId, expected: current.version, current: commit.currentVersion },
        'another worker committed first',
      );
      return {
        ...base,
        planner,
        commit: { status: 'lost_race', currentVersion: commit.currentVersion },
        compressionRatio,
      };
    }
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
    return { ...base, planner, commit: { status: 'committed', version: commit.version }, compressionRatio };
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
