import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  mergeSummaries,
  renderSummary,
  type StructuredSummary,
  stableStringify,
  structuredSummarySchema,
} from '../src/index.js';
import { arbitraryStructuredSummary } from './support/testkit.js';

const summary = arbitraryStructuredSummary();

/** Reverse the key order of every object at every depth (same value, different insertion order). */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, child]) => [key, reverseKeys(child)]),
    );
  }
  return value;
}

/** How the merge identifies one tool call across rounds (its id, else its name and key fields). */
const outcomeKey = (outcome: StructuredSummary['toolOutcomes'][number]) =>
  outcome.toolCallId ?? `${outcome.toolName}:${stableStringify(outcome.keyFields)}`;

describe('structured summaries (properties)', () => {
  it('10 successive merges lose no pinned fact and no key field', () => {
    fc.assert(
      fc.property(fc.array(summary, { minLength: 10, maxLength: 10 }), (rounds) => {
        const [first, ...rest] = rounds;
        const merged = rest.reduce((older, newer) => mergeSummaries(older, newer), first!);
        const pinned = new Set(merged.facts.filter((fact) => fact.pinned).map((fact) => fact.text));
        for (const round of rounds) {
          for (const fact of round.facts) {
            if (fact.pinned) expect(pinned.has(fact.text), `pinned fact ${fact.text}`).toBe(true);
            else expect(merged.facts.some((kept) => kept.text === fact.text)).toBe(true);
          }
        }
        // Expected key fields per call: every field ever reported, with its latest value.
        const expected = new Map<string, Record<string, unknown>>();
        for (const round of rounds) {
          for (const outcome of round.toolOutcomes) {
            const key = outcomeKey(outcome);
            expected.set(key, { ...expected.get(key), ...outcome.keyFields });
          }
        }
        const actual = new Map(
          merged.toolOutcomes.map((outcome) => [outcomeKey(outcome), outcome.keyFields]),
        );
        expect(actual).toEqual(expected);
        expect(structuredSummarySchema.parse(merged)).toEqual(merged);
      }),
      { numRuns: 200 },
    );
  });

  it('merge is deterministic and idempotent', () => {
    fc.assert(
      fc.property(summary, summary, (older, newer) => {
        const merged = mergeSummaries(older, newer);
        expect(mergeSummaries(structuredClone(older), structuredClone(newer))).toEqual(merged);
        expect(mergeSummaries(older, merged)).toEqual(merged);
        expect(mergeSummaries(merged, newer)).toEqual(merged);
        expect(mergeSummaries(merged, merged)).toEqual(merged);
        expect(renderSummary(mergeSummaries(older, merged))).toBe(renderSummary(merged));
      }),
      { numRuns: 300 },
    );
  });

  it('renderSummary gives the same bytes for equal summaries, whatever the key order of key fields', () => {
    fc.assert(
      fc.property(summary, (value) => {
        const rendered = renderSummary(value);
        expect(renderSummary(structuredClone(value))).toBe(rendered);
        expect(renderSummary(reverseKeys(value) as StructuredSummary)).toBe(rendered);
        expect(rendered.startsWith('[Summary v1]')).toBe(true);
        for (const fact of value.facts) expect(rendered).toContain(fact.text);
        for (const outcome of value.toolOutcomes) {
          if (Object.keys(outcome.keyFields).length > 0)
            expect(rendered).toContain(stableStringify(outcome.keyFields));
        }
      }),
      { numRuns: 300 },
    );
  });
});
