/**
 * ADR-0405: the summarizer's faster paths give the same results as the definitions they replaced, which these
 * tests keep as oracles (a regex per character for shell words, every message split into sentences for decisions).
 */
import { threadBuilder } from '@compactor/testkit/thread-builder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractDecisions } from '../src/extractive/assistant-notes.js';
import { searchPatternsOf } from '../src/extractive/shell-commands.js';
import { clip, sentencesOf, textOf } from '../src/text.js';

/** `searchPatternsOf` as it was before ADR-0405 (segments read with a regex per character). */
function searchPatternsBefore(command: string): string[] {
  const segments: Array<Array<{ text: string; quoted: boolean }>> = [[]];
  let word: { text: string; quoted: boolean } | undefined;
  let quote: string | undefined;
  const endWord = () => {
    if (word) segments.at(-1)!.push(word);
    word = undefined;
  };
  for (let at = 0; at < command.length; at += 1) {
    const char = command[at]!;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && /[$`"\\]/.test(command[at + 1] ?? ''))
        word!.text += command[++at];
      else word!.text += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      word ??= { text: '', quoted: true };
      word.quoted = true;
    } else if (/[|;&\n]/.test(char)) {
      endWord();
      if (segments.at(-1)!.length > 0) segments.push([]);
    } else if (/\s/.test(char)) endWord();
    else {
      word ??= { text: '', quoted: false };
      word.text += char;
    }
  }
  endWord();
  const patterns: string[] = [];
  for (const words of segments) {
    if (words.length === 0 || !['grep', 'egrep', 'fgrep', 'rg', 'ag'].includes(words[0]!.text)) continue;
    const operands = words.slice(1);
    const pattern =
      operands.find((each) => each.quoted) ??
      operands.find((each) => !each.text.startsWith('-') && !/^\d+$/.test(each.text));
    if (pattern && pattern.text.trim().length > 0) patterns.push(pattern.text);
  }
  return patterns;
}

/** Shell-ish text: search programs, options, quotes, escapes, separators and every kind of whitespace. */
const shellPiece = fc.constantFrom(
  'grep',
  'rg',
  'ag',
  'egrep',
  'cat',
  'ls',
  '-n',
  '-A',
  '15',
  '--type',
  'ts',
  'foo',
  'interface ToolAPI',
  '"',
  "'",
  '\\',
  '$',
  '`',
  '|',
  '||',
  '&&',
  ';',
  '\n',
  ' ',
  '  ',
  '\t',
  '\u00a0',
  '\u2003',
  '\ufeff',
  '\v',
  'x',
);
const shellCommand = fc.array(shellPiece, { maxLength: 24 }).map((pieces) => pieces.join(''));

describe('searchPatternsOf (ADR-0405: character comparisons instead of a regex per character)', () => {
  it('finds the same patterns as the regex-per-character reading, for any command', () => {
    fc.assert(
      fc.property(fc.oneof(shellCommand, fc.string({ unit: 'binary', maxLength: 40 })), (command) => {
        expect(searchPatternsOf(command)).toEqual(searchPatternsBefore(command));
      }),
      { numRuns: 3000 },
    );
  });

  it('reads unicode whitespace as a word break, as `\\s` does', () => {
    expect(searchPatternsOf('grep\u00a0needle\u2003file')).toEqual(['needle']);
    expect(searchPatternsBefore('grep\u00a0needle\u2003file')).toEqual(['needle']);
  });
});

/** `extractDecisions` as it was before ADR-0405: every assistant message split into sentences. */
function decisionsBefore(messages: Parameters<typeof extractDecisions>[0], maxDecisions: number) {
  const markers =
    /\b(i'll|i will|let's|let us|we'll|we will|decided|decision|going to|instead|the fix is|root cause|the problem (is|was)|the issue (is|was)|because|switch(ed)? to|chose|choose)\b/i;
  const decisions: Array<{ decision: string; turn: number }> = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || message.subagentId !== undefined) continue;
    for (const sentence of sentencesOf(textOf(message.content))) {
      if (sentence.length < 20 || !markers.test(sentence)) continue;
      const decision = clip(sentence, 220);
      if (seen.has(decision)) continue;
      seen.add(decision);
      decisions.push({ decision, turn: message.turn });
    }
  }
  return decisions.slice(-maxDecisions);
}

const prosePiece = fc.constantFrom(
  "I'll",
  'i will',
  "let's",
  'we will',
  'because',
  'switched to',
  'the problem was',
  'root cause',
  'instead',
  'decided',
  'The',
  'file',
  'is',
  'fixed',
  '.',
  '!',
  '?',
  ' ',
  '\n',
  '```',
  'x```y',
  '(',
  '"',
  'A',
  '0',
  'i',
  'will',
  'let',
  "'s",
  '-',
  'ab',
  '  ',
);
const prose = fc.array(prosePiece, { maxLength: 30 }).map((pieces) => pieces.join(''));

describe('extractDecisions (ADR-0405: a message without a marker is not split)', () => {
  it('keeps the same decisions as splitting every message, for any assistant prose', () => {
    fc.assert(
      fc.property(
        fc.array(prose, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 12 }),
        (texts, max) => {
          const builder = threadBuilder();
          for (const text of texts) builder.user('go on').assistant(text);
          const messages = builder.build().thread.messages;
          expect(extractDecisions(messages, max).map(({ decision, turn }) => ({ decision, turn }))).toEqual(
            decisionsBefore(messages, max),
          );
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('still finds a decision in a message whose code fences are cut out', () => {
    const messages = threadBuilder()
      .user('go on')
      .assistant('```ts\nconst a = 1;\n```\nI will switch the parser to the streaming one.')
      .build().thread.messages;
    expect(extractDecisions(messages, 12).map((each) => each.decision)).toEqual([
      'I will switch the parser to the streaming one.',
    ]);
  });
});
