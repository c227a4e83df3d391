import MiniSearch from 'minisearch';
import { recallTermMemo, tokenizeRecallText } from './terms.js';

/** One searchable unit, usually a message compacted away (its id is the message id). */
export interface RecallDocument {
  id: string;
  text: string;
  /** The user turn it belongs to, carried through to hits (for labels such as "turn 12"). */
  turn?: number;
  /**
   * Text around it (e.g. the neighbouring messages), searched at a lower weight but never returned:
   * a reply ("It taught me self-acceptance") is found by the question it answers ("What did you take
   * away from Becoming Nicole?").
   */
  context?: string;
}

export interface RecallHit {
  id: string;
  text: string;
  turn: number | undefined;
  /** BM25 score (minisearch's, with its defaults k1 = 1.2, b = 0.7). */
  score: number;
  /** `countTokens(text)`. */
  tokens: number;
  /** Insertion order: chronological when documents are added as the thread grows. */
  seq: number;
}

export interface RecallSearchOptions {
  /** Usually `recallQuery(messages)`: the newest user turn, plus a pending tool call. */
  query: string;
  /** At most this many hits. */
  topK: number;
  /** The hits' texts together stay within this many tokens (a hit that does not fit is skipped). */
  maxTokens: number;
  /** Hits scoring below this are left out (0 keeps every match). */
  minScore?: number;
  /** The caller's tokenizer: recall never guesses token counts. */
  countTokens: (text: string) => number;
  /** Documents not to return (e.g. ones the request already holds verbatim). */
  exclude?: (id: string) => boolean;
  /**
   * Documents not to return, as a set the caller only ever adds to while it passes it to searches
   * (append-only recall's shown messages, ADR-0342): the index remembers, per set and term, which
   * entries of the term's ranked list it read and the set did not hold, and reads only those and the
   * entries past them next time (ADR-0420). The same hits as passing `exclude: (id) => set.has(id)`.
   */
  excludeGrowing?: ReadonlySet<string>;
}

export interface RecallResult {
  /** Best first; ties broken by insertion order, so the same index and query give the same hits. */
  hits: RecallHit[];
  tokens: number;
  /** Documents that matched the query before top-k, budget and minimum score. */
  matched: number;
}

export interface RecallIndexOptions {
  /** The index holds at most this many documents; adding more evicts the oldest (default 50,000). */
  maxDocuments?: number;
  /** Each document's text is clipped to this many characters before indexing (default 8,000). */
  maxCharsPerDocument?: number;
  /**
   * How a search ranks its matches: `auto` (the default) picks per query, `threshold` reads the lists
   * only as deep as the hits need (ADR-0230), `scan` scores every match in one pass (ADR-0340). The
   * hits are the same either way; the choice is for tests and benchmarks.
   */
  ranking?: 'auto' | 'threshold' | 'scan';
}

export interface RecallIndex {
  /** Add documents (an id already present is replaced). Meant to be called as plans commit. */
  add(documents: readonly RecallDocument[]): void;
  remove(ids: readonly string[]): void;
  has(id: string): boolean;
  readonly size: number;
  /**
   * Estimated bytes of the documents the index holds now (each text at two bytes a character and a
   * fixed share for its entry and postings): evicted documents no longer count, so a cache that
   * charges the index by this stays true past `maxDocuments` (ADR-0286).
   */
  readonly approximateBytes: number;
  search(options: RecallSearchOptions): RecallResult;
}

/** What the index keeps of a document: its context is only indexed, never kept (ADR-0286). */
interface Stored {
  id: string;
  text: string;
  turn: number | undefined;
  seq: number;
}

/** A stored document's entry, id and share of the postings, beside its text. */
const STORED_DOCUMENT_BYTES = 64;

function storedBytes(document: Stored): number {
  return 2 * document.text.length + STORED_DOCUMENT_BYTES;
}

const DEFAULT_MAX_DOCUMENTS = 50_000;
const DEFAULT_MAX_CHARS = 8_000;
/** A match in a document's context counts this much of a match in its own text. */
const CONTEXT_WEIGHT = 0.5;

/** The query's words as minisearch searches them: the index's tokenizer, then its term processing, in order. */
function queryTerms(query: string, processTerm: (word: string) => string | null): string[] {
  const terms: string[] = [];
  for (const word of tokenizeRecallText(query)) {
    const term = processTerm(word);
    if (term) terms.push(term);
  }
  return terms;
}

/**
 * A query is scored in one pass (ADR-0340) when at least this many of its words match something, no
 * one word holds most of the matches, and the matches are at most `SCAN_MAX_ENTRIES`: the threshold
 * algorithm stays ahead where one common word decides (it reads about top-k of its list).
 */
const SCAN_MIN_LISTS = 4;
const SCAN_MAX_ENTRIES = 20_000;

/** Whether a query's lists are scored in one pass rather than read by the threshold algorithm. */
function scansLists(lists: Iterable<TermList>): boolean {
  let matching = 0;
  let entries = 0;
  let largest = 0;
  for (const list of lists) {
    if (list.ids.length === 0) continue;
    matching += 1;
    entries += list.ids.length;
    largest = Math.max(largest, list.ids.length);
  }
  return matching >= SCAN_MIN_LISTS && entries <= SCAN_MAX_ENTRIES && 2 * largest <= entries;
}

/** Terms matching at least this many documents have their ranked matches kept between searches. */
const CACHED_TERM_MIN_MATCHES = 64;
/** At most this many terms' matches are kept per index (least recently searched dropped first). */
const CACHED_TERMS = 4;
/**
 * Or more terms, while their lists hold at most this many matches together: as many as four lists of
 * an index at its 50,000-document bound, so the memory bound is today's, and a small index keeps the
 * common words of a whole turn's queries (a pending call's query repeats its turn's words, ADR-0308).
 */
const CACHED_TERM_ENTRIES = 4 * 50_000;

/** One term's matching documents, best first (ties by insertion order), with each one's score. */
interface TermList {
  ids: string[];
  scores: Float64Array;
  seqs: Float64Array;
  byId: Map<string, number>;
  /** The documents matching the term in their own text (not only in their context). */
  inText: Set<string>;
}

function buildTermList(
  results: ReadonlyArray<{ id: unknown; score: number; match: Record<string, string[]> }>,
  stored: ReadonlyMap<string, Stored>,
): TermList {
  const entries: { id: string; score: number; seq: number }[] = [];
  const inText = new Set<string>();
  for (const result of results) {
    const document = stored.get(String(result.id));
    if (!document) continue;
    entries.push({ id: document.id, score: result.score, seq: document.seq });
    if (Object.values(result.match).some((fields) => fields.includes('text'))) inText.add(document.id);
  }
  entries.sort((left, right) => right.score - left.score || left.seq - right.seq);
  const list: TermList = {
    ids: new Array<string>(entries.length),
    scores: new Float64Array(entries.length),
    seqs: new Float64Array(entries.length),
    byId: new Map(),
    inText,
  };
  entries.forEach((entry, position) => {
    list.ids[position] = entry.id;
    list.scores[position] = entry.score;
    list.seqs[position] = entry.seq;
    list.byId.set(entry.id, entry.score);
  });
  return list;
}

/** Documents matching any of the terms in their own text (the union of the lists' text matches). */
function matchedCount(lists: readonly TermList[]): number {
  if (lists.length === 0) return 0;
  const largest = lists.reduce((best, list) => (list.inText.size > best.inText.size ? list : best));
  const others = new Set<string>();
  for (const list of lists) {
    if (list === largest) continue;
    for (const id of list.inText) if (!largest.inText.has(id)) others.add(id);
  }
  return largest.inText.size + others.size;
}

interface Candidate {
  id: string;
  score: number;
  seq: number;
}

/** Whether `left` ranks before `right`: higher score, then earlier insertion. */
function before(left: Candidate, right: Candidate): boolean {
  return left.score > right.score || (left.score === right.score && left.seq < right.seq);
}

/** Candidates, the best (by {@link before}) on top. */
class CandidateHeap {
  readonly #items: Candidate[];

  /** @param items - Initial candidates, arranged in place (linear time). */
  constructor(items: Candidate[] = []) {
    this.#items = items;
    for (let at = (items.length >> 1) - 1; at >= 0; at -= 1) this.#down(at);
  }

  get size(): number {
    return this.#items.length;
  }

  get top(): Candidate {
    return this.#items[0]!;
  }

  push(candidate: Candidate): void {
    const items = this.#items;
    items.push(candidate);
    let at = items.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(items[at]!, items[parent]!)) break;
      [items[at], items[parent]] = [items[parent]!, items[at]!];
      at = parent;
    }
  }

  pop(): Candidate {
    const items = this.#items;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      this.#down(0);
    }
    return top;
  }

  #down(from: number): void {
    const items = this.#items;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let best = at;
      if (left < items.length && before(items[left]!, items[best]!)) best = left;
      if (right < items.length && before(items[right]!, items[best]!)) best = right;
      if (best === at) return;
      [items[at], items[best]] = [items[best]!, items[at]!];
      at = best;
    }
  }
}

/**
 * The same documents in the same order as {@link rankedDocuments}, from one pass over every list:
 * each document's score summed term by term in query order (as minisearch and `rankedDocuments` sum
 * it), then handed out best first from a heap (ADR-0340). For a long query of small lists (a pending
 * tool call's name and input: tens of words, a few thousand matches) this reads each entry once with a
 * map update, where the threshold algorithm's bound (the next scores of every open list, times their
 * number) stays loose until most lists are read and every read passes over every open list.
 */
function* scannedDocuments(
  terms: readonly string[],
  lists: ReadonlyMap<string, TermList>,
  keep: (id: string) => boolean,
): Generator<{ id: string; score: number }> {
  const scores = new Map<string, Candidate & { matched: number }>();
  terms.forEach((term, at) => {
    const list = lists.get(term)!;
    const firstPlace = terms.indexOf(term) === at ? 1 : 0;
    for (let position = 0; position < list.ids.length; position += 1) {
      const id = list.ids[position]!;
      const score = list.scores[position]!;
      const entry = scores.get(id);
      if (entry === undefined) {
        scores.set(id, { id, score, seq: list.seqs[position]!, matched: firstPlace });
      } else {
        entry.score += score;
        entry.matched += firstPlace;
      }
    }
  });
  const candidates: Candidate[] = [];
  for (const entry of scores.values()) {
    if (keep(entry.id)) candidates.push({ id: entry.id, score: entry.score * entry.matched, seq: entry.seq });
  }
  const heap = new CandidateHeap(candidates);
  while (heap.size > 0) yield heap.pop();
}

/**
 * How far a search read one term's list past a growing exclusion (ADR-0342, ADR-0420): every entry before
 * `frontier` was read once, and all but those at `unexcluded` (ascending) were in the set then, so they
 * are excluded for good; a later search with the same set reads only `unexcluded`, then from `frontier` on.
 */
interface ExclusionProgress {
  frontier: number;
  unexcluded: number[];
}

/** A growing exclusion and what searches with it learnt of each cached term list. */
interface GrowingExclusion {
  excluded: ReadonlySet<string>;
  known: WeakMap<TermList, ExclusionProgress>;
}

/**
 * Every matching document in rank order (score descending, then insertion order), the same order a
 * full minisearch OR search sorted that way gives, but lazily: the threshold algorithm over each term's
 * ranked list, reading a list only as deep as the hits asked for need (ADR-0230). A document not yet
 * read from any list scores at most the combination of each list's next score (the combination grows
 * with each term's score), so a candidate above that bound is final. Documents `keep` refuses are read
 * (they move the bound) but never scored or ranked: the others come out in the same order (ADR-0306).
 * Each read is a pass over arrays indexed by term and list, with the same sums in the same order as a
 * document's score and the bound were always taken (ADR-0340): a long query (a pending tool call's
 * tens of words) reads thousands of entries, and map look-ups per term per entry were its cost.
 */
function* rankedDocuments(
  terms: readonly string[],
  lists: ReadonlyMap<string, TermList>,
  keep: (id: string) => boolean,
  growing?: GrowingExclusion,
): Generator<{ id: string; score: number }> {
  const unique = [...lists.values()];
  const listCount = unique.length;
  // For each query term (in query order, a repeated word each time): its list, and whether it is the
  // word's first place in the query (a document's score counts the distinct words it matched).
  const listOf = new Int32Array(terms.length);
  const first = new Uint8Array(terms.length);
  const listIndex = new Map<TermList, number>(unique.map((list, index) => [list, index]));
  terms.forEach((term, at) => {
    listOf[at] = listIndex.get(lists.get(term)!)!;
    first[at] = terms.indexOf(term) === at ? 1 : 0;
  });
  // Entries a growing exclusion held when an earlier search read them are never returned: a list is read
  // at the entries that search found outside the set, then from its frontier on (ADR-0420; skipping the
  // others only lowers the bound on unread documents, ADR-0342). Each list's reads go up in position.
  const progress = unique.map((list) => growing?.known.get(list));
  const revisit = progress.map((known) => known?.unexcluded ?? []);
  const revisited = new Int32Array(listCount);
  const frontier = Int32Array.from(progress, (known) => known?.frontier ?? 0);
  const positions = Int32Array.from(unique.keys(), (index) => revisit[index]![0] ?? frontier[index]!);
  // This search's reads outside the set, per list, in position order: the next search's `unexcluded`.
  const outside = unique.map((): number[] => []);
  const lengths = Int32Array.from(unique, (list) => list.ids.length);
  // The lists not read to their end, in list order, and the query terms whose list that is, in query
  // order: a document not read yet is in none of the others (it would have been read there first), so
  // the bound and a new document's score need only these.
  let openLists = Int32Array.from(unique.keys()).filter((index) => positions[index]! < lengths[index]!);
  let openTerms = Int32Array.from(terms.keys()).filter(
    (at) => positions[listOf[at]!]! < lengths[listOf[at]!]!,
  );
  const termScores = new Float64Array(listCount);
  const termMatched = new Uint8Array(listCount);
  /**
   * A document's score as minisearch gives it for an OR query: the terms' scores summed in query order
   * (a repeated word counts each time), times how many distinct query words it matched. Called on a
   * document's first read, when only the open lists can hold it.
   */
  const scoreOf = (id: string): number => {
    for (const index of openLists) {
      const score = unique[index]!.byId.get(id);
      termMatched[index] = score === undefined ? 0 : 1;
      termScores[index] = score ?? 0;
    }
    let sum: number | undefined;
    let matched = 0;
    for (const at of openTerms) {
      const index = listOf[at]!;
      if (termMatched[index] === 0) continue;
      const score = termScores[index]!;
      sum = sum === undefined ? score : sum + score;
      if (first[at] === 1) matched += 1;
    }
    return (sum ?? 0) * matched;
  };
  const seen = new Set<string>();
  const heap = new CandidateHeap();
  let closing = -1;
  try {
    for (;;) {
      if (closing >= 0) {
        const closed = closing;
        openLists = openLists.filter((index) => index !== closed);
        openTerms = openTerms.filter((at) => listOf[at] !== closed);
        closing = -1;
      }
      // The bound on any document not read yet (each term's next score, summed in query order, times
      // the lists still open), and the list with the highest next score (the first such on a tie).
      let sum: number | undefined;
      for (const at of openTerms) {
        const index = listOf[at]!;
        const next = unique[index]!.scores[positions[index]!]!;
        sum = sum === undefined ? next : sum + next;
      }
      const open = openLists.length;
      let openIndex = -1;
      let openScore = 0;
      for (const index of openLists) {
        const next = unique[index]!.scores[positions[index]!]!;
        if (openIndex < 0 || next > openScore) {
          openIndex = index;
          openScore = next;
        }
      }
      const bound = (sum ?? 0) * open;
      while (heap.size > 0) {
        const top = heap.top;
        // With one list left, an unread document ties the bound only by its own score there, and that
        // list is ordered by insertion among ties; with more, a tie waits for the lists to move on.
        const final =
          openIndex < 0 ||
          top.score > bound ||
          (top.score === bound && open === 1 && top.seq < unique[openIndex]!.seqs[positions[openIndex]!]!);
        if (!final) break;
        yield heap.pop();
      }
      if (openIndex < 0) return;
      const openList = unique[openIndex]!;
      const position = positions[openIndex]!;
      // The next entry to read: the next one to revisit, else the one after the frontier.
      const again = revisit[openIndex]!;
      if (revisited[openIndex]! < again.length) revisited[openIndex] = revisited[openIndex]! + 1;
      else frontier[openIndex] = position + 1;
      const next = again[revisited[openIndex]!] ?? frontier[openIndex]!;
      positions[openIndex] = next;
      // Closed on the next pass, after this document is scored with it.
      if (next === lengths[openIndex]) closing = openIndex;
      const id = openList.ids[position]!;
      if (growing && !growing.excluded.has(id)) outside[openIndex]!.push(position);
      if (seen.has(id)) continue;
      seen.add(id);
      if (!keep(id)) continue;
      heap.push({ id, score: scoreOf(id), seq: openList.seqs[position]! });
    }
  } finally {
    // Also when the search stops early (top-k reached): what was learnt holds for the next search. The
    // entries read outside the set come before any not revisited yet (a list's frontier moves only once
    // they are all read).
    if (growing) {
      for (const [index, list] of unique.entries()) {
        const unexcluded = outside[index]!;
        const again = revisit[index]!;
        for (let at = revisited[index]!; at < again.length; at += 1) unexcluded.push(again[at]!);
        growing.known.set(list, { frontier: frontier[index]!, unexcluded });
      }
    }
  }
}

/** A per-thread BM25 index over message texts (minisearch), bounded in size and deterministic. */
export function createRecallIndex(options: RecallIndexOptions = {}): RecallIndex {
  const maxDocuments = options.maxDocuments ?? DEFAULT_MAX_DOCUMENTS;
  const maxChars = options.maxCharsPerDocument ?? DEFAULT_MAX_CHARS;
  const ranking = options.ranking ?? 'auto';
  const termOf = recallTermMemo();
  const search = new MiniSearch<Stored & { context: string }>({
    fields: ['text', 'context'],
    storeFields: [],
    tokenize: tokenizeRecallText,
    processTerm: termOf,
  });
  // Insertion order is the eviction order and the tie-break: a Map iterates in insertion order.
  const stored = new Map<string, Stored>();
  let nextSeq = 0;

  // One term's matches, ranked, for the index as it is now (ADR-0230): a common query word ("step",
  // a speaker's name) matches most documents, and ranking it again on every render made each search
  // linear in the index. Cleared whenever a document is added or removed.
  const termLists = new Map<string, TermList>();
  let cachedEntries = 0;
  const termList = (term: string): TermList => {
    const kept = termLists.get(term);
    if (kept) {
      termLists.delete(term);
      termLists.set(term, kept);
      return kept;
    }
    // The term is already processed: searched as it is, in both fields (context at its weight).
    const options = {
      combineWith: 'OR',
      prefix: false,
      fuzzy: false,
      boost: { text: 1, context: CONTEXT_WEIGHT },
      tokenize: (text: string) => [text],
      processTerm: (text: string) => text,
    } as const;
    // minisearch drops a replaced document's postings lazily, while searching, and the search that
    // drops them counts them in the term's document frequency (a negative score): a first pass over
    // the term cleans its postings, the second scores as a fresh index would.
    if (search.dirtCount > 0) search.search(term, options);
    const list = buildTermList(search.search(term, options), stored);
    if (list.ids.length >= CACHED_TERM_MIN_MATCHES) {
      termLists.set(term, list);
      cachedEntries += list.ids.length;
      while (termLists.size > CACHED_TERMS && cachedEntries > CACHED_TERM_ENTRIES) {
        const oldest = termLists.keys().next().value as string;
        cachedEntries -= termLists.get(oldest)!.ids.length;
        termLists.delete(oldest);
      }
    }
    return list;
  };

  // Per growing exclusion and term list, which entries read so far the exclusion did not hold (ADR-0342,
  // ADR-0420). Weak both ways: a list replaced when the index changes, or a set the caller drops, takes
  // its entry along.
  const exclusionProgress = new WeakMap<ReadonlySet<string>, WeakMap<TermList, ExclusionProgress>>();

  let bytes = 0;
  const removeOne = (id: string) => {
    const document = stored.get(id);
    if (!document) return;
    termLists.clear();
    cachedEntries = 0;
    search.discard(id);
    stored.delete(id);
    bytes -= storedBytes(document);
  };

  return {
    add(documents) {
      if (documents.length > 0) {
        termLists.clear();
        cachedEntries = 0;
      }
      // A batch longer than the bound keeps only its newest `maxDocuments` (every older document, and
      // everything held before, would be evicted by the end of it): the rest are not indexed only to be
      // discarded, which left the index that much dirt to vacuum while later renders search it. Their
      // ids are still removed, as adding them would have. Only for a batch of distinct ids, where that
      // is exactly the set the one-by-one path ends with (the same sequence numbers, so the same tie-breaks).
      const skipped =
        documents.length > maxDocuments &&
        new Set(documents.map((document) => document.id)).size === documents.length
          ? documents.length - maxDocuments
          : 0;
      for (let position = 0; position < skipped; position += 1) removeOne(documents[position]!.id);
      nextSeq += skipped;
      for (let position = skipped; position < documents.length; position += 1) {
        const document = documents[position]!;
        removeOne(document.id);
        const entry: Stored = {
          id: document.id,
          text: document.text.length > maxChars ? document.text.slice(0, maxChars) : document.text,
          turn: document.turn,
          seq: nextSeq,
        };
        nextSeq += 1;
        stored.set(entry.id, entry);
        bytes += storedBytes(entry);
        search.add({ ...entry, context: (document.context ?? '').slice(0, maxChars) });
        while (stored.size > maxDocuments) {
          const oldest = stored.keys().next().value as string;
          removeOne(oldest);
        }
      }
    },
    remove(ids) {
      for (const id of ids) removeOne(id);
    },
    has(id) {
      return stored.has(id);
    },
    get size() {
      return stored.size;
    },
    get approximateBytes() {
      return bytes;
    },
    search({ query, topK, maxTokens, minScore = 0, countTokens, exclude, excludeGrowing }) {
      if (query.trim() === '' || topK <= 0 || maxTokens <= 0) return { hits: [], tokens: 0, matched: 0 };
      const terms = queryTerms(query, termOf);
      const lists = new Map<string, TermList>();
      for (const term of terms) if (!lists.has(term)) lists.set(term, termList(term));
      // Context raises a document that matches itself; it never brings back one that does not (a bare
      // "Noted." beside the matching turn, ADR-0220).
      const matchesText = (id: string) => {
        for (const list of lists.values()) if (list.inText.has(id)) return true;
        return false;
      };
      const hits: RecallHit[] = [];
      let tokens = 0;
      // An excluded document scores no higher than the next one kept, so skipping it before ranking
      // ends the search where skipping it after did (the minimum score breaks on either). The text
      // match, a look-up in every term's list, is left to the few documents ranked this far.
      const keep =
        exclude || excludeGrowing ? (id: string) => !exclude?.(id) && !excludeGrowing?.has(id) : () => true;
      const scan = ranking === 'scan' || (ranking === 'auto' && scansLists(lists.values()));
      let growing: GrowingExclusion | undefined;
      if (excludeGrowing) {
        let known = exclusionProgress.get(excludeGrowing);
        if (!known) {
          known = new WeakMap();
          exclusionProgress.set(excludeGrowing, known);
        }
        growing = { excluded: excludeGrowing, known };
      }
      const ranked = scan
        ? scannedDocuments(terms, lists, keep)
        : rankedDocuments(terms, lists, keep, growing);
      for (const { id, score } of ranked) {
        if (hits.length >= topK) break;
        if (score < minScore) break;
        if (!matchesText(id)) continue;
        const document = stored.get(id)!;
        const cost = countTokens(document.text);
        if (tokens + cost > maxTokens) continue;
        tokens += cost;
        hits.push({ id, text: document.text, turn: document.turn, score, tokens: cost, seq: document.seq });
      }
      // Counted when read (the search_history tool reports it; render-time recall never reads it): a
      // union of every term's text matches, some 3% of a render with a long pending-call query (ADR-0340).
      const searched = [...lists.values()];
      let matched: number | undefined;
      return {
        hits,
        tokens,
        get matched() {
          matched ??= matchedCount(searched);
          return matched;
        },
      };
    },
  };
}
