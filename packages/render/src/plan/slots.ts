import {
  abridgedMessage,
  type ClearedToolResult,
  type ClearRecord,
  type CompactionPolicy,
  type ExternalizationRecord,
  envelopeClearedFields,
  holdsOpaquePart,
  isTurnStart,
  type SummarizationRecord,
  type Thread,
  type ThreadMessage,
  type ToolResultPart,
} from '@compactor/core';
import type { Piece } from '../cache/render-cache.js';
import type { PieceMaker } from './piece-maker.js';
import type { EffectiveAction, PlanResolution, ResolutionScan } from './resolve-plan.js';
import type { ToolExchange, ToolExchangeIndex } from './tool-exchanges.js';

export interface ResultEntry {
  exchange: ToolExchange;
  /** The logged result, when there is one. */
  message: ThreadMessage | undefined;
  part: ToolResultPart | undefined;
  state: 'raw' | 'cleared' | 'externalized' | 'truncated' | 'missing';
  piece: Piece;
}

/**
 * One unit of the rendered conversation: a message from the log (an assistant message travels with
 * the results of its calls, so no budget decision can ever separate them), or the one synthetic
 * message that replaces a summarized or externalized span.
 */
export interface Slot {
  kind: 'message' | 'synthetic';
  /** The log message it stands at (for a synthetic message: the first message of its span). */
  anchor: ThreadMessage;
  record: SummarizationRecord | ExternalizationRecord | undefined;
  piece: Piece;
  results: ResultEntry[];
  tokens: number;
  /** Highest log seq among its sources: decides whether it belongs to the stable prefix. */
  maxSeq: number;
  turn: number;
  /**
   * Pinned and system messages, the user's own messages and plan summaries: dropped by an emergency
   * fit only after everything else.
   */
  essential: boolean;
  /** Set by the emergency fit. */
  dropped: boolean;
  /** Opens the conversation as it is (a provider's compaction block, ADR-0250): no opening note before it. */
  opens?: true;
}

/** How many of the log's messages each plan action and repair applied to, in the rendered agent's view. */
export interface SourceCounts {
  included: number;
  cleared: number;
  summarized: number;
  externalized: number;
  dropped: number;
  /** Messages of other agents (subagents) than the one rendered. */
  excluded: number;
  /** Messages that send nothing (only empty text or reasoning the provider cannot take back). */
  empty: number;
  /** Tool results without their call, left out. */
  orphanResults: number;
  /** Tool calls without a result, answered with a stand-in. */
  missingResults: number;
}

export interface SlotBuild {
  slots: Slot[];
  counts: SourceCounts;
  warnings: string[];
}

export function buildSlots(
  thread: Thread,
  resolution: PlanResolution,
  exchanges: ToolExchangeIndex,
  maker: PieceMaker,
): SlotBuild {
  const counts: SourceCounts = {
    included: 0,
    cleared: 0,
    summarized: 0,
    externalized: 0,
    dropped: 0,
    excluded: 0,
    empty: 0,
    orphanResults: 0,
    missingResults: 0,
  };
  const warnings: string[] = [];
  const slots: Slot[] = [];
  const scan = scanResolution(resolution, thread.messages.length);
  counts.excluded = scan.excluded;
  counts.dropped = scan.dropped;
  counts.summarized = scan.summarized;
  counts.externalized = scan.externalized;
  for (const position of scan.visit) {
    const slot = slotAt(position, thread, resolution, exchanges, maker, { counts, warnings });
    if (slot) slots.push(slot);
  }
  return { slots, counts, warnings };
}

/** Where {@link slotAt} reports what it counted and warned about (a full build; a measurement passes none). */
export interface SlotTally {
  counts: SourceCounts;
  warnings: string[];
}

/**
 * The slot a visited position gives (`null`: a tool message, whose results travel with their call, or
 * a message that sends nothing). A function of the message, its action and the actions of its calls'
 * results (and, for a hiding record, of being that record's first visited message): what lets a
 * measurement re-derive only the positions whose inputs changed (ADR-0300).
 */
export function slotAt(
  position: number,
  thread: Thread,
  resolution: PlanResolution,
  exchanges: ToolExchangeIndex,
  maker: PieceMaker,
  tally?: SlotTally,
): Slot | null {
  const messages = thread.messages;
  const policy = thread.policy;
  const actions = resolution.actions;
  const message = messages[position]!;
  const action = actions[position];
  if (action && (action.action === 'summarize' || action.action === 'externalize')) {
    const record = action.record as SummarizationRecord | ExternalizationRecord;
    const piece = maker.record(record, 'assistant');
    return {
      kind: 'synthetic',
      anchor: message,
      record,
      piece,
      results: [],
      tokens: piece.tokens,
      maxSeq: message.seq,
      turn: message.turn,
      essential: true,
      dropped: false,
    };
  }
  if (message.role === 'tool') {
    if (!tally) return null;
    const { counts, warnings } = tally;
    // Results are rendered right after their call; only orphans are noticed here.
    const answered = exchanges.resultsByMessage.get(position) ?? [];
    message.content.forEach((part, partIndex) => {
      if (part.type === 'tool_result' && answered[partIndex] === undefined) {
        counts.orphanResults += 1;
        warnings.push(
          `tool result ${part.toolCallId} in message ${message.id} has no call before it; left out`,
        );
      }
    });
    counts[
      action?.action === 'clear' ? 'cleared' : action?.action === 'pointer' ? 'externalized' : 'included'
    ] += 1;
    return null;
  }
  const calls = exchanges.callsByMessage.get(position);
  const piece =
    action?.action === 'abridge' && action.record?.kind === 'abridge'
      ? maker.abridgedMessage(message, action.record, calls)
      : maker.message(message, calls);
  if (piece === null) {
    if (tally) tally.counts.empty += 1;
    return null;
  }
  if (tally) tally.counts.included += 1;
  let tokens = piece.tokens;
  let maxSeq = message.seq;
  const results: ResultEntry[] = [];
  for (const exchange of calls ?? []) {
    const entry = resultEntry(exchange, messages, actions, maker, policy);
    if (entry.state === 'missing' && tally) {
      tally.counts.missingResults += 1;
      tally.warnings.push(
        `tool call ${exchange.callId} in message ${message.id} has no result; answered with a placeholder`,
      );
    }
    tokens += entry.piece.tokens;
    if (entry.message && entry.message.seq > maxSeq) maxSeq = entry.message.seq;
    results.push(entry);
  }
  return {
    kind: 'message',
    anchor: message,
    record: undefined,
    piece,
    results,
    tokens,
    maxSeq,
    turn: message.turn,
    // A person's own words go last too (ADR-0110): the planner keeps them verbatim.
    essential:
      message.pinned === true ||
      message.role === 'system' ||
      isTurnStart(message) ||
      holdsOpaquePart(message),
    dropped: false,
  };
}

/**
 * The positions to visit (shown messages and each hiding record's first message) and the hidden
 * counts, extended from the resolution's last scan while no repair reached back into the history.
 */
export function scanResolution(resolution: PlanResolution, size: number): ResolutionScan {
  let scan = resolution.scan;
  if (!scan || scan.epoch !== resolution.epoch || scan.scanned > size) {
    scan = {
      epoch: resolution.epoch,
      scanned: 0,
      visit: [],
      records: new Set(),
      excluded: 0,
      dropped: 0,
      summarized: 0,
      externalized: 0,
    };
    resolution.scan = scan;
  }
  const actions = resolution.actions;
  for (let position = scan.scanned; position < size; position += 1) {
    const action = actions[position];
    if (action?.action === 'exclude') scan.excluded += 1;
    else if (action?.action === 'drop') scan.dropped += 1;
    else if (action?.action === 'summarize' || action?.action === 'externalize') {
      if (action.action === 'summarize') scan.summarized += 1;
      else scan.externalized += 1;
      if (!scan.records.has(action.record!)) {
        scan.records.add(action.record!);
        scan.visit.push(position);
      }
    } else scan.visit.push(position);
  }
  scan.scanned = size;
  return scan;
}

function resultEntry(
  exchange: ToolExchange,
  messages: readonly ThreadMessage[],
  actions: readonly (EffectiveAction | undefined)[],
  maker: PieceMaker,
  policy: CompactionPolicy,
): ResultEntry {
  const message =
    exchange.resultMessageIndex === undefined ? undefined : messages[exchange.resultMessageIndex];
  const part = message?.content[exchange.resultPartIndex ?? -1];
  if (!message || part?.type !== 'tool_result') {
    return {
      exchange,
      message: undefined,
      part: undefined,
      state: 'missing',
      piece: maker.missingResult(exchange),
    };
  }
  const action = actions[exchange.resultMessageIndex!];
  if (action?.action === 'pointer') {
    const record = action.record as ExternalizationRecord;
    const piece = maker.clearedByRecord(record, part, () => maker.externalizedResult(record, part, exchange));
    return { exchange, message, part, state: 'externalized', piece };
  }
  if (action?.action === 'clear') {
    const record = action.record as ClearRecord;
    const piece = maker.clearedByRecord(record, part, () => {
      const preserved = preservedEntry(maker, record, message.id, part.toolCallId);
      return preserved
        ? maker.placeholder(preserved, part, exchange, () => preserved)
        : envelopePlaceholder(maker, part, exchange, policy);
    });
    return { exchange, message, part, state: 'cleared', piece };
  }
  if (action?.action === 'abridge' && action.record?.kind === 'abridge') {
    // The result stays a result: its media give way to their stand-ins after its text (ADR-0311).
    const record = action.record;
    const shown = abridgedMessage(message, record).content[exchange.resultPartIndex!];
    if (shown?.type === 'tool_result' && shown !== part) {
      const piece = maker.clearedByRecord(record, part, () => maker.abridgedResult(shown, exchange));
      return { exchange, message, part, state: 'raw', piece };
    }
  }
  return {
    exchange,
    message,
    part,
    state: 'raw',
    piece: maker.rawResult(message, exchange.resultPartIndex!, part, exchange),
  };
}

/** The placeholder built from the result's own envelope (emergency clears, and clears without an entry). */
export function envelopePlaceholder(
  maker: PieceMaker,
  part: ToolResultPart,
  exchange: ToolExchange,
  policy: CompactionPolicy,
): Piece {
  return maker.placeholder(part, part, exchange, () => envelopeClearedFields(part, policy.toolDurability));
}

function preservedEntry(
  maker: PieceMaker,
  record: ClearRecord,
  messageId: string,
  toolCallId: string,
): ClearedToolResult | undefined {
  const entries = maker.memo.rememberByObject('clear-entries', record, () => {
    const byKey = new Map<string, ClearedToolResult>();
    for (const entry of record.preserved) {
      const key = `${entry.messageId}\u0000${entry.toolCallId}`;
      if (!byKey.has(key)) byKey.set(key, entry);
    }
    return byKey;
  });
  return entries.get(`${messageId}\u0000${toolCallId}`);
}
