import type { EventInput } from '@compactor/core';
import { threadBuilder } from '@compactor/testkit/thread-builder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerMatches, chanceWords, isScorableAnswer, wordsOf } from '../src/eval/answer-match.js';
import { generateNeedles, seededRandom } from '../src/eval/needles.js';
import { ceilingForWindow, windowForCeiling } from '../src/eval/ours-conditioned.js';
import { plantNeedles } from '../src/eval/plant-needles.js';
import { evidencePresent } from '../src/eval/strict-evidence.js';

describe('answer on word boundaries', () => {
  it('no longer counts the chance substrings the old check did', () => {
    const text = wordsOf('In 2023 I got to know Joanna; yes, it was fun.');
    expect(answerMatches(text, '2')).toBe(false);
    expect(answerMatches(text, 'no')).toBe(false);
    expect(answerMatches(text, 'jo')).toBe(false);
    expect(answerMatches(text, 'Yes')).toBe(false);
    expect(answerMatches(text, 'Joanna')).toBe(true);
    expect(answerMatches(text, '2023')).toBe(true);
  });

  it('matches across punctuation and case, and only whole words', () => {
    const text = wordsOf('She moved on 7 May, 2023 — to Paris!');
    expect(answerMatches(text, '7 May 2023')).toBe(true);
    expect(answerMatches(text, 'paris')).toBe(true);
    expect(answerMatches(text, 'Pari')).toBe(false);
    expect(answerMatches(wordsOf('Parisian cafés'), 'Paris')).toBe(false);
  });

  it('scores only answers of 4+ characters that are not yes/no', () => {
    expect(isScorableAnswer(undefined)).toBe(false);
    expect(isScorableAnswer('Yes')).toBe(false);
    expect(isScorableAnswer('No, she did not')).toBe(false);
    expect(isScorableAnswer('red')).toBe(false);
    expect(isScorableAnswer('3 cats')).toBe(true);
    expect(isScorableAnswer('2022')).toBe(true);
  });

  it('never matches an answer the text does not hold as a word run (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta'), { maxLength: 8 }), (words) => {
        const text = wordsOf(words.join(' '));
        expect(answerMatches(text, 'epsilon')).toBe(false);
        expect(answerMatches(text, 'alph')).toBe(false);
        expect(answerMatches(text, 'alpha')).toBe(words.includes('alpha'));
      }),
    );
  });
});

describe('chance floor', () => {
  const messages = [
    { id: 'a', text: 'We went to Lisbon in June.', tokens: 10 },
    { id: 'b', text: 'The evidence: Melanie painted a sunrise.', tokens: 10 },
    { id: 'c', text: 'Lisbon was sunny.', tokens: 10 },
    { id: 'd', text: 'Then we flew home.', tokens: 10 },
  ];

  it('holds none of the evidence, newest first within the tokens, plus the question', () => {
    const words = chanceWords(messages, new Set(['b']), 20, 'What did Melanie paint?');
    expect(words).toBe(wordsOf('Lisbon was sunny.\nThen we flew home.\nWhat did Melanie paint?'));
    expect(answerMatches(words, 'a sunrise')).toBe(false);
    expect(answerMatches(words, 'Lisbon')).toBe(true);
    // More tokens reach further back, still skipping the evidence.
    const wide = chanceWords(messages, new Set(['b']), 100, '?');
    expect(wide).toContain('june');
    expect(wide).not.toContain('sunrise');
  });
});

describe('strict evidence', () => {
  const evidence = [
    { id: 'm1', text: 'I adopted a dog named Rex.' },
    { id: 'm2', text: 'Rex loves the beach.' },
  ];
  it('needs every evidence turn whole, verbatim or inside a summary or recall block', () => {
    const both = 'summary: caroline said: i adopted a dog named rex. later: rex loves the beach.';
    expect(evidencePresent(both, evidence, new Map())).toBe(true);
    expect(evidencePresent('i adopted a dog named rex.', evidence, new Map())).toBe(false);
    expect(evidencePresent('i adopted a dog named rex. rex loves the', evidence, new Map())).toBe(false);
  });
  it('accepts an artifact pointer only when the request names that artifact', () => {
    const artifacts = new Map([['art-7', new Set(['m2'])]]);
    expect(evidencePresent('i adopted a dog named rex. see art-7', evidence, artifacts)).toBe(true);
    expect(evidencePresent('i adopted a dog named rex.', evidence, artifacts)).toBe(false);
  });
  it('is never satisfied for a question whose evidence names no turn', () => {
    expect(evidencePresent('anything', [], new Map())).toBe(false);
  });
});

describe('needles', () => {
  it('are the same for the same seed and differ across seeds', () => {
    expect(generateNeedles(42, 6)).toEqual(generateNeedles(42, 6));
    const texts = (seed: number) => generateNeedles(seed, 6).map((needle) => needle.text);
    const distinct = new Set([1, 2, 3, 4, 5].map((seed) => texts(seed).join('|')));
    expect(distinct.size).toBeGreaterThan(1);
  });

  it('mix instructions and facts with no phrasing twice, and facts carry a question and a 4+ character value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), (seed) => {
        const needles = generateNeedles(seed, 6);
        expect(needles).toHaveLength(6);
        expect(needles.filter((needle) => needle.kind === 'fact')).toHaveLength(3);
        expect(new Set(needles.map((needle) => needle.text)).size).toBe(6);
        for (const needle of needles.filter((candidate) => candidate.kind === 'fact')) {
          expect(needle.question).toMatch(/\?$/);
          expect(isScorableAnswer(needle.value)).toBe(true);
          expect(answerMatches(wordsOf(needle.text), needle.value)).toBe(true);
          expect(answerMatches(wordsOf(needle.question ?? ''), needle.value)).toBe(false);
        }
        // Most carry none of the keyword markers an extractor could key on.
        const marked = needles.filter((needle) => /\b(always|never|must|don't|do not)\b/i.test(needle.text));
        expect(marked.length).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('seededRandom is a deterministic stream in [0, 1)', () => {
    const first = seededRandom(7);
    const second = seededRandom(7);
    for (let index = 0; index < 100; index += 1) {
      const value = first();
      expect(value).toBe(second());
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });

  it('are planted into early user turns and early tool output, each in its own message', () => {
    const builder = threadBuilder('plant');
    for (let turn = 0; turn < 20; turn += 1) {
      builder
        .user(`turn ${turn}`, { id: `u${turn}` })
        .assistant(undefined, { toolCalls: [{ id: `c${turn}`, name: 'bash', input: {} }] })
        .toolResult(`c${turn}`, 'ok', { id: `t${turn}` });
    }
    const events: EventInput[] = builder.build().events;
    const needles = generateNeedles(3, 6);
    const { events: planted, planted: where } = plantNeedles(events, needles, 3);
    expect(where).toHaveLength(6);
    expect(new Set(where.map((needle) => needle.messageId)).size).toBe(6);
    expect(where.some((needle) => needle.place === 'tool')).toBe(true);
    for (const needle of where) {
      // Early: the first quarter of the 20 user turns (u0–u4) or of the 61 events' messages (index < 15).
      expect(['u0', 'u1', 'u2', 'u3', 'u4', 't0', 't1', 't2', 't3', 't4']).toContain(needle.messageId);
      if (needle.kind === 'instruction') expect(needle.place).toBe('user');
      const event = planted.find(
        (candidate) => candidate.type === 'message.appended' && candidate.message.id === needle.messageId,
      );
      expect(JSON.stringify(event)).toContain(JSON.stringify(needle.text).slice(1, -1));
    }
    expect(plantNeedles(events, needles, 3)).toEqual(plantNeedles(events, needles, 3));
  });
});

describe('budgets stated as ceilings', () => {
  it('windowForCeiling is the smallest window whose render ceiling reaches the target', () => {
    fc.assert(
      fc.property(fc.integer({ min: 500, max: 200_000 }), (ceiling) => {
        const window = windowForCeiling(ceiling);
        expect(ceilingForWindow(window)).toBeGreaterThanOrEqual(ceiling);
        expect(ceilingForWindow(window - 1)).toBeLessThan(ceiling);
      }),
    );
  });
});
