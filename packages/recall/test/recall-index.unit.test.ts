import type { ThreadMessage } from '@compactor/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRecallIndex, messageRecallText, recallQuery } from '../src/index.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('createRecallIndex', () => {
  it('matches word forms and symbols alike: "painted" finds "painting", "LGBTQ+" finds "LGBTQ"', () => {
    const index = createRecallIndex();
    index.add([
      { id: 'paint', text: 'We love painting together lately, nature-inspired ones.' },
      { id: 'group', text: 'I went to a LGBTQ support group yesterday.' },
      { id: 'other', text: 'The build failed on the lint step again.' },
    ]);
    const search = (query: string) =>
      index.search({ query, topK: 3, maxTokens: 100, countTokens: words }).hits.map((hit) => hit.id);
    expect(search('What has Melanie painted?')).toEqual(['paint']);
    expect(search('What LGBTQ+ events has Caroline been to?')).toEqual(['group']);
  });

  it('ranks a document higher when its context matches, but never returns one on its context alone', () => {
    const index = createRecallIndex();
    index.add([
      {
        id: 'answer',
        text: 'Caroline: It taught me self-acceptance.',
        context: 'What did Becoming Nicole teach you?',
      },
      { id: 'plain', text: 'Caroline: I read a lot of books.' },
      { id: 'filler', text: 'Noted.', context: 'Caroline asked about Becoming Nicole.' },
    ]);
    const hits = index
      .search({
        query: 'What did Caroline take from Becoming Nicole?',
        topK: 3,
        maxTokens: 100,
        countTokens: words,
      })
      .hits.map((hit) => hit.id);
    expect(hits).toEqual(['answer', 'plain']);
    // The context is searched, never shown.
    expect(
      index.search({ query: 'Becoming Nicole', topK: 3, maxTokens: 100, countTokens: words }).hits,
    ).toEqual([]);
  });

  it('runs the README example: the turn about the locker comes back for a question about it', () => {
    const index = createRecallIndex();
    index.add([
      { id: 'm1', text: 'My locker code is 5433, gym on the second floor.', turn: 1 },
      { id: 'm2', text: 'We adopted a puppy named Biscuit last week.', turn: 2 },
      { id: 'm3', text: 'The build failed on the lint step again.', turn: 3 },
    ]);
    const result = index.search({
      query: 'What was my locker code again?',
      topK: 2,
      maxTokens: 50,
      minScore: 0.5,
      countTokens: words,
    });
    expect(result.hits.map((hit) => hit.id)).toEqual(['m1']);
    expect(result.hits[0]!.turn).toBe(1);
    expect(result.tokens).toBe(words('My locker code is 5433, gym on the second floor.'));
  });

  it('keeps the hits within the token budget and top-k, skipping a hit that does not fit', () => {
    const index = createRecallIndex();
    index.add([
      { id: 'long', text: `deploy ${'filler '.repeat(40)}` },
      { id: 'short1', text: 'deploy to staging' },
      { id: 'short2', text: 'deploy to production' },
      { id: 'short3', text: 'deploy again' },
    ]);
    const result = index.search({ query: 'deploy', topK: 2, maxTokens: 10, countTokens: words });
    expect(result.hits).toHaveLength(2);
    expect(result.hits.every((hit) => hit.id !== 'long')).toBe(true);
    expect(result.tokens).toBeLessThanOrEqual(10);
    expect(result.matched).toBe(4);
  });

  it('drops hits under the minimum score and excluded ids, and finds nothing for stop words only', () => {
    const index = createRecallIndex();
    index.add([
      { id: 'a', text: 'the kettle is broken' },
      { id: 'b', text: 'kettle kettle kettle descaling guide' },
    ]);
    const all = index.search({ query: 'kettle', topK: 5, maxTokens: 100, countTokens: words });
    expect(all.hits).toHaveLength(2);
    const excluded = index.search({
      query: 'kettle',
      topK: 5,
      maxTokens: 100,
      countTokens: words,
      exclude: (id) => id === 'b',
    });
    expect(excluded.hits.map((hit) => hit.id)).toEqual(['a']);
    const strict = index.search({
      query: 'kettle',
      topK: 5,
      maxTokens: 100,
      countTokens: words,
      minScore: (all.hits[0]!.score + all.hits[1]!.score) / 2,
    });
    expect(strict.hits).toHaveLength(1);
    expect(index.search({ query: 'what is the', topK: 5, maxTokens: 100, countTokens: words }).matched).toBe(
      0,
    );
  });

  it('removes documents, replaces a re-added id and evicts the oldest past maxDocuments', () => {
    const index = createRecallIndex({ maxDocuments: 2 });
    index.add([{ id: 'x', text: 'alpha' }]);
    index.add([{ id: 'x', text: 'beta' }]);
    expect(index.size).toBe(1);
    expect(index.search({ query: 'alpha', topK: 1, maxTokens: 9, countTokens: words }).hits).toEqual([]);
    index.add([
      { id: 'y', text: 'gamma' },
      { id: 'z', text: 'delta' },
    ]);
    expect(index.has('x')).toBe(false);
    expect(index.size).toBe(2);
    index.remove(['y']);
    expect(index.has('y')).toBe(false);
    expect(index.search({ query: 'gamma', topK: 1, maxTokens: 9, countTokens: words }).hits).toEqual([]);
  });

  it('gives the same hits for the same documents and query, whatever was removed before (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('red', 'blue', 'green', 'lamp', 'chair', 'tea'), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(
          fc.array(fc.constantFrom('red', 'blue', 'green', 'lamp', 'chair', 'tea'), { maxLength: 5 }),
          {
            minLength: 1,
            maxLength: 12,
          },
        ),
        fc.integer({ min: 1, max: 20 }),
        (query, texts, budget) => {
          const build = () => {
            const index = createRecallIndex();
            index.add(texts.map((text, i) => ({ id: `d${i}`, text: text.join(' ') })));
            return index;
          };
          const options = { query: query.join(' '), topK: 3, maxTokens: budget, countTokens: words };
          const first = build().search(options);
          const second = build().search(options);
          expect(second).toEqual(first);
          expect(first.tokens).toBeLessThanOrEqual(budget);
          expect(first.hits.length).toBeLessThanOrEqual(3);
          for (let i = 1; i < first.hits.length; i += 1)
            expect(first.hits[i - 1]!.score).toBeGreaterThanOrEqual(first.hits[i]!.score);
        },
      ),
    );
  });
});

describe('a growing exclusion (ADR-0342)', () => {
  it('skips only what the set held: a document read but not excluded comes back when it later fits', () => {
    // Long documents rank first on "step" (it repeats) and do not fit a small budget: read, not excluded.
    const documents = Array.from({ length: 100 }, (_, n) => ({
      id: `m${n}`,
      text: n % 2 === 0 ? `Step ${n}: fix the parser.` : `Step ${n}: ${'step '.repeat(30)}`,
    }));
    const index = createRecallIndex({ ranking: 'threshold' });
    index.add(documents);
    const shown = new Set<string>();
    for (const maxTokens of [20, 20, 1_000, 20, 1_000]) {
      const options = { query: 'step', topK: 3, maxTokens, minScore: 0, countTokens: words };
      const grown = index.search({ ...options, excludeGrowing: shown });
      const asked = index.search({ ...options, exclude: (id: string) => shown.has(id) });
      expect(grown.hits).toEqual(asked.hits);
      for (const hit of grown.hits) shown.add(hit.id);
    }
    const returned = [...shown];
    // A list the set holds whole is read to its end once, then starts there: the search ends, empty.
    for (const document of documents) shown.add(document.id);
    for (let again = 0; again < 2; again += 1) {
      const options = { query: 'step fix', topK: 3, maxTokens: 1_000, countTokens: words };
      expect(index.search({ ...options, excludeGrowing: shown }).hits).toEqual([]);
    }
    // Not vacuous: the long documents were skipped at 20 tokens and returned at 1,000.
    expect(returned.some((id) => Number(id.slice(1)) % 2 === 1)).toBe(true);
    expect(returned.some((id) => Number(id.slice(1)) % 2 === 0)).toBe(true);
  });
});

describe('a growing exclusion read past its holes (ADR-0420)', () => {
  // Common words over many documents, so every term's list is long enough to be kept between searches.
  const vocabulary = ['step', 'parser', 'cache', 'queue', 'fix', 'bug'];
  const document = fc
    .array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 12 })
    .map((list) => list.join(' '));

  it.each(['auto', 'threshold'] as const)(
    'gives the hits of the same exclusion passed as a function, however the set grows (%s ranking)',
    (ranking) => {
      fc.assert(
        fc.property(
          fc.array(document, { minLength: 70, maxLength: 220 }),
          fc.array(
            fc.record({
              query: fc.array(fc.constantFrom(...vocabulary, 'other'), { minLength: 1, maxLength: 4 }),
              topK: fc.integer({ min: 1, max: 6 }),
              // Small budgets leave long documents read but not returned: holes before the set's entries.
              maxTokens: fc.integer({ min: 1, max: 30 }),
              // Ids the set gains besides the hits, anywhere in the lists (not a run at their heads).
              extra: fc.array(fc.nat(219), { maxLength: 40 }),
              // Left out by the other exclusion, which does not grow: read, not skipped next time.
              skipEvery: fc.constantFrom(0, 3, 5),
              add: fc.integer({ min: 0, max: 2 }),
            }),
            { minLength: 2, maxLength: 8 },
          ),
          (texts, searches) => {
            const documents = texts.map((text, n) => ({ id: `d${n}`, text }));
            const index = createRecallIndex({ ranking });
            let added = Math.max(1, documents.length - 8);
            index.add(documents.slice(0, added));
            const shown = new Set<string>();
            for (const search of searches) {
              const skipped = (id: string) =>
                search.skipEvery > 0 && Number(id.slice(1)) % search.skipEvery === 0;
              const options = {
                query: search.query.join(' '),
                topK: search.topK,
                maxTokens: search.maxTokens,
                countTokens: words,
              };
              const grown = index.search({ ...options, exclude: skipped, excludeGrowing: shown });
              const asked = index.search({ ...options, exclude: (id) => skipped(id) || shown.has(id) });
              expect(grown.hits).toEqual(asked.hits);
              for (const hit of grown.hits) shown.add(hit.id);
              for (const n of search.extra) shown.add(`d${n}`);
              index.add(documents.slice(added, added + search.add));
              added = Math.min(documents.length, added + search.add);
            }
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  it("reads a set's entries once: a hole at the head of the list no longer makes every search read them all", () => {
    // The best match is too long for the budget: read, never returned, so the set never holds the head.
    const documents = [
      { id: 'long', text: `Step 0: ${'step '.repeat(40)}` },
      ...Array.from({ length: 999 }, (_, n) => ({ id: `m${n + 1}`, text: `Step ${n + 1}: fix the parser.` })),
    ];
    const index = createRecallIndex({ ranking: 'threshold' });
    index.add(documents);
    const shown = new Set<string>();
    let reads = 0;
    const search = () =>
      index.search({
        query: 'step',
        topK: 3,
        maxTokens: 20,
        countTokens: words,
        // Asked once for each entry read that no other list gave first: counts the reads.
        exclude: () => {
          reads += 1;
          return false;
        },
        excludeGrowing: shown,
      });
    const first = search();
    expect(first.hits.map((hit) => hit.id)).toEqual(['m1', 'm2', 'm3']);
    // Earlier blocks' hits: the first 500 matches after the long one.
    for (let n = 1; n <= 500; n += 1) shown.add(`m${n}`);
    reads = 0;
    expect(search().hits.map((hit) => hit.id)).toEqual(['m501', 'm502', 'm503']);
    // This search read the 500 once (ADR-0342 read them again whenever the head was not in the set).
    expect(reads).toBeGreaterThan(500);
    for (const id of ['m501', 'm502', 'm503']) shown.add(id);
    reads = 0;
    expect(search().hits.map((hit) => hit.id)).toEqual(['m504', 'm505', 'm506']);
    // The long document, the last search's hits (outside the set when it read them) and the four after
    // them: of the 503 entries the set holds, only those three are read again.
    expect(reads).toBe(8);
  });
});

describe('createRecallIndex memory (ADR-0286)', () => {
  it('counts only the documents it holds: evicted and replaced documents stop counting', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), text: fc.string() }), {
          maxLength: 30,
        }),
        fc.integer({ min: 1, max: 4 }),
        (documents, maxDocuments) => {
          const index = createRecallIndex({ maxDocuments, maxCharsPerDocument: 10 });
          const held = new Map<string, string>();
          for (const document of documents) {
            index.add([{ ...document, context: 'a long context that is indexed but never kept' }]);
            held.delete(document.id);
            held.set(document.id, document.text.slice(0, 10));
            while (held.size > maxDocuments) held.delete(held.keys().next().value as string);
          }
          const expected = [...held.values()].reduce((sum, text) => sum + 2 * text.length + 64, 0);
          expect(index.size).toBe(held.size);
          expect(index.approximateBytes).toBe(expected);
          index.remove([...held.keys()]);
          expect(index.approximateBytes).toBe(0);
        },
      ),
    );
  });
});

describe('createRecallIndex, a batch longer than its bound', () => {
  // The batch path skips the documents it would evict before its end; one by one, each is added and evicted.
  it('holds, counts and finds exactly what adding the same documents one by one does', () => {
    const words = ['violin', 'harbour', 'lantern', 'orchard', 'glacier'];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(60), { minLength: 1, maxLength: 40 }),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(60), { maxLength: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(...words),
        (ids, vocabulary, heldBefore, maxDocuments, query) => {
          const document = (id: number) => ({
            id: `m${id}`,
            text: `note ${id}: the ${vocabulary[id % vocabulary.length]} and the ${words[id % words.length]}`,
            turn: id,
          });
          const batch = createRecallIndex({ maxDocuments });
          const single = createRecallIndex({ maxDocuments });
          for (const id of heldBefore) {
            batch.add([document(id)]);
            single.add([document(id)]);
          }
          batch.add(ids.map(document));
          for (const id of ids) single.add([document(id)]);
          expect(batch.size).toBe(single.size);
          expect(batch.approximateBytes).toBe(single.approximateBytes);
          for (let id = 0; id <= 60; id += 1) expect(batch.has(`m${id}`)).toBe(single.has(`m${id}`));
          const options = { query, topK: 5, maxTokens: 1_000, countTokens: (text: string) => text.length };
          expect(batch.search(options)).toEqual(single.search(options));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('recallQuery', () => {
  const message = (
    id: string,
    role: ThreadMessage['role'],
    content: ThreadMessage['content'],
    synthetic = false,
  ) => ({ id, role, content, ...(synthetic ? { synthetic: true } : {}) }) as ThreadMessage;

  it('is the newest real user turn, plus the pending tool call when the thread ends on one', () => {
    const messages = [
      message('1', 'user', [{ type: 'text', text: 'fix the flaky login test' }]),
      message('2', 'assistant', [{ type: 'text', text: 'on it' }]),
      message('3', 'user', [{ type: 'text', text: '[hook output]' }], true),
      message('4', 'assistant', [
        { type: 'tool_call', id: 'c1', name: 'read', input: { path: 'login.spec.ts' } },
      ]),
    ];
    expect(recallQuery(messages)).toBe('fix the flaky login test\nread {"path":"login.spec.ts"}');
    expect(recallQuery(messages.slice(0, 2))).toBe('fix the flaky login test');
    expect(messageRecallText(messages[3]!)).toBe('read {"path":"login.spec.ts"}');
  });
});
