import {
  type CompactionPlan,
  type NormalizedPlan,
  type RecallPolicy,
  type RehydrationPolicy,
  summaryText,
  type Thread,
  type ThreadMessage,
  toolOutputSensitivity,
} from '@compactor/core';
import {
  asksForRecall,
  createRecallIndex,
  messageRecallText,
  type RecallIndex,
  recallQuery,
} from '@compactor/recall';
import type { Piece } from '../cache/render-cache.js';
import type { ThreadRenderMemo } from '../cache/thread-render-memo.js';
import type { PieceMaker } from '../plan/piece-maker.js';
import { recallBlockParts, recallHitParts } from '../synthetic-text.js';
import { type AppendFolds, createAppendFolds } from './append-recall.js';

/** One compacted message brought back, for the render report. */
export interface RecalledMessage {
  messageId: string;
  turn: number | undefined;
  /** BM25 score against the query. */
  score: number;
  /** Why it was compacted: the plan record kind that covers it. */
  compactedBy: 'summarize' | 'drop' | 'clear' | 'externalize' | 'abridge';
}

/** What render-time recall did (ADR-0111). */
export interface RecallReport {
  attempted: boolean;
  /** The query: the newest user turn, plus a pending tool call (truncated to 200 characters). */
  query: string;
  /** Tokens recall could use. */
  allowance: number;
  /**
   * Of `allowance`, what the rehydration reserve gave; the rest is free room under the ceiling the
   * request left (ADR-0162).
   */
  reserveAllowance: number;
  /** Tokens of the block beyond the reserve's allowance: the free room recall filled (0 when none). */
  freeRoomTokens: number;
  /** Tokens of the recall block, exactly as sent (0 when none). */
  tokens: number;
  /** Compacted messages indexed for this plan. */
  indexed: number;
  recalled: RecalledMessage[];
  /**
   * Why no search was made although recall had room: `not-asked`, the gate (ADR-0320) found the newest
   * turn asks nothing. Absent when recall searched, or had no plan, query or room.
   */
  skipped?: 'not-asked';
  /**
   * Append placement (ADR-0361): tokens of the plan version's blocks this request leaves out because
   * they no longer fit beside the messages. A block sent on an earlier call and left out now rewrites
   * everything after its place; the engine's check commits instead (ADR-0361). Absent when none.
   */
  leftOutTokens?: number;
  /** Append placement: the newest turn started a new epoch, so the plan version's earlier blocks went (ADR-0276). */
  epochRestarted?: true;
  /**
   * Append placement (ADR-0430): where the first block that went (left out, or ended with its epoch) sat,
   * as the tokens of the live conversation up to and including its turn's opening. The request from
   * there on is written to the cache again: the message tokens less this figure. Absent when none went.
   */
  leftOutFromTokens?: number;
}

export interface FittedRecall {
  piece: Piece | undefined;
  report: RecallReport;
}

interface PlanRecallIndex {
  index: RecallIndex;
  kinds: Map<string, RecalledMessage['compactedBy']>;
  readonly size: number;
  /**
   * Recent searches and their results, the oldest first: an unchanged thread renders again without
   * searching, a render that tries the turn's anchored block before the block of the room left
   * (ADR-0210) searches neither again on the next call, and the append placement (ADR-0276) derives
   * every earlier turn's block of the plan from here, not from a new search per call.
   */
  searches: Map<string, FittedRecall>;
  /** Token counts of hit texts already counted (each document's text, at most once). */
  counted: Map<string, number>;
  /** The append placement's turns, each folded once per plan version (ADR-0305). */
  appendFolds: AppendFolds;
  /** The indexed messages the summary block covering them quotes whole (ADR-0366). */
  quoted: Set<string>;
}

/** One entry of the map from a recalled message to the record kind that compacted it. */
const KIND_ENTRY_BYTES = 48;
/** One entry of the set of messages a summary block quotes whole. */
const QUOTED_ENTRY_BYTES = 40;
/** A document is clipped to this many characters (a pasted log comes back by its head). */
const MAX_CHARS_PER_DOCUMENT = 4000;
/** The previous message's text indexed as a document's context is clipped to this many characters. */
const MAX_CONTEXT_CHARS = 1000;
/** A message shorter than this is never taken as quoted by a summary (ADR-0366). */
const MIN_QUOTED_CHARS = 40;
/** The query is clipped to this many characters. */
const MAX_QUERY_CHARS = 600;
/**
 * Searches remembered per plan: the turns of one plan version, each searched once (ADR-0276), with
 * room for the anchored and end blocks of the newest turn.
 */
const REMEMBERED_SEARCHES = 128;

/**
 * The compacted messages of a plan a render may bring back automatically: every message a record
 * covers, except tool output whose sensitivity (the tool's, or the externalized span's) is not
 * auto-rehydratable. Built once per plan object, deterministically in log order, and cached in the
 * thread's render memo (bounded with it).
 */
function planRecallIndex(
  thread: Thread,
  plan: CompactionPlan,
  normalized: NormalizedPlan,
  rehydration: RehydrationPolicy,
  memo: ThreadRenderMemo,
  /** Whether to find the messages the plan's summary blocks quote whole (`recall.quotedHits`, ADR-0366). */
  quoting: boolean,
): PlanRecallIndex {
  const allowed = new Set<string>(rehydration.autoRehydrateSensitivities);
  const key = `${[...allowed].sort().join(',')}\u0000${quoting ? 'quoting' : ''}`;
  return memo.recallIndex(
    plan,
    key,
    () => {
      const index = createRecallIndex({ maxCharsPerDocument: MAX_CHARS_PER_DOCUMENT });
      return {
        index,
        kinds: new Map(),
        counted: new Map(),
        searches: new Map(),
        appendFolds: createAppendFolds(),
        quoted: new Set(),
        get size() {
          return index.size;
        },
      };
    },
    (built, fromMessage) => {
      // Extended in log order from where it stopped: the same documents in the same order as a cold build.
      // Charged by what the index holds now (it evicts past its document bound, ADR-0286) and each kind kept.
      const before = built.index.approximateBytes;
      const documents = compactedRecallDocuments(thread, normalized, allowed, fromMessage);
      let quoted = 0;
      // A block's rendered text, made once per extension for the blocks its documents fall in.
      const blockTexts = new Map<object, string>();
      for (const document of documents) {
        built.kinds.set(document.id, document.compactedBy);
        if (quoting && quotedByItsBlock(normalized, document, blockTexts)) {
          built.quoted.add(document.id);
          quoted += 1;
        }
      }
      if (documents.length > 0) built.index.add(documents);
      return {
        bytes:
          built.index.approximateBytes -
          before +
          KIND_ENTRY_BYTES * documents.length +
          QUOTED_ENTRY_BYTES * quoted,
        added: documents.length,
        toMessage: thread.messages.length,
      };
    },
  );
}

/**
 * The append placement's remembered turns for a plan (ADR-0305), kept beside its recall index, with
 * their scope: what the turns' searches depend on besides their room, query and exclusions (the
 * index's documents, the recall policy and the thread's kind).
 *
 * @param parts - The thread, its plan (normalized), the recall and rehydration policies, the thread's
 *   memo, and whether this render searches at all.
 * @returns The fold memo and its scope, or undefined when nothing is searched.
 */
export function appendFoldsOf(parts: {
  thread: Thread;
  plan: CompactionPlan | null;
  normalized: NormalizedPlan | undefined;
  policy: RecallPolicy;
  rehydration: RehydrationPolicy;
  memo: ThreadRenderMemo;
  searching: boolean;
  /** The thread's kind: what the search does may follow it with the policy (e.g. when it searches). */
  kind: string;
}): { folds: AppendFolds; scope: string } | undefined {
  const { plan, normalized, policy } = parts;
  if (!parts.searching || !plan || !normalized || !policy.enabled || policy.topK === 0) return undefined;
  const planIndex = planRecallIndex(
    parts.thread,
    plan,
    normalized,
    parts.rehydration,
    parts.memo,
    policy.quotedHits !== 'show',
  );
  return {
    folds: planIndex.appendFolds,
    scope: `${planIndex.size}\u0000${parts.kind}\u0000${JSON.stringify(policy)}`,
  };
}

/** One compacted message as a recall document. */
export interface CompactedRecallDocument {
  id: string;
  text: string;
  /** The previous compacted message's text, searched at a lower weight (never shown). */
  context: string;
  turn: number;
  compactedBy: RecalledMessage['compactedBy'];
  /** The message's own text (clipped as `text` is), without the speaker's label. */
  said: string;
}

/**
 * The documents recall may search, in log order from `fromMessage`: every message a plan record
 * covers (an abridged one only when a paste was clipped), except tool output whose sensitivity (the tool's, or the externalized span's) is not in
 * `allowed` (ADR-0111). One rule for render-time recall and the `search_history` tool.
 *
 * @param thread - The thread.
 * @param normalized - Its plan, normalized.
 * @param allowed - The auto-rehydratable sensitivities.
 * @param fromMessage - The first message position to look at.
 * @returns The documents, clipped to 4,000 characters each, labelled by role.
 */
export function compactedRecallDocuments(
  thread: Thread,
  normalized: NormalizedPlan,
  allowed: ReadonlySet<string>,
  fromMessage = 0,
): CompactedRecallDocument[] {
  const documents: CompactedRecallDocument[] = [];
  for (let position = fromMessage; position < thread.messages.length; position += 1) {
    const message = thread.messages[position]!;
    const record = normalized.actions.get(message.id)?.record;
    if (!record || !readable(message, record, thread, allowed)) continue;
    // An abridged message's words are in the prompt already; only a clipped paste has more to give (ADR-0266).
    if (record.kind === 'abridge' && !record.parts.some((part) => part.reason === 'paste')) continue;
    const text = messageRecallText(message).slice(0, MAX_CHARS_PER_DOCUMENT);
    if (text.trim().length === 0) continue;
    documents.push({
      id: message.id,
      text: `${speakerLabel(message)}: ${text}`,
      said: text,
      context: previousText(thread, normalized, position),
      turn: message.turn,
      compactedBy: record.kind,
    });
  }
  return documents;
}

/**
 * Who said it: the speaker's name where the message names one (`metadata.speaker`, as imported
 * dialogues carry), else the role. Indexed with the text, so "What did Melanie paint?" finds
 * Melanie's turns, which rarely name her.
 */
/**
 * The text of the compacted message just before a position: searched as a document's context (a
 * reply is found by the question it answers). Only between conversational messages (no tool parts).
 * The message before, never the one after: it exists whenever this one does, so an index extended
 * as the thread grows holds the same documents as a cold build (ADR-0111).
 */
function previousText(thread: Thread, normalized: NormalizedPlan, position: number): string {
  const before = thread.messages[position - 1];
  if (!before || !conversational(thread.messages[position]!) || !conversational(before)) return '';
  return normalized.actions.has(before.id) ? messageRecallText(before).slice(0, MAX_CONTEXT_CHARS) : '';
}

/** Said, not done: no tool call or result (a tool's neighbours would only add noise to its match). */
function conversational(message: ThreadMessage): boolean {
  return message.content.every((part) => part.type !== 'tool_call' && part.type !== 'tool_result');
}

/**
 * Whether the summary block covering a summarized document quotes its text whole (ADR-0366): only its
 * own block can (a block summarizes its span; a merged block covers both spans). Only text of some
 * length counts: a short reply ("Thanks!") can occur inside any summary line without being that message.
 */
function quotedByItsBlock(
  normalized: NormalizedPlan,
  document: CompactedRecallDocument,
  blockTexts: Map<object, string>,
): boolean {
  if (document.compactedBy !== 'summarize') return false;
  const text = document.said.trim();
  if (text.length < MIN_QUOTED_CHARS) return false;
  const record = normalized.actions.get(document.id)?.record;
  if (record?.kind !== 'summarize') return false;
  let block = blockTexts.get(record);
  if (block === undefined) {
    block = summaryText(record);
    blockTexts.set(record, block);
  }
  return block.includes(text);
}

function speakerLabel(message: ThreadMessage): string {
  const speaker = message.metadata?.speaker;
  return typeof speaker === 'string' && speaker.trim() !== '' ? speaker.trim() : message.role;
}

function readable(
  message: ThreadMessage,
  record: { kind: string; sensitivity?: string },
  thread: Thread,
  allowed: ReadonlySet<string>,
): boolean {
  if (record.kind === 'externalize' && !allowed.has(record.sensitivity ?? 'internal')) return false;
  for (const part of message.content) {
    if (part.type !== 'tool_result') continue;
    if (!allowed.has(toolOutputSensitivity(part.toolName, thread.policy.toolDurability))) return false;
  }
  return true;
}

/**
 * Recall at render time: search the plan's compacted messages with the newest user turn (and a
 * pending tool call) and fit the best hits, within `allowance`, into one marked, ephemeral block.
 * The block's tokens are counted as sent; hits are dropped from the weakest until it fits.
 */
export function fitRecall(parts: {
  thread: Thread;
  plan: CompactionPlan | null;
  normalized: NormalizedPlan | undefined;
  policy: RecallPolicy;
  rehydration: RehydrationPolicy;
  allowance: number;
  /** Of `allowance`, the rehydration reserve's part (the rest is free room); `allowance` when absent. */
  reserveAllowance?: number;
  memo: ThreadRenderMemo;
  maker: PieceMaker;
  /** Counts a hit's text (the block itself is counted exactly as sent, by `maker`). */
  countText: (text: string) => number;
  /**
   * `countText` of joined parts, from parts memoized where exact (the tokenizer's `countJoined`,
   * ADR-0460): hits are counted by their parts, so the block quoting them re-encodes only their edges.
   */
  countJoined?: ((parts: readonly string[]) => number) | undefined;
  query?: string;
  /**
   * Messages already shown in another recall block of the request: never brought again (ADR-0276). A
   * set the caller only adds to while it passes it to searches (the index remembers what it held,
   * ADR-0342).
   */
  exclude?: ReadonlySet<string>;
  /**
   * Names `exclude` in the search memo's key instead of its sorted ids (ADR-0341): the same key must
   * always come with the same messages (append-only recall's step ids, unique per plan index).
   */
  excludeKey?: string;
  /** Search only when the query asks for something (ADR-0320: the `question` gate). */
  onlyWhenAsked?: boolean;
}): FittedRecall {
  const { thread, plan, normalized, policy, maker } = parts;
  // A pasted log as the newest turn would make every search scan most of the index: its head decides.
  const query = (parts.query ?? recallQuery(thread.messages)).slice(0, MAX_QUERY_CHARS);
  const report: RecallReport = {
    attempted: false,
    query: query.slice(0, 200),
    allowance: Math.max(0, parts.allowance),
    reserveAllowance: Math.max(0, Math.min(parts.allowance, parts.reserveAllowance ?? parts.allowance)),
    freeRoomTokens: 0,
    tokens: 0,
    indexed: 0,
    recalled: [],
  };
  if (
    !policy.enabled ||
    !plan ||
    !normalized ||
    policy.topK === 0 ||
    query.trim() === '' ||
    report.allowance <= 0
  ) {
    return { piece: undefined, report };
  }
  if (parts.onlyWhenAsked && !asksForRecall(query)) {
    report.skipped = 'not-asked';
    return { piece: undefined, report };
  }
  report.attempted = true;
  const planIndex = planRecallIndex(
    thread,
    plan,
    normalized,
    parts.rehydration,
    parts.memo,
    policy.quotedHits !== 'show',
  );
  const { index, kinds } = planIndex;
  report.indexed = index.size;
  if (index.size === 0) return { piece: undefined, report };
  const exclude = parts.exclude && parts.exclude.size > 0 ? parts.exclude : undefined;
  // Tagged, so a caller's key never reads as a list of ids.
  const excluded =
    parts.excludeKey !== undefined
      ? `k${parts.excludeKey}`
      : exclude
        ? `i${[...exclude].sort().join('\u0001')}`
        : '';
  const key = `${index.size}\u0000${report.allowance}\u0000${report.reserveAllowance}\u0000${policy.topK}\u0000${policy.minScore}\u0000${policy.quotedHits}\u0000${excluded}\u0000${query}`;
  const searches = planIndex.searches;
  const remembered = searches.get(key);
  parts.memo.recallSearched(remembered === undefined);
  if (remembered) {
    // Most recently used last.
    searches.delete(key);
    searches.set(key, remembered);
    return remembered;
  }
  const counted = planIndex.counted;
  const countText = (text: string) => {
    let tokens = counted.get(text);
    if (tokens === undefined) {
      tokens = parts.countJoined ? parts.countJoined(recallHitParts(text)) : parts.countText(text);
      counted.set(text, tokens);
    }
    return tokens;
  };
  const fitted = search(index, kinds, query, policy, report, countText, maker, exclude, planIndex.quoted);
  searches.set(key, fitted);
  if (searches.size > REMEMBERED_SEARCHES) searches.delete(searches.keys().next().value as string);
  return fitted;
}

function search(
  index: RecallIndex,
  kinds: ReadonlyMap<string, RecalledMessage['compactedBy']>,
  query: string,
  policy: RecallPolicy,
  report: RecallReport,
  countText: (text: string) => number,
  maker: PieceMaker,
  exclude: ReadonlySet<string> | undefined,
  quoted: ReadonlySet<string>,
): FittedRecall {
  const replaceQuoted = policy.quotedHits === 'replace' && quoted.size > 0;
  const result = index.search({
    query,
    topK: policy.topK,
    maxTokens: report.allowance,
    minScore: policy.minScore,
    countTokens: countText,
    // A quoted hit given up for the next one (ADR-0366) is left out like a shown one.
    ...(replaceQuoted ? { exclude: (id: string) => quoted.has(id) } : {}),
    // Append-only recall's shown messages only grow (ADR-0342): the index reads past their lead once.
    ...(exclude ? { excludeGrowing: exclude } : {}),
  });
  // A summary quoting a hit whole has its words in the request already (ADR-0366).
  const shown =
    policy.quotedHits === 'skip' && quoted.size > 0
      ? result.hits.filter((hit) => !quoted.has(hit.id))
      : result.hits;
  // Chronological in the block, so the model reads them in the order they happened.
  const hits = [...shown];
  while (hits.length > 0) {
    const ordered = [...hits].sort((left, right) => left.seq - right.seq);
    // Counted from its hits' parts, which the search counted (ADR-0460); `maker.text` then finds the count.
    const blockParts = recallBlockParts(ordered);
    maker.tokenizer.countJoined?.(blockParts);
    const piece = maker.text(blockParts.join(''), 'user');
    if (piece.tokens <= report.allowance) {
      report.tokens = piece.tokens;
      report.freeRoomTokens = Math.max(0, piece.tokens - report.reserveAllowance);
      report.recalled = ordered.map((hit) => ({
        messageId: hit.id,
        turn: hit.turn,
        score: Math.round(hit.score * 1000) / 1000,
        compactedBy: kinds.get(hit.id)!,
      }));
      return { piece, report };
    }
    // The weakest hits out (hits are best first), as many as cover the excess (at least one), so a
    // block of many hits is counted a few times, not once per hit dropped.
    let excess = piece.tokens - report.allowance;
    do {
      excess -= hits.pop()!.tokens;
    } while (excess > 0 && hits.length > 0);
  }
  return { piece: undefined, report };
}
