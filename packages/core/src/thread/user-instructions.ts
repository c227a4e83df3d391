/**
 * Recognising what a person said that must hold for the rest of a session (ADR-0110): standing
 * instructions, preferences, and names or identifiers they introduce. Recognition is by the shape of
 * the sentence, not by a list of marker words alone: an imperative opening (a bare verb, optionally
 * after "please" or a connective), a persistence phrase ("from now on", "every reply"), a stated
 * preference ("I prefer", "I'd like you to"), a rule ("Never …", "you must …", "at most …"), or a
 * sentence that binds a name or identifier ("my name is …", "the server is called qx-12"). Questions
 * are not instructions unless they are polite requests ("could you always …?").
 */

/** Words that, as the first word of a sentence, make it a request in the imperative mood. */
const IMPERATIVE_VERBS = new Set(
  (
    'add address adopt answer apply ask assume avoid begin call cap capitalise capitalize change check choose cite ' +
    'close commit continue convert copy count create cut default delete describe do document drop end ensure ' +
    'explain fix follow format give go greet handle ignore implement include indent keep label leave let limit ' +
    'list make mark mention move name note number omit open order pick port prefer prefix print put quote ' +
    'recall refer remember remove rename reply report respond return run say send set show sign skip sort speak ' +
    'spell start stay stick stop summarise summarize switch talk tell test think translate treat trim try turn ' +
    'update use verify wait wrap write'
  ).split(' '),
);

/** Openings that may come before the imperative verb without changing the mood. */
const LEAD_INS = new Set([
  'please',
  'also',
  'and',
  'so',
  'now',
  'then',
  'oh',
  'btw',
  'ok',
  'okay',
  'just',
  'kindly',
]);

/** Openings that make a standing rule of what follows ("Always …", "Never …", "Only …"). */
const RULE_OPENERS = new Set(['always', 'never', "don't", 'dont', 'only', 'no']);

const PERSISTENCE =
  /\b(from now on|from here on|going forward|for the rest of|for all future|in future|in the future|every time|each time|whenever|every (?:reply|answer|response|message|time)|each (?:reply|answer|response|message)|all (?:your |of your )?(?:replies|answers|responses|messages)|whatever happens|at all times|no matter what|by default)\b/i;

const PREFERENCE =
  /\b(i(?:'d| would)? prefer|i(?:'d| would) like (?:you|it|us|the|all|every)|i want (?:you|it|the|all|every)|i need you to|i(?:'d| would) rather|i like (?:it|my|the|when|you)|i (?:don't|do not|never) (?:like|want)|my preference|preferably|i expect)\b/i;

/**
 * Constraint markers addressed to the assistant or stated as rules. Bare "always"/"must" are not
 * enough: in dialogue they are small talk ("That must have been fun", "I always loved it").
 */
const MARKERS =
  /\b(you (?:must(?! (?:have|be|feel|love|really|know|think|enjoy|get|miss|'ve))|should|need to|have to|can't|cannot|may not|are not to)|(?:could|can|would|will) you (?:always|never)|do not|must not|mustn't|should not|shouldn't|not allowed|forbidden|no more than|at most|at least|make sure|remember that)\b/i;

/**
 * Social formulae of conversation (ADR-0160): encouragement, sign-offs and reassurance are shaped like
 * imperatives or rules ("Keep it up!", "Stay safe!", "Let me know!", "No worries", "Don't give up",
 * "Check out this pic") but bind nothing for the rest of a session. Matched at the sentence's start,
 * after lead-ins; a persistence phrase or a preference elsewhere in the sentence still wins. A formula ends where a
 * word ends: "Keep on" is one, "Keep onboarding docs short" is not.
 */
const SMALL_TALK =
  /^(?:keep (?:it up|up|going|pushing|shining|believing|rockin'?g?|chasing|being|doing|staying|focusing|on|that|those|me (?:posted|updated|in the loop)|you posted|at it|the faith|smiling|trying|fighting|working hard)|stay (?:safe|motivated|positive|upbeat|focused|strong|cool|tuned|in touch|consistent|healthy|awesome|calm|warm|dry|true|happy|well)|talk (?:soon|later|to you)|take care|let me know|let's|let us|check (?:out|it out|this out|this pic|my|these|that out)|go (?:for it|get)|give it a (?:shot|try|go)|try it|tell me (?:about|all|more)|don'?t (?:worry|give up|forget|be afraid|hesitate|stop|know|feel|let|be so)|no (?:problem|prob|worries|worry|regrets|wonder|details|doubt|way|idea|pressure|rush)\b|never (?:heard|saw|seen|thought|knew|say never|been)|always (?:here|up|good|a |been|rooting|by|happy|glad|great|fun|nice|there)|remember,|congrats|congratulations|enjoy|have (?:fun|a (?:great|good|nice))|good luck|see you|catch you|count on me|love (?:how|that|it|the|your|this))(?:(?<=[^a-z])|(?![a-z]))/i;

/** A name or identifier bound by the sentence: "call me X", "my X is Y", "… is called Y", "named Y". */
const BINDING =
  /\b(call me|my name is|i am called|i'm called|refer to (?:me|it|this|them) as|(?:is|are|was|were) (?:called|named)|codename|code name)\b/i;
const POSSESSIVE_IS = /\b(?:my|our|the team's|the team’s)\s+(?:[\w'’-]+\s+){0,3}(?:is|are|was|were)\b/i;

/**
 * An identifier-like token: has a digit, or joins letters with - _ / . : (INV-04512, qx-12,
 * feat/login, 14:05), or is capitalised mid-sentence (a name).
 */
const IDENTIFIER =
  /(?:\b[\p{L}]*\d[\p{L}\d._:/-]*\b|\b[\p{L}\d]+[-_/.:][\p{L}\d]+\b|"[^"]{1,60}"|`[^`]{1,60}`)/u;
const MID_SENTENCE_NAME = /\s\p{Lu}\p{Ll}{2,}/u;

function firstWords(sentence: string): string[] {
  return sentence
    .toLowerCase()
    .replace(/^[^\p{L}]+/u, '')
    .split(/[\s,;:!]+/)
    .filter(Boolean)
    .slice(0, 4);
}

function opensImperative(sentence: string): boolean {
  const words = firstWords(sentence);
  let index = 0;
  while (index < words.length - 1 && LEAD_INS.has(words[index]!)) index += 1;
  const word = words[index];
  if (word !== undefined && RULE_OPENERS.has(word)) {
    // "Always reply in French", "Never push to main", "No emoji": a rule, when a verb or a noun
    // phrase follows; "Always a joy", "Never heard of it" are small talk (caught above).
    return true;
  }
  if (word === undefined || !IMPERATIVE_VERBS.has(word)) return false;
  // "Use …" but not "Use of …" / "Keep in mind that …" style noun or idiom openings.
  const next = words[index + 1];
  return next !== 'of' && next !== 'in';
}

/** A leading condition clause ("When you list options, …") and what follows its comma. */
const CONDITION_FIRST =
  /^(?:when|whenever|if|before|after|once|unless|while|every time)\b[^,]{1,100},\s*(.+)$/i;

function isSmallTalk(sentence: string): boolean {
  const words = sentence.replace(/^[^\p{L}]+/u, '').split(/\s+/);
  let index = 0;
  while (index < words.length - 1 && LEAD_INS.has(words[index]!.toLowerCase().replace(/[,;:!]+$/, '')))
    index += 1;
  return SMALL_TALK.test(words.slice(index).join(' '));
}

/**
 * A statement about the speaker ("I see them at least once a week", "Every time I go back, I feel…")
 * is not addressed to anyone: a first-person "I" and no "you". Preferences were checked before.
 */
function isNarrative(sentence: string): boolean {
  return /\bI(?:'m|’m|'ll|’ll|'ve|’ve|'d|’d)?\b/.test(sentence) && !/\b(?:you|your|yours)\b/i.test(sentence);
}

/**
 * Whether a sentence is conversation rather than direction (ADR-0160): a social formula
 * ("Keep it up!", "No worries"), first-person narration with no "you", or a guess shaped like a rule
 * ("That must have been awesome", "You must love it"). A marker-word extractor uses it to avoid
 * pinning small talk.
 *
 * @param sentence - One sentence.
 * @returns True when it reads as conversation.
 */
export function isConversationalSentence(sentence: string): boolean {
  const text = sentence.trim();
  if (PREFERENCE.test(text) || BINDING.test(text)) return false;
  return isSmallTalk(text) || isNarrative(text) || EPISTEMIC.test(text);
}

const EPISTEMIC = /\bmust(?:n't)? (?:have|be|feel|love|really|know|think|enjoy|get|miss|'ve)\b/i;

function isQuestion(sentence: string): boolean {
  return /\?\s*$/.test(sentence) && !/\b(could|can|would|will) you\b/i.test(sentence);
}

/**
 * Whether one sentence is a standing instruction, preference or binding a person would expect to
 * hold for the rest of the session.
 */
export function isUserInstruction(sentence: string): boolean {
  const text = sentence.trim();
  if (text.length < 6 || isQuestion(text)) return false;
  if (PREFERENCE.test(text) || BINDING.test(text)) return true;
  if (isSmallTalk(text) || isNarrative(text)) return false;
  if (PERSISTENCE.test(text)) return true;
  if (MARKERS.test(text)) return true;
  if (opensImperative(text)) return true;
  // "When you list options, number them …": a condition, then the imperative.
  const conditioned = CONDITION_FIRST.exec(text);
  if (conditioned && opensImperative(conditioned[1]!) && !isSmallTalk(conditioned[1]!)) return true;
  return POSSESSIVE_IS.test(text) && (IDENTIFIER.test(text) || MID_SENTENCE_NAME.test(text));
}

/** Sentences of `text`: split after . ! ? and at line breaks, whitespace trimmed, empty ones left out. */
export function sentencesOfText(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0);
}

/** The sentences of a user's text that `isUserInstruction` recognises, in order, verbatim. */
export function userInstructionSentences(text: string, maxSentenceChars = 400): string[] {
  return sentencesOfText(text).filter(
    (sentence) => sentence.length <= maxSentenceChars && isUserInstruction(sentence),
  );
}
