import type {
  CompactionPolicy,
  EventInput,
  Message,
  ProviderName,
  Thread,
  ThreadMessage,
} from '@compactor/core';
import { importTranscriptFile, type QaProbe } from '@compactor/importers';
import { validateProviderRequest } from '@compactor/render/validate';
import { createTokenizer, type ProviderTokenizer, resolveModelInfo } from '@compactor/tokenizer';
import { providerForModel, replayTranscript } from '../replay/replay-transcript.js';
import { answerMatches, type ChanceMessage, chanceWords, isScorableAnswer, wordsOf } from './answer-match.js';
import { imagesAsCaptions } from './captions.js';
import { type ConditionedSystem, questionMessage } from './conditioned-system.js';
import type { EvalTranscript } from './eval-types.js';
import { oursConditioned, windowForCeiling } from './ours-conditioned.js';
import { messageText } from './probes.js';
import { addTally, emptyTally, type QaTally, UsageCounter, type UsageFigures } from './qa-tally.js';
import { entryOf } from './record-entry.js';
import { requestText } from './request-text.js';
import { evidencePresent } from './strict-evidence.js';

/** LoCoMo's category numbers, as the dataset's authors and later work (e.g. mem0) read them. */
export const LOCOMO_CATEGORIES: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

export interface QaRun {
  system: string;
  transcript: string;
  /** Budget as compression of the text: ceiling = text tokens / ratio. */
  ratio: number;
  textTokens: number;
  contextWindow: number;
  overall: QaTally;
  /** Every evidence turn in the first half of the conversation's messages / the rest. */
  early: QaTally;
  late: QaTally;
  byCategory: Record<string, QaTally>;
  usage: UsageFigures;
}

export interface QaOptions {
  transcripts: readonly EvalTranscript[];
  /** Compression ratios of the text (default 2, 4, 8). */
  ratios: readonly number[];
  /** URL images as their captions (default) or kept as images. */
  captions: boolean;
  policy?: Partial<CompactionPolicy>;
  /** The systems beside ours: each built per run. */
  systems: readonly ConditionedSystem[];
  /** Systems run a second time with the tokens our requests used on average as their ceiling. */
  equalUse: readonly ConditionedSystem[];
  onProgress?: (step: string) => void;
}

/** Suffix of a system run at our mean request tokens instead of the ceiling. */
export const EQUAL_USE_SUFFIX = '@ours-tokens';

/**
 * Question-conditioned LoCoMo: each conversation compacted once per budget as the workers would
 * (replayed through the engine), then every QA item asked as the newest user turn and scored
 * (strict evidence; answer on word boundaries with its chance floor). Every system gets the same
 * questions, so one denominator holds for all.
 */
export async function runQuestionConditioned(options: QaOptions): Promise<QaRun[]> {
  const runs: QaRun[] = [];
  for (const transcript of options.transcripts) {
    const imported = await importTranscriptFile(transcript.file, { conversation: transcript.conversation });
    const mapEvents = (events: EventInput[]) => (options.captions ? imagesAsCaptions(events) : events);
    const messages = mapEvents(imported.events).flatMap((event) =>
      event.type === 'message.appended' ? [event.message] : [],
    );
    const provider = providerForModel(imported.model);
    const counter = tokenizerFor(imported.model);
    const textTokens = messages.reduce(
      (sum, message) => sum + counter.countMessage(textOnly(message), provider),
      0,
    );
    const probes = imported.probes ?? [];
    for (const ratio of options.ratios) {
      const ceilingTarget = Math.max(1_000, Math.round(textTokens / ratio));
      const contextWindow = windowForCeiling(ceilingTarget, options.policy);
      const replay = await replayTranscript({
        file: transcript.file,
        conversation: transcript.conversation,
        window: contextWindow,
        mapEvents,
        ...(options.policy ? { policy: options.policy } : {}),
      });
      const { thread, tokenizer } = replay;
      const ceiling = replay.report.ceiling > 0 ? replay.report.ceiling : ceilingTarget;
      const { questions, questionReserve, scorer } = conversationQuestions(
        thread,
        probes,
        tokenizer,
        provider,
      );
      const base = { transcript: transcript.label, ratio, textTokens, contextWindow };
      const context = { thread, provider, tokenizer, questionReserve };
      const ours = await scoreSystem(oursConditioned(replay), { ...context, ceiling }, questions, scorer);
      runs.push({ ...base, ...ours });
      for (const system of options.systems) {
        runs.push({ ...base, ...(await scoreSystem(system, { ...context, ceiling }, questions, scorer)) });
      }
      const equalCeiling = Math.min(ceiling, ours.usage.meanTokens);
      for (const system of options.equalUse) {
        const scored = await scoreSystem(system, { ...context, ceiling: equalCeiling }, questions, scorer);
        runs.push({ ...base, ...scored, system: `${system.name}${EQUAL_USE_SUFFIX}` });
      }
      options.onProgress?.(`${transcript.label} @ ${ratio}×`);
    }
  }
  return runs;
}

/** A conversation's QA items as new user turns of `thread`, the room the longest needs, and their scorer. */
export interface ConversationQuestions {
  questions: ThreadMessage[];
  /** Tokens a system leaves free for the newest turn: the longest question, plus a margin. */
  questionReserve: number;
  scorer: QaScorer;
}

/**
 * Every QA item of a conversation as the newest user turn of `thread` (one denominator for every
 * system), with the reserve a system sets aside for it and the scorer of its evidence and answer.
 *
 * @param thread - The conversation (folded, without the questions).
 * @param probes - Its QA items.
 * @param tokenizer - Counts the questions.
 * @param provider - The wire format they are counted in.
 * @returns The questions, the reserve and the scorer.
 */
export function conversationQuestions(
  thread: Thread,
  probes: readonly QaProbe[],
  tokenizer: ProviderTokenizer,
  provider: ProviderName,
): ConversationQuestions {
  const questions = probes.map((probe, index) =>
    questionMessage(thread, `eval-question-${index}`, probe.question),
  );
  const questionReserve =
    Math.max(0, ...questions.map((question) => tokenizer.countMessage(question, provider))) + 16;
  return { questions, questionReserve, scorer: new QaScorer(thread.messages, probes, tokenizer, provider) };
}

type Scored = Omit<QaRun, 'transcript' | 'ratio' | 'textTokens' | 'contextWindow'>;

/**
 * One system prepared once on the context, then every question asked of it and scored.
 *
 * @param system - The system.
 * @param context - The history, ceiling, provider, tokenizer and question reserve.
 * @param questions - The questions (`conversationQuestions`).
 * @param scorer - Their scorer.
 * @returns The tallies (overall, early, late, by category) and what the requests used.
 */
export async function scoreSystem(
  system: ConditionedSystem,
  context: Parameters<ConditionedSystem['prepare']>[0],
  questions: ReturnType<typeof questionMessage>[],
  scorer: QaScorer,
): Promise<Scored> {
  const prepared = await system.prepare(context);
  const usage = new UsageCounter(context.ceiling);
  const overall = emptyTally();
  const early = emptyTally();
  const late = emptyTally();
  const byCategory: Record<string, QaTally> = {};
  questions.forEach((question, index) => {
    const asked = prepared.ask(question);
    const tokens =
      asked.request === null ? 0 : context.tokenizer.countRequest(asked.request as never, context.provider);
    const validation =
      asked.request !== null && index % 10 === 0
        ? validateProviderRequest(context.provider, asked.request).valid
        : undefined;
    usage.add(asked, tokens, validation);
    const tally = scorer.score(
      index,
      asked.request === null ? '' : requestText(asked.request),
      asked.artifacts,
      tokens,
    );
    addTally(overall, tally);
    addTally(scorer.isEarly(index) ? early : late, tally);
    const category = scorer.category(index);
    addTally(entryOf(byCategory, category, emptyTally), tally);
  });
  return { system: system.name, overall, early, late, byCategory, usage: usage.figures };
}

/** Per-question scoring against one conversation (evidence texts, chance messages) computed once. */
export class QaScorer {
  private readonly evidence: Array<Array<{ id: string; text: string }>>;
  private readonly early: boolean[];
  private readonly chanceMessages: ChanceMessage[];

  constructor(
    messages: readonly Message[],
    private readonly probes: readonly QaProbe[],
    tokenizer: ProviderTokenizer,
    provider: ProviderName,
  ) {
    const byId = new Map(messages.map((message, index) => [message.id, { message, index }]));
    const half = messages.length / 2;
    this.evidence = probes.map((probe) =>
      probe.evidenceMessageIds.flatMap((id) => {
        const found = byId.get(id);
        return found ? [{ id, text: messageText(found.message) }] : [];
      }),
    );
    this.early = probes.map(
      (probe) =>
        probe.evidenceMessageIds.length > 0 &&
        probe.evidenceMessageIds.every((id) => (byId.get(id)?.index ?? Number.POSITIVE_INFINITY) < half),
    );
    this.chanceMessages = messages.map((message) => ({
      id: message.id,
      text: messageText(message),
      tokens: tokenizer.countMessage(message, provider),
    }));
  }

  isEarly(index: number): boolean {
    return this.early[index] ?? false;
  }

  category(index: number): string {
    const number = this.probes[index]?.category ?? 0;
    return LOCOMO_CATEGORIES[number] ?? `category ${number}`;
  }

  /** One question's tally (each field 0 or 1) for a request's normalized text. */
  score(
    index: number,
    text: string,
    artifacts: ReadonlyMap<string, ReadonlySet<string>>,
    requestTokens: number,
  ): QaTally {
    const probe = this.probes[index]!;
    const answer = probe.answer;
    const words = wordsOf(text);
    const chance = chanceWords(
      this.chanceMessages,
      new Set(probe.evidenceMessageIds),
      requestTokens,
      probe.question,
    );
    return {
      questions: 1,
      evidence: evidencePresent(text, this.evidence[index] ?? [], artifacts) ? 1 : 0,
      answer: answerMatches(words, answer) ? 1 : 0,
      chance: answerMatches(chance, answer) ? 1 : 0,
      scorable: isScorableAnswer(answer) ? 1 : 0,
    };
  }
}

/** The message without images (budgets are stated in text tokens). */
function textOnly(message: Message): Message {
  const content = message.content.filter((part) => part.type !== 'image');
  return { ...message, content: content.length > 0 ? content : [{ type: 'text', text: '' }] };
}

function tokenizerFor(model: string): ProviderTokenizer {
  try {
    resolveModelInfo(model);
    return createTokenizer({ model });
  } catch {
    return createTokenizer({
      model,
      modelInfo: { contextWindow: 128_000, maxOutputTokens: 16_384, tokenizerFamily: 'o200k_base' },
    });
  }
}
