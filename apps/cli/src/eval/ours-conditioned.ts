import {
  type CompactionPlan,
  type CompactionPolicy,
  type ProviderName,
  parsePolicy,
  policyForWindow,
  summaryBlockTokens,
  summaryBudgetFor,
  type Thread,
  type TokenBudget,
  threadKindOf,
  tokenBudget,
} from '@compactor/core';
import { plannerTargetTokens } from '@compactor/engine';
import {
  RenderBudgetExceededError,
  type RenderReport,
  renderCeiling,
  renderPromptSync,
} from '@compactor/render';
import type { ProviderTokenizer } from '@compactor/tokenizer';
import type { LocalReplayResult } from '../replay/replay-transcript.js';
import type {
  AskedRequest,
  ConditionedSystem,
  EmergencyFigures,
  PreparedSystem,
} from './conditioned-system.js';
import { withMessages } from './conditioned-system.js';

export const OURS = 'compactor';

/** The budget the workers' renderer uses for a thread (what `replayTranscript` renders with). */
export function renderBudgetFor(thread: Thread): TokenBudget {
  return tokenBudget({
    maxInputTokens: thread.contextWindow,
    outputReserveTokens: thread.policy.outputReserveTokens,
    safetyBufferTokens: thread.policy.safetyBufferTokens,
    rehydrationReserveTokens: thread.policy.rehydrationReserveTokens,
  });
}

/** The render ceiling of a window under `policy` (as the thread would fold it). */
export function ceilingForWindow(contextWindow: number, policy: Partial<CompactionPolicy> = {}): number {
  const scaled = policyForWindow(parsePolicy(policy), contextWindow);
  return renderCeiling(
    tokenBudget({
      maxInputTokens: contextWindow,
      outputReserveTokens: scaled.outputReserveTokens,
      safetyBufferTokens: scaled.safetyBufferTokens,
      rehydrationReserveTokens: scaled.rehydrationReserveTokens,
    }),
  );
}

/** The smallest context window whose render ceiling is at least `ceiling` (budgets stated as ceilings). */
export function windowForCeiling(ceiling: number, policy: Partial<CompactionPolicy> = {}): number {
  let low = ceiling;
  let high = ceiling * 4 + 20_000;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (ceilingForWindow(middle, policy) >= ceiling) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * A plan's summary blocks against their budget, as the planner holds them to it (ADR-0260): every
 * block as rendered (`summaryBlockTokens`, header lines included) against `summaryBudgetFor` of the
 * planner's own target (`plannerTargetTokens`: Compactor's tools counted, as a check counts them).
 * The budget is null when the plan has no summary.
 */
export function summaryAgainstBudget(
  thread: Thread,
  plan: CompactionPlan | null,
  tokenizer: ProviderTokenizer,
  provider: ProviderName,
): { summaryTokens: number; summaryBudget: number | null } {
  const summaries = plan?.summarizations ?? [];
  if (summaries.length === 0) return { summaryTokens: 0, summaryBudget: null };
  return {
    summaryTokens: summaryBlockTokens(summaries, (text) => tokenizer.count(text)),
    summaryBudget: summaryBudgetFor(
      thread.policy,
      plannerTargetTokens(thread, tokenizer, provider),
      threadKindOf(thread.messages),
    ),
  };
}

export function emergencyFigures(report: RenderReport): EmergencyFigures | null {
  const fit = report.emergencyFit;
  if (!fit) return null;
  const summaries = fit.dropped.filter((drop) => drop.kind === 'summary');
  return {
    overBy: fit.overBy,
    tokensFreed: fit.tokensFreed,
    droppedMessages: fit.dropped.filter((drop) => drop.kind === 'message').length,
    droppedSummaries: summaries.length,
    droppedSummaryTokens: summaries.reduce((sum, drop) => sum + drop.tokens, 0),
    trimmedSummaries: fit.trimmedSummaries.length,
    trimmedSummaryItems: fit.trimmedSummaries.reduce((sum, trim) => sum + trim.itemsDropped, 0),
    droppedExternalizations: fit.dropped.filter((drop) => drop.kind === 'externalization').length,
    clearedResults: fit.clearedResults.length,
    truncatedResults: fit.truncatedResults.length,
  };
}

/**
 * Our system as the workers run it: the replay (engine, debounced checks) already compacted the
 * history; each asked turn is appended to the thread and rendered under the same plan and budget,
 * so a turn the plan has not seen goes through the renderer's emergency fit if it must.
 */
export function oursConditioned(replay: LocalReplayResult): ConditionedSystem {
  return {
    name: OURS,
    source: '@compactor/engine (replayTranscript) + @compactor/render renderPromptSync',
    prepare: async () =>
      oursPrepared({
        thread: replay.thread,
        plan: replay.plan,
        tokenizer: replay.tokenizer,
        provider: replay.report.provider,
      }),
  };
}

export interface CompactedState {
  thread: Thread;
  plan: CompactionPlan | null;
  tokenizer: ProviderTokenizer;
  provider: ProviderName;
}

/** Ask turns of a compacted thread: each appended to the thread and rendered under its plan and budget. */
export function oursPrepared({ thread, plan, tokenizer, provider }: CompactedState): PreparedSystem {
  const budget = renderBudgetFor(thread);
  const { summaryTokens, summaryBudget } = summaryAgainstBudget(thread, plan, tokenizer, provider);
  const artifacts = new Map<string, Set<string>>(
    (plan?.externalizations ?? []).map((record) => [record.artifactId, new Set(record.span.messageIds)]),
  );
  return {
    ask(question): AskedRequest {
      try {
        const rendered = renderPromptSync({
          thread: withMessages(thread, thread.messages, question),
          plan,
          system: '',
          tools: [],
          budget,
          provider,
          tokenizer,
        });
        const emergency = emergencyFigures(rendered.report);
        return {
          request: rendered.request,
          tokens: rendered.tokens.total,
          artifacts,
          summaryTokens: summaryTokens - (emergency?.droppedSummaryTokens ?? 0),
          summaryBudget,
          recallTokens: rendered.tokens.rehydration + rendered.tokens.recall,
          emergency,
        };
      } catch (error) {
        if (!(error instanceof RenderBudgetExceededError)) throw error;
        return {
          request: null,
          tokens: 0,
          artifacts,
          summaryTokens: 0,
          summaryBudget: null,
          recallTokens: 0,
          emergency: null,
        };
      }
    },
  };
}
