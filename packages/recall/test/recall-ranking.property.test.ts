import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { createRecallIndex, type RecallDocument } from '../src/index.js';
import { recallTerm, tokenizeRecallText } from '../src/terms.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

const QUERY = {
  combineWith: 'OR',
  prefix: false,
  fuzzy: false,
  boost: { text: 1, context: 0.5 },
} as const;

/**
 * The index as it was before ADR-0230: the same minisearch calls, one OR query over every posting, sorted
 * (with replaced documents' postings dropped before scoring, as the index now does), keeping only
 * documents matching in their own text (ADR-0220).
 */
function referenceIndex() {
  const search = new MiniSearch<{ id: string; text: string; context: string }>({
    fields: ['text', 'context'],
    storeFields: [],
    tokenize: tokenizeRecallText,
    processTerm: recallTerm,
  });
  const seq = new Map<string, number>();
  const text = new Map<string, string>();
  let next = 0;
  return {
    add(documents: readonly RecallDocument[]) {
      for (const document of documents) {
        if (seq.has(document.id)) {
          search.discard(document.id);
          seq.delete(document.id);
        }
        seq.set(document.id, next++);
        text.set(document.id, document.text);
        search.add({ id: document.id, text: document.text, context: document.context ?? '' });
      }
    },
    search(
      query: string,
      options: { topK: number; maxTokens: number; minScore: number; exclude: (id: string) => boolean },
    ) {
      // A first pass drops replaced documents' postings (minisearch does so lazily, mid-search).
      if (search.dirtCount > 0) search.search(query, QUERY);
      const ranked = search
        .search(query, QUERY)
        .filter((result) => Object.values(result.match).some((fields) => fields.includes('text')))
        .map((result) => ({ id: String(result.id), score: result.score }))
        .sort((left, right) => right.score - left.score || seq.get(left.id)! - seq.get(right.id)!);
      const hits: { id: string; score: number }[] = [];
      let tokens = 0;
      for (const entry of ranked) {
        if (hits.length >= options.topK) break;
        if (entry.score < options.minScore) break;
        if (options.exclude(entry.id)) continue;
        const cost = words(text.get(entry.id)!);
        if (tokens + cost > options.maxTokens) continue;
        tokens += cost;
        hits.push(entry);
      }
      return { hits, matched: ranked.length };
    },
  };
}

// A small vocabulary, so words are common, scores tie and documents repeat lengths.
const word = fc.constantFrom(
  'step',
  'steps',
  'parser',
  'cache',
  'cached',
  'Caroline',
  'the',
  'bug',
  '42',
  'fix',
  'queue',
  'a',
  'LGBTQ+',
);
const text = fc.array(word, { minLength: 1, maxLength: 8 }).map((list) => list.join(' '));

describe('recall search ranks lazily as minisearch ranks everything (ADR-0230)', () => {
  // Both ways of ranking (ADR-0340) and the choice between them give minisearch's hits.
  it.each(['auto', 'threshold', 'scan'] as const)(
    'gives the same hits, scores and match count as a full OR search, across searches and additions (%s ranking)',
    (ranking) => {
      fc.assert(
        fc.property(
          // Distinct ids, as render-time recall adds them (each compacted message once, in log order): a
          // replaced document leaves minisearch's postings stale until a search happens to clean them,
          // which makes scores depend on which searches ran before (with or without ADR-0230).
          fc.uniqueArray(
            fc.record(
              { id: fc.string({ minLength: 1, maxLength: 4 }), text, context: text },
              { requiredKeys: ['id', 'text'] },
            ),
            {
              minLength: 1,
              maxLength: 200,
              selector: (document) => document.id,
            },
          ),
          fc.array(
            fc.record({
              // Up to twelve words, so a query of many matching words is scored in one pass under `auto`.
              query: fc.array(word, { minLength: 1, maxLength: 12 }).map((list) => list.join(' ')),
              topK: fc.integer({ min: 1, max: 8 }),
              maxTokens: fc.integer({ min: 1, max: 40 }),
              minScore: fc.constantFrom(0, 0.5, 1, 3),
              excluded: fc.constantFrom('', 'a', 'b', 'c'),
              // Many excluded at once, as append-only recall excludes every earlier block's hits.
              excludeEvery: fc.constantFrom(0, 2, 3),
              addAfter: fc.integer({ min: 0, max: 3 }),
            }),
            { minLength: 1, maxLength: 6 },
          ),
          // Append-only recall's way (ADR-0342): every search's hits join a set passed to the next ones.
          fc.boolean(),
          (documents, searches, growing) => {
            const shown = new Set<string>();
            const index = createRecallIndex({ ranking });
            const reference = referenceIndex();
            let added = Math.max(1, documents.length - 6);
            index.add(documents.slice(0, added));
            reference.add(documents.slice(0, added));
            for (const search of searches) {
              const options = {
                topK: search.topK,
                maxTokens: search.maxTokens,
                minScore: search.minScore,
                exclude: (id: string) =>
                  id === search.excluded ||
                  (search.excludeEvery > 0 && id.charCodeAt(0) % search.excludeEvery === 0),
              };
              const got = index.search({
                query: search.query,
                countTokens: words,
                ...options,
                ...(growing ? { excludeGrowing: shown } : {}),
              });
              const want = reference.search(search.query, {
                ...options,
                exclude: (id: string) => options.exclude(id) || shown.has(id),
              });
              for (const hit of got.hits) if (growing) shown.add(hit.id);
              expect(got.hits.map((hit) => [hit.id, hit.score])).toEqual(
                want.hits.map((hit) => [hit.id, hit.score]),
              );
              expect(got.matched).toBe(want.matched);
              index.add(documents.slice(added, added + search.addAfter));
              reference.add(documents.slice(added, added + search.addAfter));
              added = Math.min(documents.length, added + search.addAfter);
            }
          },
        ),
        { numRuns: 200 },
      );
    },
  );

  // Building two 20,000-document indexes takes seconds on a loaded machine (timed out at 5 s on main too).
  it('reads a common word only as deep as top-k needs: 20,000 matches, searched at a fraction of a full scan', {
    timeout: 60_000,
  }, () => {
    const documents = Array.from({ length: 20_000 }, (_, n) => ({
      id: `m${n}`,
      text: `Step ${n}: fix the parser.`,
    }));
    const index = createRecallIndex();
    index.add(documents);
    const reference = referenceIndex();
    reference.add(documents);
    const options = { topK: 4, maxTokens: 100, minScore: 0, exclude: () => false };
    const first = index.search({ query: 'one more thing, step 77', countTokens: words, ...options });
    expect(first.hits[0]!.id).toBe('m77');
    expect(first.matched).toBe(20_000);
    // Paired and alternating, so machine load slows both: the full OR query scores all 20,000
    // documents for "step" on every search; the index reads about top-k of its kept list.
    let full = 0;
    let lazy = 0;
    for (let n = 10; n < 60; n += 1) {
      const query = `one more thing, step ${n}`;
      let started = performance.now();
      const want = reference.search(query, options);
      full += performance.now() - started;
      started = performance.now();
      const got = index.search({ query, countTokens: words, ...options });
      lazy += performance.now() - started;
      expect(got.hits.map((hit) => hit.id)).toEqual(want.hits.map((hit) => hit.id));
    }
    expect(lazy * 5).toBeLessThan(full);
  });
});
