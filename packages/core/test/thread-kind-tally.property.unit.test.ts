import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tallyThreadKind, threadKindOf } from '../src/index.js';

const message = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const),
  synthetic: fc.boolean(),
  content: fc.array(
    fc.oneof(
      fc.record({ type: fc.constant('text' as const), text: fc.constantFrom('', '  ', 'hello', 'fine') }),
      fc.record({
        type: fc.constant('tool_call' as const),
        id: fc.constant('c1'),
        name: fc.constant('bash'),
        input: fc.constant({}),
      }),
    ),
    { maxLength: 2 },
  ),
});

describe('tallyThreadKind: a thread counted in pieces (the render memo, ADR-0276)', () => {
  it('extended piece by piece, it gives the kind threadKindOf gives the whole thread', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 14 }),
        fc.array(fc.nat(14), { maxLength: 4 }),
        (messages, cuts) => {
          let tally: ReturnType<typeof tallyThreadKind> | undefined;
          for (const cut of [...cuts].sort((left, right) => left - right)) {
            tally = tallyThreadKind(tally, messages.slice(0, Math.min(cut, messages.length)));
            expect(tally.kind).toBe(threadKindOf(messages.slice(0, Math.min(cut, messages.length))));
          }
          tally = tallyThreadKind(tally, messages);
          expect(tally.kind).toBe(threadKindOf(messages));
          expect(tally.scanned).toBe(messages.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('starts over on a thread shorter than the tally saw', () => {
    const talk = (role: 'user' | 'assistant') => ({
      role,
      synthetic: false,
      content: [{ type: 'text' as const, text: 'hi' }],
    });
    const long = [talk('user'), talk('assistant'), talk('user'), talk('assistant')];
    const tally = tallyThreadKind(undefined, long);
    expect(tally.kind).toBe('dialogue');
    expect(tallyThreadKind(tally, long.slice(0, 2)).kind).toBe('other');
  });
});
