import { normalizePlan } from '../plan/normalize.js';
import type { CompactionPlan } from '../plan/plan.js';
import type { DropRecord } from '../plan/records.js';
import { spanOf } from '../plan/span.js';
import { isTurnStart, type Thread, type ThreadMessage } from '../thread/thread.js';
import { buildToolPairIndex, closeOverToolPairs } from '../thread/tool-pairs.js';

/** What every deterministic mode (ADR-0011) needs besides the thread and its own setting. */
export interface DeterministicStrategyOptions {
  /** Tokens of one message as the renderer counts it. */
  countTokens: (message: ThreadMessage) => number;
  /** The plan to build on; its summaries and externalizations count as synthetic summaries. */
  basePlan: CompactionPlan;
  /** ISO timestamp for the new plan (core has no clock). */
  now: string;
}

/** A deterministic mode's plan, and which messages it archived and kept. */
export interface DeterministicStrategyResult {
  plan: CompactionPlan;
  /** Messages the window dropped. */
  archivedIds: string[];
  /** Messages the window kept. */
  keptIds: string[];
  /**
   * Messages always kept whatever the window: synthetic, system or pinned (with the other half of
   * their tool calls), or already summarized or externalized by the base plan.
   */
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
  const visible = thread.messages.filter((message) => normalized.actions.get(message.id)?.action !== 'drop');
  // A message kept verbatim keeps the other half of its tool calls, or the prompt would hold an orphan.
  const keptVerbatim = closeOverToolPairs(
    visible
      .filter((message) => message.synthetic === true || message.pinned === true || message.role === 'system')
      .map((message) => message.id),
    buildToolPairIndex(thread.messages),
  );
  const real: ThreadMessage[] = [];
  const preserved: ThreadMessage[] = [];
  for (const message of visible) {
    const action = normalized.actions.get(message.id)?.action;
    const alwaysKept = keptVerbatim.has(message.id) || action === 'summarize' || action === 'externalize';
    (alwaysKept ? preserved : real).push(message);
  }
  return { real, preserved };
}

/**
 * Move a cut (index into `real`) forward until the kept suffix starts at a turn start and no
 * archived message shares a tool call with a kept one. `keptOutside` are the messages kept
 * whatever the window: when one of them starts a turn (a pinned user message), the window may
 * start with the rest of that turn.
 */
export function safeCut(
  real: readonly ThreadMessage[],
  rawCut: number,
  allMessages: readonly ThreadMessage[],
  keptOutside: readonly ThreadMessage[] = [],
): number {
  const pairs = buildToolPairIndex(allMessages);
  const turnsStartedOutside = new Set(
    keptOutside.filter((message) => isTurnStart(message)).map((message) => message.turn),
  );
  let cut = nextTurnStart(real, rawCut, turnsStartedOutside);
  while (cut < real.length) {
    const archived = real.slice(0, cut).map((message) => message.id);
    const closure = closeOverToolPairs(archived, pairs);
    const kept = new Set(real.slice(cut).map((message) => message.id));
    if (![...closure].some((id) => kept.has(id))) break;
    cut = nextTurnStart(real, cut + 1, turnsStartedOutside);
  }
  return cut;
}

function nextTurnStart(
  real: readonly ThreadMessage[],
  from: number,
  turnsStartedOutside: ReadonlySet<number>,
): number {
  let cut = Math.max(0, from);
  while (cut < real.length && !startsWindow(real, cut, turnsStartedOutside)) cut += 1;
  return cut;
}

function startsWindow(
  real: readonly ThreadMessage[],
  index: number,
  turnsStartedOutside: ReadonlySet<number>,
): boolean {
  const message = real[index]!;
  if (isTurnStart(message)) return true;
  return turnsStartedOutside.has(message.turn) && real[index - 1]?.turn !== message.turn;
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
