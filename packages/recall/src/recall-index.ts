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

/**
 * A document's score as minisearch gives it for an OR query: the terms' scores summed in query order
 * (a repeated word counts each time), times how many distinct query words it matched (`first[i]`:
 * whether `terms[i]` is that word's first place in the query).
 */
function combinedScore(
  id: string,
  terms: readonly string[],
  first: readonly boolean[],
  lists: ReadonlyMap<string, TermList>,
): number {
  let sum: number | undefined;
  let matched = 0;
  for (let at = 0; at < terms.length; at += 1) {
    const score = lists.get(terms[at]!)!.byId.get(id);
    if (score === undefined) continue;
    sum = sum === undefined ? score : sum + score;
    if (first[at]) matched += 1;
  }
  return (sum ?? 0) * matched;
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

/**
 * Every matching document in rank order (score descending, then insertion order), the same order a
 * full minisearch OR search sorted that way gives, but lazily: the threshold algorithm over each term's
 * ranked list, reading a list only as deep as the hits asked for need (ADR-0230). A document not yet
 * read from any list scores at most the combination of each list's next score (the combination grows
 * with each term's score), so a candidate above that bound is final. Documents `keep` refuses are read
 * (they move the bound) but never scored or ranked: the others come out in the same order (ADR-0306).
 */
function* rankedDocuments(
  terms: readonly string[],
  lists: ReadonlyMap<string, TermList>,
  keep: (id: string) => boolean,
): Generator<{ id: string; score: number }> {
  const unique = [...lists.values()];
  const first = terms.map((term, at) => terms.indexOf(term) === at);
  const positions = new Map<TermList, number>(unique.map((list) => [list, 0]));
  const seen = new Set<string>();
  const heap: Candidate[] = [];
  const push = (candidate: Candidate) => {
    heap.push(candidate);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(heap[at]!, heap[parent]!)) break;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  };
  const pop = (): Candidate => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        const right = left + 1;
        let best = at;
        if (left < heap.length && before(heap[left]!, heap[best]!)) best = left;
        if (right < heap.length && before(heap[right]!, heap[best]!)) best = right;
        if (best === at) break;
        [heap[at], heap[best]] = [heap[best]!, heap[at]!];
        at = best;
      }
    }
    return top;
  };
  for (;;) {
    // The bound on any document not read yet, and the lists it could still come from.
    let open = 0;
    let openList: TermList | undefined;
    let sum: number | undefined;
    for (const term of terms) {
      const list = lists.get(term)!;
      const position = positions.get(list)!;
      if (position >= list.ids.length) continue;
      const next = list.scores[position]!;
      sum = sum === undefined ? next : sum + next;
    }
    for (const list of unique) {
      if (positions.get(list)! < list.ids.length) {
        open += 1;
        if (!openList || list.scores[positions.get(list)!]! > openList.scores[positions.get(openList)!]!) {
          openList = list;
        }
      }
    }
    const bound = (sum ?? 0) * open;
    while (heap.length > 0) {
      const top = heap[0]!;
      // With one list left, an unread document ties the bound only by its own score there, and that
      // list is ordered by insertion among ties; with more, a tie waits for the lists to move on.
      const final =
        !openList ||
        top.score > bound ||
        (top.score === bound && open === 1 && top.seq < openList.seqs[positions.get(openList)!]!);
      if (!final) break;
      yield pop();
    }
    if (!openList) return;
    const position = positions.get(openList)!;
    positions.set(openList, position + 1);
    const id = openList.ids[position]!;
    if (seen.has(id)) continue;
    seen.add(id);
    if (!keep(id)) continue;
    push({ id, score: combinedScore(id, terms, first, lists), seq: openList.seqs[position]! });
  }
}

/** A per-thread BM25 index over message texts (minisearch), bounded in size and deterministic. */
export function createRecallIndex(options: RecallIndexOptions = {}): RecallIndex {
  const maxDocuments = options.maxDocuments ?? DEFAULT_MAX_DOCUMENTS;
  const maxChars = options.maxCharsPerDocument ?? DEFAULT_MAX_CHARS;
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
      for (const document of documents) {
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
    search({ query, topK, maxTokens, minScore = 0, countTokens, exclude }) {
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
      const keep = exclude ? (id: string) => !exclude(id) : () => true;
      for (const { id, score } of rankedDocuments(terms, lists, keep)) {
        if (hits.length >= topK) break;
        if (score < minScore) break;
        if (!matchesText(id)) continue;
        const document = stored.get(id)!;
        const cost = countTokens(document.text);
        if (tokens + cost > maxTokens) continue;
        tokens += cost;
        hits.push({ id, text: document.text, turn: document.turn, score, tokens: cost, seq: document.seq });
      }
      return { hits, tokens, matched: matchedCount([...lists.values()]) };
    },
  };
}
