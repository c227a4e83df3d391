import { type SummaryFact, type ThreadMessage, userInstructionSentences } from '@compactor/core';
import { clip, textOf } from '../text.js';

/** Options of {@link extractDialogueTurns}. */
export interface DialogueOptions {
  /** A turn's text is clipped to this many characters. */
  maxTurnChars: number;
  /** Turns scoring below this are left out (small talk). */
  minScore: number;
  /** The kept turns' texts together take at most this share of the span's spoken text. */
  maxShare: number;
}

const MONTHS =
  'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend';
/** Time expressions: relative days and periods, months, weekdays, years, clock times, "ago", seasons. */
const TIME_EXPRESSION = new RegExp(
  `\\b(?:yesterday|today|tonight|tomorrow|ago|recently|last (?:week|month|year|night|time|${WEEKDAYS})|next (?:week|month|year|${WEEKDAYS})|this (?:week|month|year|morning|afternoon|evening|${WEEKDAYS})|(?:${MONTHS})\\b|(?:${WEEKDAYS})s?\\b|(?:19|20)\\d\\d\\b|\\d{1,2}(?::\\d\\d)?\\s?(?:am|pm)\\b|(?:spring|summer|autumn|fall|winter)\\b|since|years?|months?|weeks?|days?)`,
  'gi',
);
const NUMBER =
  /\b(?:\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|first|second|third)\b/gi;
/** A capitalised word that does not open a sentence: a name, a place, a title. */
const MID_SENTENCE_CAPITAL = /(?<=[\p{Ll}\d,;:'’)\]] )\p{Lu}(?!['’])[\p{L}\d’'-]*[\p{L}\d]/gu;
const WORD = /[\p{L}][\p{L}'’-]{3,}/gu;
const CAPTION = /\[image: [^\]]+\]/;

/** Words too common to count as rare, whatever their frequency in the span. */
const COMMON = new Set(
  (
    'that this with have from what your about just really been they them their there were would could should ' +
    'when will like know think much great love good make sure also some more than then thats thing things ' +
    'time feel lots want glad well very going doing into over such only even still ever always never here ' +
    'those these because while where which other pretty awesome amazing sounds cool nice happy hope thanks'
  ).split(' '),
);

/** Speaker name from the message's metadata (LoCoMo's `speaker`, a `name`), else its role. */
function speakerOf(message: ThreadMessage): string {
  const named = message.metadata?.speaker ?? message.metadata?.name;
  if (typeof named === 'string' && named.trim().length > 0) return named.trim();
  return message.role === 'user' ? 'User' : 'Assistant';
}

/** The message's date as `8 May 2023`, from `createdAt` (UTC); undefined without one. */
function dateOf(message: ThreadMessage): string | undefined {
  if (!message.createdAt) return undefined;
  const date = new Date(message.createdAt);
  if (Number.isNaN(date.getTime())) return undefined;
  const month = date.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
  return `${date.getUTCDate()} ${month} ${date.getUTCFullYear()}`;
}

/** A caption or alt text for each image or document the message carries but its text does not show. */
function mediaCaptions(message: ThreadMessage, text: string): string[] {
  if (CAPTION.test(text)) return [];
  const media = message.content.filter((part) => part.type === 'image' || part.type === 'document');
  if (media.length === 0) return [];
  const caption = [message.metadata?.blipCaption, message.metadata?.caption, message.metadata?.alt].find(
    (value): value is string => typeof value === 'string' && value.trim().length > 0,
  );
  return media.map((part) =>
    part.type === 'document' && part.title
      ? `[document: ${part.title}]`
      : caption
        ? `[image: ${caption.trim()}]`
        : `[${part.type}]`,
  );
}

function count(pattern: RegExp, text: string): number {
  return text.match(pattern)?.length ?? 0;
}

/**
 * How informative a turn is (ADR-0160): names and titles (capitalised mid-sentence), time expressions,
 * numbers, words rare in the span, and a caption each count; small talk ("That must have been
 * awesome.") scores about zero. Divided by the square root of the turn's length in words, so a long
 * turn does not win by length alone.
 */
export function informativeness(
  text: string,
  rareWords: ReadonlySet<string>,
  speakers: ReadonlySet<string> = new Set(),
): number {
  const words = text.match(WORD) ?? [];
  const rare = words.filter((word) => rareWords.has(word.toLowerCase())).length;
  // Greeting the other speaker by name ("Thanks, Caroline!") names nothing new.
  const names = (text.match(MID_SENTENCE_CAPITAL) ?? []).filter((name) => !isSpeakerName(name, speakers));
  const raw =
    2 * Math.min(4, names.length) +
    2 * Math.min(3, count(TIME_EXPRESSION, text)) +
    1.5 * Math.min(3, count(NUMBER, text)) +
    0.5 * Math.min(6, rare) +
    (CAPTION.test(text) ? 2 : 0);
  return raw / Math.sqrt(Math.max(6, words.length) / 6);
}

function isSpeakerName(name: string, speakers: ReadonlySet<string>): boolean {
  const lower = name.toLowerCase();
  for (const speaker of speakers) if (speaker.startsWith(lower)) return true;
  return false;
}

/**
 * Content words (five letters or more, common words aside) in at most 2% of the span's messages
 * (at least one): the terms a later question is likely to name.
 */
function rareWordsOf(texts: readonly string[]): Set<string> {
  const limit = Math.max(1, Math.floor(texts.length * 0.02));
  const frequency = new Map<string, number>();
  for (const text of texts) {
    for (const word of new Set((text.match(WORD) ?? []).map((candidate) => candidate.toLowerCase())))
      frequency.set(word, (frequency.get(word) ?? 0) + 1);
  }
  const rare = new Set<string>();
  for (const [word, seen] of frequency)
    if (seen <= limit && word.length >= 5 && !COMMON.has(word)) rare.add(word);
  return rare;
}

/** What a dialogue span yields: both speakers' informative turns, and the user's standing instructions. */
export interface DialogueExtraction {
  /** `Speaker (date): words`, scored, in log order; unpinned (trimmed by score). */
  turns: SummaryFact[];
  /** Standing instructions of the user's (`userInstructionSentences`), pinned. */
  instructions: SummaryFact[];
}

/**
 * A dialogue's turns worth keeping (ADR-0160): every speaker's turns whose informativeness reaches
 * `minScore`, each as `Speaker (8 May 2023): words [image: caption]` with its score, so trimming keeps
 * the most informative turns from every part of the conversation instead of the newest. Small talk is
 * neither kept as a turn nor pinned: only sentences `userInstructionSentences` recognises are pinned.
 */
export function extractDialogueTurns(
  messages: readonly ThreadMessage[],
  options: DialogueOptions,
): DialogueExtraction {
  const speaking = messages
    .filter(
      (message) =>
        (message.role === 'user' || message.role === 'assistant') &&
        !message.synthetic &&
        message.subagentId === undefined,
    )
    .map((message) => {
      const text = textOf(message.content);
      return { message, text: [text, ...mediaCaptions(message, text)].filter(Boolean).join(' ') };
    })
    .filter((entry) => entry.text.length > 0);
  const rare = rareWordsOf(speaking.map((entry) => entry.text));
  const spokenChars = speaking.reduce((sum, entry) => sum + entry.text.length, 0);
  const speakers = new Set(
    speaking.map((entry) => speakerOf(entry.message).toLowerCase()).filter((name) => name.length >= 3),
  );
  const turns: SummaryFact[] = [];
  const instructions: SummaryFact[] = [];
  const seen = new Set<string>();
  for (const { message, text } of speaking) {
    if (message.role === 'user' && !message.pinned) {
      for (const sentence of userInstructionSentences(text)) {
        const instruction = `User instruction (turn ${message.turn}): ${sentence}`;
        if (seen.has(instruction)) continue;
        seen.add(instruction);
        instructions.push({ text: instruction, pinned: true, sourceMessageId: message.id });
      }
    }
    const score = informativeness(text, rare, speakers);
    if (score < options.minScore) continue;
    const date = dateOf(message);
    turns.push({
      text: `${speakerOf(message)}${date ? ` (${date})` : ''}: ${clip(text, options.maxTurnChars)}`,
      pinned: false,
      sourceMessageId: message.id,
      score: Math.round(score * 100) / 100,
    });
  }
  return { turns: mostInformative(turns, Math.max(600, options.maxShare * spokenChars)), instructions };
}

/**
 * The highest-scored turns whose texts together stay within `maxChars` (at least one), in log order:
 * a summary of a span is always much smaller than the span, whatever the budget it is later trimmed to.
 */
function mostInformative(turns: readonly SummaryFact[], maxChars: number): SummaryFact[] {
  const ranked = turns
    .map((turn, index) => ({ turn, index }))
    .sort((a, b) => (b.turn.score ?? 0) - (a.turn.score ?? 0) || a.index - b.index);
  const kept = new Set<number>();
  let chars = 0;
  for (const { turn, index } of ranked) {
    if (kept.size > 0 && chars + turn.text.length > maxChars) continue;
    kept.add(index);
    chars += turn.text.length;
  }
  return turns.filter((_, index) => kept.has(index));
}
