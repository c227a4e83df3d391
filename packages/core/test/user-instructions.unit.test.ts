import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUserInstruction, userInstructionSentences } from '../src/index.js';

describe('isUserInstruction', () => {
  it.each([
    'Reply in Portuguese from here on.',
    'Use British spelling please.',
    'Please keep the answers short and plain.',
    'Keep answers under 100 words.',
    'Also, number the options rather than bullet them.',
    'From now on, sign your messages as the Helper.',
    'I prefer metric units when you give measurements.',
    "I'd like you to quote the exact error text in reports.",
    'Going forward we only target Node 20.',
    'Call me Ottoline.',
    'My name is Priyanka and I run the infra team.',
    'Our staging box is called kestrel-07.',
    'My locker code is 5433.',
    'The repo is named ledger-sync.',
    'Could you always add a one-line summary at the top?',
    'Port over user-message-selector.ts to the new package.',
    'Leave the migrations folder alone whatever happens.',
    'Never push to main without a review.',
    'Write dates as YYYY-MM-DD in the changelog.',
    // Coding and dialogue instructions without keyword markers.
    'Keep your answers under 60 words.',
    'Stay within the public API of the render package.',
    'Always run the linter before you commit.',
    'Skip the pleasantries and get straight to the point.',
    'Let the tests run one file at a time.',
    'No emoji in commit messages.',
    'Whenever you mention a date, write it as DD/MM/YYYY.',
    'I want you to answer in the second person.',
    'When you list options, number them instead of using bullets.',
    'If a test fails, show me the whole error.',
  ])('recognises %j', (sentence) => {
    expect(isUserInstruction(sentence)).toBe(true);
  });

  it.each([
    'What time is it in Osaka?',
    'That must have been awesome?',
    'Thanks, that worked.',
    'The build finished in four minutes.',
    'Hello there.',
    'Use of the old API dropped sharply last year.',
    'It was raining when we got to the station.',
    'Sounds good to me.',
    'Why did the test fail again?',
    // Dialogue small talk (ADR-0160): shaped like imperatives or rules, binding nothing.
    'Keep it up!',
    'Keep up the great work, Maria!',
    'Stay safe and talk to you soon!',
    'Let me know if you need any suggestions!',
    'No worries, Jolene!',
    'No problem, John.',
    "Don't give up on your dreams.",
    'Check out this pic of my best buds having a blast in the park.',
    'You must have been elated up there with that trophy.',
    'That must have been awesome.',
    'Always a joy to see him so happy and carefree.',
    'Never heard of it, but it sounds interesting.',
    'Take care and make sure to give yourself some time to relax.',
    'I see them at least once a week.',
    'Every time I go back, I feel so much peace and gratitude.',
    "I'll make sure to spread the word about it.",
    'When we got there, it was raining.',
    'If you need anything, let me know!',
  ])('leaves %j alone', (sentence) => {
    expect(isUserInstruction(sentence)).toBe(false);
  });

  it('picks the instruction sentences out of a longer message, verbatim and in order', () => {
    const text =
      'Here is the log from last night. It failed twice.\nKeep answers under 80 words. The rest looks fine. Call me Rosalind from now on.';
    expect(userInstructionSentences(text)).toEqual([
      'Keep answers under 80 words.',
      'Call me Rosalind from now on.',
    ]);
  });
});

/* Generated phrasings: a request in one of several grammatical shapes (imperative, lead-in + imperative,
 * preference, persistence, binding of a generated name or identifier), with generated content words. */
const word = fc.stringMatching(/^[a-z]{3,9}$/);
const name = fc.stringMatching(/^[A-Z][a-z]{3,9}$/);
const identifier = fc
  .tuple(
    fc.stringMatching(/^[a-z]{2,6}$/),
    fc.integer({ min: 1, max: 99999 }),
    fc.constantFrom('-', '_', '/', ''),
  )
  .map(([stem, number, joiner]) => `${stem}${joiner}${number}`);
const verb = fc.constantFrom(
  'use',
  'keep',
  'reply',
  'write',
  'answer',
  'format',
  'stick',
  'avoid',
  'add',
  'skip',
  'leave',
  'sign',
);
const leadIn = fc.constantFrom('', 'Please ', 'Also, ', 'And ', 'Just ', 'Okay, ');
const persistence = fc.constantFrom(
  'from now on',
  'going forward',
  'for the rest of the session',
  'every time',
  'in every reply',
  'whatever happens',
);
const preference = fc.constantFrom(
  'I prefer',
  "I'd prefer",
  "I'd like you to use",
  'I want you to use',
  'I would rather see',
);
const noun = fc.constantFrom('project', 'server', 'branch', 'cat', 'ticket', 'bucket', 'team', 'codename');

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const instruction = fc.oneof(
  fc
    .tuple(leadIn, verb, word, word)
    .map(([lead, v, a, b]) => `${lead}${lead ? v : capitalise(v)} ${a} ${b}.`),
  fc.tuple(word, word, persistence).map(([a, b, p]) => `The ${a} goes ${b} ${p}.`),
  fc.tuple(preference, word, word).map(([p, a, b]) => `${p} ${a} ${b} in the answers.`),
  fc.tuple(noun, identifier).map(([n, id]) => `Our ${n} is ${id}.`),
  fc.tuple(noun, name).map(([n, who]) => `The ${n} is called ${who}.`),
  name.map((who) => `Call me ${who}.`),
);

describe('isUserInstruction over generated phrasings', () => {
  it('recognises every generated instruction, preference and binding', () => {
    fc.assert(
      fc.property(instruction, (sentence) => isUserInstruction(sentence)),
      { numRuns: 500 },
    );
  });

  it('ends a social formula where its word ends (fast-check found "Keep onaaa aaa." taken for "Keep on")', () => {
    for (const sentence of [
      'Keep onaaa aaa.',
      'Keep onboarding notes short.',
      'Stay truthful in every summary.',
    ])
      expect(isUserInstruction(sentence), sentence).toBe(true);
    for (const sentence of ['Keep on rocking!', 'Stay true!', 'Remember, it was fun.'])
      expect(isUserInstruction(sentence), sentence).toBe(false);
  });

  it('never takes a plain question for an instruction', () => {
    fc.assert(
      fc.property(word, word, (a, b) => !isUserInstruction(`Why is the ${a} ${b} today?`)),
      { numRuns: 200 },
    );
  });
});
