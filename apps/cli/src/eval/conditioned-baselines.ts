import { isTurnStart, renderSummary, spanOf, type ThreadMessage, trimSummaryToBudget } from '@compactor/core';
import { createRecallIndex, messageRecallText, type RecallHit } from '@compactor/recall';
import { createResilientSummarizer } from '@compactor/summarizer';
import type { Baseline, BaselineInput } from './baselines/baseline.js';
import { renderSelection } from './baselines/render-selection.js';
import { slidingWindowBaseline } from './baselines/sliding-window-baseline.js';
import type { AskedRequest, ConditionedSystem, PrepareContext } from './conditioned-system.js';

const noArtifacts: ReadonlyMap<string, ReadonlySet<string>> = new Map();

export function baselineInput(context: PrepareContext, ceiling: number): BaselineInput {
  return {
    thread: context.thread,
    ceiling,
    provider: context.provider,
    tokenizer: context.tokenizer,
    system: '',
  };
}

export function plainRequest(
  input: BaselineInput,
  messages: readonly ThreadMessage[],
  extra: Partial<AskedRequest> = {},
): AskedRequest {
  const measured = renderSelection(input, messages);
  return {
    request: measured.request,
    tokens: measured.tokens,
    artifacts: noArtifacts,
    summaryTokens: 0,
    summaryBudget: null,
    recallTokens: 0,
    emergency: null,
    ...extra,
  };
}

/**
 * A baseline of `./baselines` run once on the history with the question's reserve set aside; each
 * question is appended to the messages it sent (its pruning edits included).
 */
export function conditionedBaseline(baseline: Baseline, name = baseline.name): ConditionedSystem {
  return {
    name,
    source: baseline.source,
    async prepare(context) {
      const input = baselineInput(context, Math.max(0, context.ceiling - context.questionReserve));
      const output = await baseline.run(input);
      const kept = new Set(output.keptMessageIds);
      const sent = output.sent ?? context.thread.messages.filter((message) => kept.has(message.id));
      const full = baselineInput(context, context.ceiling);
      return { ask: (question) => plainRequest(full, [...sent, question]) };
    },
  };
}

/** Recall knobs of the "+ recall" baseline (the share and top-k issue #13's experiment used). */
export const RECALL_SHARE = 0.15;
export const RECALL_TOP_K = 8;
export const RECALL_MIN_SCORE = 0;

/** The recall block put before the newest turn's text: marked, oldest hit first. */
export function recallBlock(hits: readonly RecallHit[]): string {
  const ordered = [...hits].sort((left, right) => left.seq - right.seq);
  return [
    '[Recalled from earlier in this conversation]',
    ...ordered.map((hit) => `(turn ${hit.turn ?? '?'}) ${hit.text}`),
    '[End of recalled turns]',
  ].join('\n');
}

/** `question` with a recall block as its first text part (one message: no two user turns in a row). */
export function withRecall(question: ThreadMessage, block: string): ThreadMessage {
  return { ...question, content: [{ type: 'text', text: block }, ...question.content] };
}

/**
 * The sliding window with the same recall our renderer is to get (`@compactor/recall`): the window
 * fills the ceiling minus a 15% recall reserve; everything it left out is indexed (BM25); each
 * question's text is the query, and up to 8 hits within the reserve go into a marked block.
 */
export function slidingWindowWithRecall(name = 'sliding-window+recall'): ConditionedSystem {
  return {
    name,
    source: '@compactor/core slidingWindow + @compactor/recall (minisearch BM25)',
    async prepare(context) {
      const recall = await windowWithRecall(context);
      return { ask: (question) => recall.ask([...recall.window, question]) };
    },
  };
}

/** The window kept, and how a request with recall is built on it. */
export interface WindowWithRecall {
  /** The messages the sliding window kept. */
  window: ThreadMessage[];
  /**
   * The request for `messages` (the window and what came after it) with a recall block for the
   * newest user message's text, searched in what the window left out.
   */
  ask(messages: readonly ThreadMessage[]): AskedRequest;
}

/** The sliding window within the ceiling less the recall reserve, and the index of what it left out. */
export async function windowWithRecall(context: PrepareContext): Promise<WindowWithRecall> {
  const reserve = Math.floor(context.ceiling * RECALL_SHARE);
  const input = baselineInput(context, Math.max(0, context.ceiling - reserve - context.questionReserve));
  const output = await slidingWindowBaseline.run(input);
  const kept = new Set(output.keptMessageIds);
  const window = context.thread.messages.filter((message) => kept.has(message.id));
  const index = createRecallIndex();
  index.add(
    context.thread.messages
      .filter((message) => !kept.has(message.id))
      .map((message) => ({ id: message.id, text: messageRecallText(message), turn: message.turn })),
  );
  const full = baselineInput(context, context.ceiling);
  const count = (text: string) => context.tokenizer.count(text);
  const blocks = new Map<string, string | null>();
  const blockFor = (newest: ThreadMessage): string | null => {
    let block = blocks.get(newest.id);
    if (block !== undefined) return block;
    const result = index.search({
      query: messageRecallText(newest),
      topK: RECALL_TOP_K,
      maxTokens: reserve,
      minScore: RECALL_MIN_SCORE,
      countTokens: count,
    });
    // The block's own lines cost tokens too: drop the lowest-scoring hits until it fits the reserve.
    const hits = [...result.hits];
    while (hits.length > 0 && count(recallBlock(hits)) > reserve) hits.pop();
    block = hits.length === 0 ? null : recallBlock(hits);
    blocks.set(newest.id, block);
    return block;
  };
  return {
    window,
    ask(messages) {
      let newest = -1;
      for (let at = messages.length - 1; at >= 0 && newest < 0; at -= 1)
        if (isTurnStart(messages[at]!)) newest = at;
      const block = newest < 0 ? null : blockFor(messages[newest]!);
      if (block === null) return plainRequest(full, messages);
      const withBlock = [...messages];
      withBlock[newest] = withRecall(messages[newest]!, block);
      return plainRequest(full, withBlock, { recallTokens: count(block) });
    },
  };
}

/** Codex keeps the user's recent messages up to this many tokens. */
export const CODEX_USER_MESSAGE_TOKENS = 20_000;
/** Under a small ceiling the user's messages get at most this share of it, the summary the rest. */
export const USER_MESSAGE_SHARE = 0.5;
/** The summary message's own framing (role, header line), kept free before it is measured. */
const SUMMARY_MESSAGE_OVERHEAD = 50;

/**
 * Codex's compaction rule: the user's own messages, newest first, up to 20,000 tokens (here also at
 * most half of what the ceiling leaves), in order, then one summary of the whole history in the
 * remaining room. Codex asks a model for the summary; here it is our extractive summarizer
 * (`createResilientSummarizer` without a model), trimmed to fit.
 */
export function userMessagesVerbatim(name = 'user-messages+summary'): ConditionedSystem {
  return {
    name,
    source: 'Codex rule (recent user messages ≤ 20k tokens + summary), summary by @compactor/summarizer',
    async prepare(context) {
      const compacted = await codexCompaction(context);
      const full = baselineInput(context, context.ceiling);
      return {
        ask: (question) =>
          plainRequest(full, [...compacted.sent, question], {
            summaryTokens: compacted.summaryTokens,
            summaryBudget: compacted.summaryBudget,
          }),
      };
    },
  };
}

/** What the Codex rule sends after compacting: the user's recent messages, then the summary. */
export interface CodexCompaction {
  sent: ThreadMessage[];
  summaryTokens: number;
  /** Null when there is no summary. */
  summaryBudget: number | null;
}

/** The Codex rule applied to `context.thread` within `context.ceiling` less the question's reserve. */
export async function codexCompaction(context: PrepareContext): Promise<CodexCompaction> {
  const available = Math.max(0, context.ceiling - context.questionReserve);
  const userLimit = Math.min(CODEX_USER_MESSAGE_TOKENS, Math.floor(available * USER_MESSAGE_SHARE));
  const count = (message: ThreadMessage) => context.tokenizer.countMessage(message, context.provider);
  const users: ThreadMessage[] = [];
  let userTokens = 0;
  for (let index = context.thread.messages.length - 1; index >= 0; index -= 1) {
    const message = context.thread.messages[index]!;
    if (!isTurnStart(message)) continue;
    const tokens = count(message);
    if (userTokens + tokens > userLimit) break;
    userTokens += tokens;
    users.unshift(message);
  }
  const messages = context.thread.messages;
  const full = baselineInput(context, context.ceiling);
  // The request's formatting (per-message overhead) is measured, not guessed: what the user
  // messages cost as rendered is what the summary cannot have.
  const usersRendered = users.length > 0 ? renderSelection(full, users).tokens : 0;
  let summaryBudget = Math.max(0, available - usersRendered - SUMMARY_MESSAGE_OVERHEAD);
  let summaryMessage: ThreadMessage | undefined;
  let summaryTokens = 0;
  if (messages.length > 0 && summaryBudget > 0) {
    const result = await createResilientSummarizer().summarize({
      tenantId: 'eval',
      threadId: context.thread.id,
      span: spanOf(messages),
      messages,
    });
    const last = messages.at(-1)!;
    const build = (budget: number): ThreadMessage => ({
      id: 'eval-codex-summary',
      role: 'user',
      synthetic: true,
      content: [
        {
          type: 'text',
          text: `[Summary of the conversation so far]\n${renderSummary(
            trimSummaryToBudget(result.summary, budget, (value) => context.tokenizer.count(value)),
          )}`,
        },
      ],
      seq: last.seq,
      index: last.index,
      turn: last.turn,
    });
    summaryMessage = build(summaryBudget);
    // One correction pass: trim by what the rendered request is over (pinned facts may still not fit).
    const over = renderSelection(full, [...users, summaryMessage]).tokens - available;
    if (over > 0) {
      summaryBudget = Math.max(0, summaryBudget - over);
      summaryMessage = build(summaryBudget);
    }
    summaryTokens = context.tokenizer.count(messageRecallText(summaryMessage));
  }
  return {
    sent: summaryMessage ? [...users, summaryMessage] : users,
    summaryTokens,
    summaryBudget: summaryMessage ? summaryBudget : null,
  };
}
