import {
  abridgedMessage,
  abridgeRecordOf,
  type CompactionPolicy,
  type CurrentDeterminism,
  clearability,
  draftAbridgement,
  holdsOpaquePart,
  type SummarizationRecord,
  summaryText,
  trimSummaryToBudget,
} from '@compactor/core';
import type { PieceMaker } from '../plan/piece-maker.js';
import { envelopePlaceholder, type Slot } from '../plan/slots.js';
import { openingFor } from './conversation-opening.js';

/** A slot the emergency fit dropped: a message (with its results), a summary or a pointer. */
export interface EmergencyDrop {
  /** The log message the dropped slot stood at. */
  messageId: string;
  kind: 'message' | 'summary' | 'externalization';
  turn: number;
  /** Tokens the dropped slot held (a dropped summary's whole size). */
  tokens: number;
  /** Results that went with it. */
  resultMessageIds: string[];
}

/** A summary whose trimmable items an emergency fit cut before it would drop the summary whole. */
export interface TrimmedSummary {
  /** The log message the summary stands at. */
  messageId: string;
  fromTokens: number;
  toTokens: number;
  /** Summary items (facts, decisions, open items, tool outcomes, files…) left out. */
  itemsDropped: number;
}

/** What the emergency fit did, for the report: the worker should compact properly. */
export interface EmergencyFitReport {
  /** Tokens over the limit before the fit. */
  overBy: number;
  tokensFreed: number;
  clearedResults: { messageId: string; toolCallId: string; toolName: string }[];
  /** Messages whose media (and pastes) were replaced by their stand-ins, as the abridge rung would (ADR-0265). */
  abridgedMessages: string[];
  /**
   * What of the protected tail was cut to head and tail because even the newest exchange did not fit:
   * tool results, and harness-injected (synthetic) user messages such as shell output. A person's own
   * words are never cut.
   */
  truncatedResults: {
    kind: 'tool_result' | 'synthetic_message';
    messageId: string;
    toolCallId?: string;
    toolName?: string;
    fromTokens: number;
    toTokens: number;
  }[];
  dropped: EmergencyDrop[];
  /** Summaries cut to their guaranteed items before any would be dropped whole (ADR-0142). */
  trimmedSummaries: TrimmedSummary[];
  /**
   * The step of the grid that fit (1 = the first band cleared), which the next, longer render of the
   * thread repeats until it is over the ceiling again; null when the fit went past the grid (or only
   * cut the tail), where that promise does not hold (ADR-0142).
   */
  step: number | null;
}

export interface EmergencyFitInput {
  slots: Slot[];
  /** Tokens the conversation may use (ceiling − system − tools − formatting). */
  limit: number;
  /**
   * The planner's target for the conversation (at most `limit`): a fit cuts in chunks of
   * `limit − target` tokens (at least {@link MIN_CHUNK_SHARE} of the limit), so it comes back to about
   * the target and the next calls repeat its cut until the ceiling is exceeded again (ADR-0142).
   * @defaultValue `limit` (chunks of the minimum share)
   */
  target?: number;
  /** Counts summary text (a trimmed summary's budget). */
  countText: (text: string) => number;
  /** Index of the first protected slot; nothing from there on is touched. */
  tailStart: number;
  maker: PieceMaker;
  policy: CompactionPolicy;
  /** Replayable sources verified by the runtime's hooks (ADR-0193); absent, none is verified. */
  currentDeterminism?: CurrentDeterminism | undefined;
}

/**
 * Tokens of the live slots plus what opening the conversation validly costs.
 *
 * @param slots - The rendered slots; dropped ones are not counted.
 * @param maker - Formats and counts the opening a provider may need.
 * @returns The conversation's tokens.
 */
export function conversationTokens(slots: readonly Slot[], maker: PieceMaker): number {
  let total = 0;
  let first: Slot | undefined;
  for (const slot of slots) {
    if (slot.dropped) continue;
    first ??= slot;
    total += slot.tokens;
  }
  return total + openingFor(first, maker).extraTokens;
}

/** Bands of the grid that are cleared ahead of the drop cut (the rest before it is dropped). */
export const CLEARED_BANDS = 2;

/** The smallest chunk an emergency fit cuts, as a share of the conversation's limit. */
export const MIN_CHUNK_SHARE = 0.05;

/**
 * Deterministic last resort when the conversation is over its limit (a stale plan, a burst of
 * events), monotone and chunky (ADR-0142). Outside the protected tail, the slots are cut on a grid
 * fixed by the conversation's own content: boundaries spaced by at least one chunk (`limit − target`)
 * of droppable tokens, counted from the first slot, so appending never moves a boundary. Step k clears
 * the tool results core's `clearability` allows in the k-th band (a replayable result only when
 * `currentDeterminism` proves its source unchanged) and drops the non-essential slots
 * (with their results) of the bands more than {@link CLEARED_BANDS} before it; the fit takes the first
 * step that fits. A thread that
 * grows by one message therefore repeats the previous cut byte for byte until it is over the ceiling
 * again, and then the cut moves a whole chunk (back to about the planner's target). Past the grid
 * (everything outside the tail would have to go): clear every clearable result, drop every
 * non-essential slot, cut the summaries to their guaranteed items (`trimSummaryToBudget`, oldest
 * first), then drop essential slots (pinned and system messages, the user's own messages, plan
 * summaries) oldest first. Calls and results live in one slot, so nothing is ever orphaned. O(slots) with
 * cached counts. The caller has checked that the tail fits.
 */
export function emergencyFit({
  slots,
  limit,
  target,
  tailStart,
  maker,
  policy,
  currentDeterminism,
  countText,
}: EmergencyFitInput): EmergencyFitReport | undefined {
  let total = 0;
  for (const slot of slots) if (!slot.dropped) total += slot.tokens;
  let first = 0;
  const over = () => {
    while (first < slots.length && slots[first]!.dropped) first += 1;
    return total + openingFor(slots[first], maker).extraTokens - limit;
  };
  const overBy = over();
  if (overBy <= 0) return undefined;
  const startTotal = total;
  const report: EmergencyFitReport = {
    overBy,
    tokensFreed: 0,
    clearedResults: [],
    abridgedMessages: [],
    truncatedResults: [],
    dropped: [],
    trimmedSummaries: [],
    step: null,
  };
  const done = () => {
    report.tokensFreed = startTotal - total;
    // A result cleared in one step and dropped with its slot in a later one was dropped, not cleared.
    const droppedIds = new Set(report.dropped.flatMap((drop) => drop.resultMessageIds));
    report.clearedResults = report.clearedResults.filter((cleared) => !droppedIds.has(cleared.messageId));
    return report;
  };

  const clearSlot = (slot: Slot) => {
    if (slot.dropped) return;
    abridgeSlot(slot);
    for (const result of slot.results) abridgeResult(slot, result);
    for (const result of slot.results) {
      if (
        result.state !== 'raw' ||
        !result.part ||
        !clearability(result.part, policy.toolDurability, currentDeterminism)
      )
        continue;
      const placeholder = envelopePlaceholder(maker, result.part, result.exchange, policy);
      const saving = result.piece.tokens - placeholder.tokens;
      if (saving <= 0) continue;
      result.piece = placeholder;
      result.state = 'cleared';
      slot.tokens -= saving;
      total -= saving;
      report.clearedResults.push({
        messageId: result.message!.id,
        toolCallId: result.part.toolCallId,
        toolName: result.part.toolName,
      });
    }
  };
  // A message's images and pastes shrink in place, as the abridge rung would have (ADR-0265), before
  // anything is dropped: a stale plan or a question turn can leave an old picture at full price.
  const abridgeSlot = (slot: Slot) => {
    const message = slot.anchor;
    if (!policy.strategies.abridge || slot.kind !== 'message') return;
    if (message.pinned === true || holdsOpaquePart(message)) return;
    const draft = draftAbridgement(message, policy.abridgePasteEdgeLines);
    if (!draft) return;
    const piece = maker.abridgedMessage(
      message,
      abridgeRecordOf(message, draft),
      slot.results.map((result) => result.exchange),
    );
    const saving = slot.piece.tokens - (piece?.tokens ?? 0);
    if (piece === null || saving <= 0) return;
    slot.piece = piece;
    slot.tokens -= saving;
    total -= saving;
    report.abridgedMessages.push(message.id);
  };
  // A result's screenshots give way to their stand-ins, the result kept (ADR-0311), before it is cleared or dropped.
  const abridgeResult = (slot: Slot, result: Slot['results'][number]) => {
    const message = result.message;
    if (!policy.strategies.abridge || result.state !== 'raw' || !message || !result.part?.media?.length)
      return;
    if (message.pinned === true) return;
    const draft = draftAbridgement(message, policy.abridgePasteEdgeLines);
    if (!draft) return;
    const record = abridgeRecordOf(message, draft);
    const shown = abridgedMessage(message, record).content[result.exchange.resultPartIndex!];
    if (shown?.type !== 'tool_result') return;
    const piece = maker.abridgedResult(shown, result.exchange);
    const saving = result.piece.tokens - piece.tokens;
    if (saving <= 0) return;
    // Still a raw result: a clear may take it over (ADR-0311's precedence).
    result.piece = piece;
    slot.tokens -= saving;
    total -= saving;
    if (!report.abridgedMessages.includes(message.id)) report.abridgedMessages.push(message.id);
  };
  const drop = (slot: Slot) => {
    if (slot.dropped) return;
    slot.dropped = true;
    total -= slot.tokens;
    report.dropped.push({
      messageId: slot.anchor.id,
      kind:
        slot.kind === 'message'
          ? 'message'
          : slot.record?.kind === 'externalize'
            ? 'externalization'
            : 'summary',
      turn: slot.turn,
      tokens: slot.tokens,
      resultMessageIds: slot.results.flatMap((result) => (result.message ? [result.message.id] : [])),
    });
  };

  // The grid: slot boundaries before the tail, each at least one chunk of droppable tokens after the
  // previous one, counted from the first slot (so a boundary never moves as the thread grows).
  const chunk = Math.max(1, limit - Math.min(target ?? limit, limit), Math.ceil(limit * MIN_CHUNK_SHARE));
  const grid = [0];
  let droppable = 0;
  for (let index = 0; index < tailStart; index += 1) {
    const slot = slots[index]!;
    if (!slot.essential && !slot.dropped) droppable += slot.tokens;
    if (droppable >= chunk) {
      grid.push(index + 1);
      droppable = 0;
    }
  }
  // Step k clears band k and drops band k − CLEARED_BANDS − 1: a slot only ever goes from sent to
  // cleared to dropped as k grows, so the steps are nested and the first that fits is stable.
  for (let step = 1; step < grid.length; step += 1) {
    const dropBand = step - CLEARED_BANDS - 1;
    if (dropBand >= 1) {
      for (let index = grid[dropBand - 1]!; index < grid[dropBand]!; index += 1) {
        const slot = slots[index]!;
        if (!slot.essential) drop(slot);
      }
    }
    for (let index = grid[step - 1]!; index < grid[step]!; index += 1) clearSlot(slots[index]!);
    if (over() <= 0) {
      report.step = step;
      return done();
    }
  }

  // Past the grid: everything outside the tail may have to go.
  for (let index = 0; index < tailStart; index += 1) {
    clearSlot(slots[index]!);
    if (over() <= 0) return done();
  }
  let index = 0;
  while (index < tailStart) {
    const turn = slots[index]!.turn;
    while (index < tailStart && slots[index]!.turn === turn) {
      const slot = slots[index]!;
      if (!slot.essential) drop(slot);
      index += 1;
    }
    if (over() <= 0) return done();
  }
  // Summaries give up their trimmable items before any essential slot goes whole.
  for (index = 0; index < tailStart; index += 1) {
    const slot = slots[index]!;
    if (slot.dropped || !trimSummary(slot, over(), maker, countText, report)) continue;
    total -= report.trimmedSummaries.at(-1)!.fromTokens - slot.tokens;
    if (over() <= 0) return done();
  }
  for (index = 0; index < tailStart; index += 1) {
    const slot = slots[index]!;
    if (slot.dropped) continue;
    drop(slot);
    if (over() <= 0) return done();
  }
  return done();
}

function summaryItems(summary: SummarizationRecord['summary']): number {
  return (
    summary.facts.length +
    summary.decisions.length +
    summary.openItems.length +
    summary.artifacts.length +
    summary.toolOutcomes.length +
    summary.filesRead.length +
    summary.filesModified.length +
    (summary.currentPlan?.length ?? 0)
  );
}

/**
 * Cut a summary slot to what frees `needed` tokens (down to its guaranteed items) before it would be
 * dropped whole; true when the slot got smaller (the report records it).
 */
function trimSummary(
  slot: Slot,
  needed: number,
  maker: PieceMaker,
  countText: (text: string) => number,
  report: EmergencyFitReport,
): boolean {
  const record = slot.record;
  if (slot.kind !== 'synthetic' || record?.kind !== 'summarize') return false;
  const textTokens = countText(summaryText(record));
  const role = slot.piece.role === 'user' ? 'user' : 'assistant';
  // Trim to what frees `needed`; the rendered message has framing the text budget does not see, so
  // correct by the shortfall a few times (trimming is monotone: a smaller budget never grows it).
  let budget = Math.max(0, textTokens - needed);
  const itemTokens = Math.ceil(textTokens / Math.max(1, summaryItems(record.summary)));
  let summary = record.summary;
  let trimmed: SummarizationRecord = record;
  let piece = slot.piece;
  for (let attempt = 0; attempt < 4; attempt += 1) {
    summary = trimSummaryToBudget(record.summary, budget, countText);
    if (summary === record.summary) return false;
    trimmed = { ...record, summary };
    piece = maker.record(trimmed, role);
    const shortfall = needed - (slot.tokens - piece.tokens);
    if (shortfall <= 0 || budget === 0) break;
    // At least one average item more, or the next attempt may thin nothing.
    budget = Math.max(0, budget - Math.max(shortfall, itemTokens));
  }
  if (piece.tokens >= slot.tokens) return false;
  report.trimmedSummaries.push({
    messageId: slot.anchor.id,
    fromTokens: slot.tokens,
    toTokens: piece.tokens,
    itemsDropped: summaryItems(record.summary) - summaryItems(summary),
  });
  slot.record = trimmed;
  slot.piece = piece;
  slot.tokens = piece.tokens;
  return true;
}
