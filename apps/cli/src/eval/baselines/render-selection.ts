import {
  type CompactionPlan,
  type ProviderName,
  type Thread,
  type ThreadMessage,
  type Tokenizer,
  tokenBudget,
} from '@compactor/core';
import { renderPromptSync } from '@compactor/render';
import type { BaselineInput, BaselineOutput } from './baseline.js';

/** What every baseline here returns: the fixed interface plus what happened on the way (for the report). */
export interface BaselineResult extends BaselineOutput {
  /** Tokens of the request by the independent count (`countRequest` when the tokenizer has it). */
  requestTokens: number;
  /** Renderer repairs (orphans, pending calls) and anything else worth a line in the report. */
  notes: string[];
}

export interface MeasuredRender {
  request: unknown;
  tokens: number;
  warnings: string[];
}

/**
 * No emergency fit ever: a baseline's request holds exactly what the baseline chose, so the
 * ceiling is enforced by the baseline and checked by the independent count, not by our renderer.
 */
const UNBOUNDED = tokenBudget({
  maxInputTokens: Number.MAX_SAFE_INTEGER,
  safetyBufferTokens: 0,
  rehydrationReserveTokens: 0,
});

type RequestCounter = (request: unknown, provider: ProviderName) => number;

/** The tokenizer's independent request count, when it can count whole requests. */
function requestCounter(tokenizer: Tokenizer): RequestCounter | undefined {
  const count = tokenizer.countRequest;
  if (!count) return undefined;
  return (request, provider) => count.call(tokenizer, request, provider);
}

/** Render thread + plan for the provider with nothing cut, and count the request independently. */
export function renderMeasured(
  input: BaselineInput,
  thread: Thread,
  plan: CompactionPlan | null,
): MeasuredRender {
  const rendered = renderPromptSync({
    thread,
    plan,
    system: input.system,
    tools: [],
    budget: UNBOUNDED,
    provider: input.provider,
    tokenizer: input.tokenizer,
    promptCaching: false,
    recall: false,
    // A baseline sends only what it chose: none of Compactor's own tools (ADR-0141).
    addReadArtifactTool: false,
  });
  const count = requestCounter(input.tokenizer);
  return {
    request: rendered.request,
    tokens: count ? count(rendered.request, input.provider) : rendered.tokens.total,
    warnings: rendered.report.warnings,
  };
}

/** Render only `messages` (a selection of the thread, possibly with edited content), nothing compacted. */
export function renderSelection(input: BaselineInput, messages: readonly ThreadMessage[]): MeasuredRender {
  const thread: Thread = {
    ...input.thread,
    messages: messages.map((message, index) => ({ ...message, index })),
  };
  return renderMeasured(input, thread, null);
}

/** Tokens of one message as the renderer counts it: what every baseline's own budget uses. */
export function messageCounter(input: BaselineInput): (message: ThreadMessage) => number {
  const cache = new Map<string, number>();
  return (message) => {
    let tokens = cache.get(message.id);
    if (tokens === undefined) {
      tokens = input.tokenizer.countMessage(message, input.provider);
      cache.set(message.id, tokens);
    }
    return tokens;
  };
}

export function resultOf(
  measured: MeasuredRender,
  keptMessageIds: string[],
  extraNotes: string[] = [],
  sent?: ThreadMessage[],
): BaselineResult {
  const notes = [...extraNotes];
  if (measured.warnings.length > 0) {
    notes.push(`renderer repaired ${measured.warnings.length} problem(s): ${measured.warnings.join('; ')}`);
  }
  return {
    request: measured.request,
    keptMessageIds,
    requestTokens: measured.tokens,
    notes,
    ...(sent ? { sent } : {}),
  };
}
