import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextParts } from '../ui/context-parts.js';

const count = fc.integer({ min: 0, max: 50_000 });

describe('contextParts', () => {
  it('adds up to the window exactly, and the sent parts to the rendered total', () => {
    fc.assert(
      fc.property(
        count,
        count,
        count,
        count,
        count,
        count,
        count,
        count,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (system, tools, formatting, messages, rehydration, room, reserve, recall, summaryShare) => {
          const total = system + tools + formatting + messages + rehydration + recall;
          const summary = Math.floor(messages * summaryShare);
          const ceiling = total + room;
          const contextWindow = ceiling + reserve;
          const parts = contextParts(
            { system, tools, formatting, messages, summary, rehydration, recall, total },
            ceiling,
            contextWindow,
          );
          const part = (key: string) => parts.find((entry) => entry.key === key)!.tokens;
          expect(part('summary')).toBe(summary);
          expect(part('summary') + part('conversation')).toBe(messages);
          expect(part('rehydration')).toBe(rehydration + recall);
          expect(part('formatting')).toBe(formatting);
          expect(parts.reduce((sum, part) => sum + part.tokens, 0)).toBe(contextWindow);
          const sent = parts.filter((part) => !['free', 'reserve'].includes(part.key));
          expect(sent.reduce((sum, part) => sum + part.tokens, 0)).toBe(total);
          expect(parts.find((part) => part.key === 'free')!.tokens).toBe(room);
          expect(parts.every((part) => part.tokens >= 0)).toBe(true);
        },
      ),
    );
  });

  it('counts tokens the report does not name as formatting', () => {
    const parts = contextParts(
      { system: 10, tools: 5, formatting: 3, messages: 100, rehydration: 0, total: 120 },
      200,
      300,
    );
    expect(parts.find((part) => part.key === 'formatting')!.tokens).toBe(5);
    expect(parts.find((part) => part.key === 'reserve')!.tokens).toBe(100);
  });
});
