import { normalizePlan } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { DropRecord } from '../plan/records.js';
import { spanOf } from '../plan/span.js';
import { isTurnStart, type Thread, type ThreadMessage } from '../thread/thread.js';
import { buildToolPairIndex, closeOverToolPairs } from '../thread/tool-pairs.js';

export interface DeterministicStrategyOptions {
  /** Tokens of one message as the renderer counts it. */
  countTokens: (message: ThreadMessage) => number;
  /** The plan to build on; its summaries and externalizations count as synthetic summaries. */
  basePlan: CompactionPlan;
  /** ISO timestamp for the new plan (core has no clock). */
  now: string;
}

export interface DeterministicStrategyResult {
  plan: CompactionPlan;
  archivedIds: string[];
  keptIds: string[];
  /** Messages always kept whatever the window: synthetic, system, pinned, or already summarized. */
  preservedIds: string[];
  tokensSaved: number;
}

export interface WindowInput {
  /** Messages the window may cut: real, visible, not pinned, in thread order. */
  real: ThreadMessage[];
  /** Messages kept outside the window. */
  preserved: ThreadMessage[];
}

/** Split the visible messages into the ones a window may cut and the ones it always keeps. */
export function partitionForWindow(thread: Thread, basePlan: CompactionPlan): WindowInput {
  const normalized = normalizePlan(basePlan);
  const real: ThreadMessage[] = [];
  const preserved: ThreadMessage[] = [];
  for (const message of thread.messages) {
    const action = normalized.actions.get(message.id)?.action;
    if (action === 'drop') continue;
    const alwaysKept =
      message.synthetic === true ||
      message.pinned === true ||
      message.role === 'system' ||
      action === 'summarize' ||
      action === 'externalize';
    (alwaysKept ? preserved : real).push(message);
  }
  return { real, preserved };
}

/**
 * Move a cut (index into `real`) forward until the kept suffix starts at a turn start and no
 * archived message shares a tool call with a kept one.
 */
export function safeCut(
  real: readonly ThreadMessage[],
  rawCut: number,
  allMessages: readonly ThreadMessage[],
): number {
  const pairs = buildToolPairIndex(allMessages);
  let cut = nextTurnStart(real, rawCut);
  while (cut < real.length) {
    const archived = real.slice(0, cut).map((message) => message.id);
    const closure = closeOverToolPairs(archived, pairs);
    const kept = new Set(real.slice(cut).map((message) => message.id));
    if (![...closure].some((id) => kept.has(id))) break;
    cut = nextTurnStart(real, cut + 1);
  }
  return cut;
}

function nextTurnStart(real: readonly ThreadMessage[], from: number): number {
  let cut = Math.max(0, from);
  while (cut < real.length && !isTurnStart(real[cut]!)) cut += 1;
  return cut;
}

/** Turn the archived messages into drop records (one per run of adjacent messages). */
export function buildWindowResult(
  thread: Thread,
  input: WindowInput,
  cut: number,
  reason: string,
  options: DeterministicStrategyOptions,
): DeterministicStrategyResult {
  const archived = input.real.slice(0, cut);
  const kept = input.real.slice(cut);
  const drops: DropRecord[] = [];
  let run: ThreadMessage[] = [];
  const flush = () => {
    if (run.length > 0) drops.push({ kind: 'drop', span: spanOf(run), reason });
    run = [];
  };
  for (const message of archived) {
    const previous = run.at(-1);
    if (previous && message.index !== previous.index + 1) flush();
    run.push(message);
  }
  flush();
  const plan: CompactionPlan = {
    ...options.basePlan,
    threadId: thread.id,
    basedOnSeq: thread.version,
    createdAt: options.now,
    drops: [...options.basePlan.drops, ...drops],
  };
  return {
    plan,
    archivedIds: archived.map((message) => message.id),
    keptIds: kept.map((message) => message.id),
    preservedIds: input.preserved.map((message) => message.id),
    tokensSaved: archived.reduce((total, message) => total + options.countTokens(message), 0),
  };
}
