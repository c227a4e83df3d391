import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asksForRecall } from '../src/index.js';

describe('asksForRecall (ADR-0320)', () => {
  it('reads a question, in any script, or a cue that points back, as asking', () => {
    for (const text of [
      'When did Caroline go to the support group?',
      'Wow! How did they like it?',
      '¿Dónde está el hotel',
      '会議は何時ですか？',
      'Remind me of the staging server name.',
      'As I mentioned earlier, the budget code matters.',
      'What was the name we talked about',
    ])
      expect(asksForRecall(text), text).toBe(true);
  });

  it('reads small talk, reactions and statements as asking nothing', () => {
    for (const text of [
      "Thanks, Mel! That's so sweet.",
      'Yeah, that is true! It is so freeing to just be yourself.',
      'I painted it after I visited the beach last week.',
      'Reminders are on my fridge.',
    ])
      expect(asksForRecall(text), text).toBe(false);
  });

  it('a text is asking once a question mark is added, and a text of plain words and stops never is', () => {
    const plain = fc
      .array(fc.constantFrom('we', 'went', 'painting', 'great', 'day', 'kids', 'beach', '!', '.', ','), {
        maxLength: 30,
      })
      .map((words) => words.join(' '));
    fc.assert(
      fc.property(plain, (text) => {
        expect(asksForRecall(text)).toBe(false);
        expect(asksForRecall(`${text}?`)).toBe(true);
      }),
    );
  });
});
