import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  type CompactionPlan,
  type CompactionPolicy,
  type CompactionRecordKind,
  type EventInput,
  foldThread,
  type Logger,
  noopLogger,
  type ProviderName,
  type Summarizer,
  systemClock,
  type Thread,
  tokenBudget,
} from '@compactor/core';
import { createEmbeddedStores } from '@compactor/embedded';
import { createCompactionEngine } from '@compactor/engine';
import { type ImportedTranscript, type ImportOptions, importTranscriptFile } from '@compactor/importers';
import { RenderBudgetExceededError, type RenderReport, renderPromptSync } from '@compactor/render';
import { createResilientSummarizer } from '@compactor/summarizer';
import { createTokenizer, type ProviderTokenizer, resolveModelInfo } from '@compactor/tokenizer';
import { unboundedRender } from './unbounded-tokens.js';

/** What to replay and how. */
export interface ReplayOptions {
  file: string;
  /** @defaultValue detected from the file */
  format?: ImportOptions['format'];
  /** 0-based conversation index in multi-conversation files. */
  conversation?: number;
  /** @defaultValue the transcript's model */
  model?: string;
  /** The context window the conversation must fit (default: the model's own; ADR-0082). */
  window?: number;
  /** @defaultValue {@link providerForModel} of the model */
  provider?: ProviderName;
  /** Keep the embedded store here; default a temporary directory removed afterwards. */
  dataDir?: string;
  /** @defaultValue `'local'` */
  tenantId?: string;
  /** System prompt of the final render. @defaultValue `''` */
  system?: string;
  /** @defaultValue the extractive summarizer behind the fallback chain */
  summarizer?: Summarizer;
  /** Thread policy fields to apply on top of the imported thread's (e.g. from `compactor eval --policy`). */
  policy?: Partial<CompactionPolicy>;
  /**
   * The workers' debounce, replayed: a compaction check runs once this many tokens have been
   * appended since the last one (default 1% of the window), and after the last event.
   */
  checkEveryTokens?: number;
  /** Told after each event appended. */
  onProgress?: (done: number, total: number) => void;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
  /** Rewrites the imported events before the replay (the eval's images-as-captions mode, planted needles). */
  mapEvents?: (events: EventInput[]) => EventInput[];
}

export type StrategyCounts = Record<CompactionRecordKind, number>;

/** What a replay did, figure by figure. */
export interface ReplayReport {
  file: string;
  format: string;
  /** Which conversation of the file, 1 = the first (as `--conversation` counts). */
  conversation: number;
  conversationCount: number;
  threadId: string;
  /** The summarizer that ran (its id), or `server` when replayed through a running ingest. */
  summarizer: string;
  model: string;
  provider: ProviderName;
  contextWindow: number;
  events: number;
  messages: number;
  userTurns: number;
  /** The whole transcript rendered as one prompt, no compaction. */
  tokensBefore: number;
  /** The final rendered prompt (system, tools, formatting, messages). */
  tokensAfter: number;
  /** The renderer's hard ceiling for the final prompt. */
  ceiling: number;
  checks: number;
  compactions: number;
  lostRaces: number;
  unreachable: number;
  planVersion: number;
  /** Records in the final plan, by strategy. */
  recordsByStrategy: StrategyCounts;
  /** Records added over all compactions, by strategy (chained summaries replace earlier ones). */
  recordsAddedByStrategy: StrategyCounts;
  summarizerCalls: number;
  summarizerCostUsd: number;
  emergencyFit: boolean;
  elapsedMs: number;
  importWarnings: string[];
  /** Set when even the protected tail does not fit the budget. */
  renderError?: string;
}

/** A replay's report, final request and imported transcript. */
export interface ReplayResult {
  report: ReplayReport;
  /** The final rendered request (what `--out` writes). */
  request: unknown;
  imported: ImportedTranscript;
}

/** What a local replay also knows (a replay through a server does not see the store). */
export interface LocalReplayResult extends ReplayResult {
  /** The thread as folded from the store at the end, and the plan it was rendered under. */
  thread: Thread;
  plan: CompactionPlan | null;
  /** The tokenizer every count of the replay used. */
  tokenizer: ProviderTokenizer;
  /** The final render's report (null when the render failed). */
  renderReport: RenderReport | null;
  /**
   * Every plan the replay committed, in order, with the number of messages the thread had when it
   * was committed: a render of the first `fromMessages` or more messages uses it until the next one
   * (the eval's prompt-cache replay renders before every assistant message with the plan current then).
   */
  planHistory: Array<{ fromMessages: number; plan: CompactionPlan }>;
}

const noStrategies = (): StrategyCounts => ({ abridge: 0, externalize: 0, summarize: 0, clear: 0, drop: 0 });

/**
 * The wire format a model's prompts are rendered in.
 *
 * @param model - The model id.
 * @returns `anthropic` for Anthropic models and unknown ones, `openai-chat` for OpenAI's, else `ai-sdk`.
 */
export function providerForModel(model: string): ProviderName {
  try {
    const provider = resolveModelInfo(model).provider;
    return provider === 'anthropic' ? 'anthropic' : provider === 'openai' ? 'openai-chat' : 'ai-sdk';
  } catch {
    return 'anthropic';
  }
}

/**
 * Replay a transcript through a fresh embedded store event by event, letting compaction run as
 * the workers would (a debounced check as the conversation grows), then render the final prompt.
 *
 * @param options - The transcript and how to replay it.
 * @returns The report, the final request, the folded thread, its plan and the tokenizer.
 */
export async function replayTranscript(options: ReplayOptions): Promise<LocalReplayResult> {
  const started = performance.now();
  const logger = options.logger ?? noopLogger;
  const imported = await importTranscriptFile(options.file, {
    ...(options.format ? { format: options.format } : {}),
    ...(options.conversation !== undefined ? { conversation: options.conversation } : {}),
    ...(options.model ? { model: options.model } : {}),
  });
  const model = options.model ?? imported.model;
  const known = (() => {
    try {
      return resolveModelInfo(model);
    } catch {
      return undefined;
    }
  })();
  const contextWindow = options.window ?? known?.contextWindow ?? imported.contextWindow;
  const tokenizer = createTokenizer({
    model,
    modelInfo: known
      ? {}
      : { contextWindow, maxOutputTokens: Math.min(16_384, contextWindow), tokenizerFamily: 'o200k_base' },
  });
  const provider = options.provider ?? providerForModel(model);
  const tenantId = options.tenantId ?? 'local';
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'compactor-replay-')));
  const stores = await createEmbeddedStores({ dataDir, logger });
  const summarizer = options.summarizer ?? createResilientSummarizer({ logger });
  const engine = createCompactionEngine({
    events: stores.events,
    plans: stores.plans,
    artifacts: stores.artifacts,
    lifecycle: stores.lifecycle,
    summarizer,
    clock: systemClock,
    logger,
    provider,
    tokenizerFor: () => tokenizer,
  });
  const threadId = imported.threadId;
  const checkEvery = options.checkEveryTokens ?? Math.max(1, Math.floor(contextWindow * 0.01));
  const report: ReplayReport = {
    file: options.file,
    format: imported.format,
    conversation: imported.conversationIndex + 1,
    conversationCount: imported.conversationCount,
    threadId,
    summarizer: summarizer.id,
    model,
    provider,
    contextWindow,
    events: 0,
    messages: 0,
    userTurns: 0,
    tokensBefore: 0,
    tokensAfter: 0,
    ceiling: 0,
    checks: 0,
    compactions: 0,
    lostRaces: 0,
    unreachable: 0,
    planVersion: 0,
    recordsByStrategy: noStrategies(),
    recordsAddedByStrategy: noStrategies(),
    summarizerCalls: 0,
    summarizerCostUsd: 0,
    emergencyFit: false,
    elapsedMs: 0,
    importWarnings: imported.warnings,
  };
  const planHistory: LocalReplayResult['planHistory'] = [];
  try {
    const check = async () => {
      const result = await engine.check(tenantId, threadId);
      report.checks += 1;
      if (!result.planner) return;
      report.summarizerCalls += result.planner.summarizerCalls;
      report.summarizerCostUsd += result.planner.summarizerCostUsd;
      if (result.planner.status === 'target_unreachable') report.unreachable += 1;
      if (result.commit.status === 'committed') {
        report.compactions += 1;
        const committed = (await stores.plans.getCurrent(tenantId, threadId)).plan;
        if (committed) planHistory.push({ fromMessages: report.messages, plan: committed });
        for (const record of result.planner.added) report.recordsAddedByStrategy[record.kind] += 1;
      } else if (result.commit.status === 'lost_race') report.lostRaces += 1;
    };
    const source = options.mapEvents ? options.mapEvents(imported.events) : imported.events;
    const events = source.map((event): EventInput => {
      if (event.type === 'thread.created')
        return {
          ...event,
          contextWindow,
          model,
          ...(options.policy ? { policy: { ...event.policy, ...options.policy } } : {}),
        };
      if (event.type === 'message.appended')
        return { ...event, tokens: tokenizer.countMessage(event.message, provider) };
      return event;
    });
    let sinceCheck = 0;
    for (const [index, event] of events.entries()) {
      await stores.events.append(tenantId, threadId, [event]);
      report.events += 1;
      if (event.type === 'message.appended') {
        report.messages += 1;
        sinceCheck += event.tokens ?? 0;
        if (sinceCheck >= checkEvery) {
          await check();
          sinceCheck = 0;
        }
      }
      options.onProgress?.(index + 1, events.length);
    }
    if (sinceCheck > 0 || report.checks === 0) await check();

    const thread = foldThread(await stores.events.readAll(tenantId, threadId));
    report.userTurns = thread.messages.at(-1)?.turn ?? 0;
    const current = await stores.plans.getCurrent(tenantId, threadId);
    report.planVersion = current.version;
    for (const record of [
      ...(current.plan?.externalizations ?? []),
      ...(current.plan?.summarizations ?? []),
      ...(current.plan?.clearings ?? []),
      ...(current.plan?.drops ?? []),
      ...(current.plan?.abridgements ?? []),
    ]) {
      report.recordsByStrategy[record.kind] += 1;
    }
    const system = options.system ?? '';
    report.tokensBefore = unboundedRender(thread, null, provider, tokenizer, system).tokens.total;
    let request: unknown = null;
    let renderReport: RenderReport | null = null;
    try {
      const rendered = renderPromptSync({
        thread,
        plan: current.plan,
        system,
        tools: [],
        budget: tokenBudget({
          maxInputTokens: contextWindow,
          outputReserveTokens: thread.policy.outputReserveTokens,
          safetyBufferTokens: thread.policy.safetyBufferTokens,
          rehydrationReserveTokens: thread.policy.rehydrationReserveTokens,
        }),
        provider,
        tokenizer,
      });
      request = rendered.request;
      renderReport = rendered.report;
      report.tokensAfter = rendered.tokens.total;
      report.ceiling = rendered.report.ceiling;
      report.emergencyFit = rendered.report.emergencyFit !== null;
    } catch (error) {
      if (!(error instanceof RenderBudgetExceededError)) throw error;
      report.renderError = error.message;
      report.ceiling = error.numbers.ceiling;
    }
    report.elapsedMs = Math.round(performance.now() - started);
    return { report, request, imported, thread, plan: current.plan, tokenizer, renderReport, planHistory };
  } finally {
    await stores.close();
    if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}
