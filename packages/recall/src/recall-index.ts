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
  search(options: RecallSearchOptions): RecallResult;
}

interface Stored {
  id: string;
  text: string;
  context: string;
  turn: number | undefined;
  seq: number;
}

const DEFAULT_MAX_DOCUMENTS = 50_000;
const DEFAULT_MAX_CHARS = 8_000;
/** A match in a document's context counts this much of a match in its own text. */
const CONTEXT_WEIGHT = 0.5;

/** A per-thread BM25 index over message texts (minisearch), bounded in size and deterministic. */
export function createRecallIndex(options: RecallIndexOptions = {}): RecallIndex {
  const maxDocuments = options.maxDocuments ?? DEFAULT_MAX_DOCUMENTS;
  const maxChars = options.maxCharsPerDocument ?? DEFAULT_MAX_CHARS;
  const search = new MiniSearch<Stored>({
    fields: ['text', 'context'],
    storeFields: [],
    tokenize: tokenizeRecallText,
    processTerm: recallTermMemo(),
  });
  // Insertion order is the eviction order and the tie-break: a Map iterates in insertion order.
  const stored = new Map<string, Stored>();
  let nextSeq = 0;

  const removeOne = (id: string) => {
    const document = stored.get(id);
    if (!document) return;
    search.discard(id);
    stored.delete(id);
  };

  return {
    add(documents) {
      for (const document of documents) {
        removeOne(document.id);
        const entry: Stored = {
          id: document.id,
          text: document.text.length > maxChars ? document.text.slice(0, maxChars) : document.text,
          context: (document.context ?? '').slice(0, maxChars),
          turn: document.turn,
          seq: nextSeq,
        };
        nextSeq += 1;
        stored.set(entry.id, entry);
        search.add(entry);
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
    search({ query, topK, maxTokens, minScore = 0, countTokens, exclude }) {
      if (query.trim() === '' || topK <= 0 || maxTokens <= 0) return { hits: [], tokens: 0, matched: 0 };
      const results = search.search(query, {
        combineWith: 'OR',
        prefix: false,
        fuzzy: false,
        boost: { text: 1, context: CONTEXT_WEIGHT },
      });
      const ranked = results
        .map((result) => ({ result, document: stored.get(String(result.id)) }))
        .filter((entry): entry is { result: (typeof results)[number]; document: Stored } => !!entry.document)
        // Context raises a document that matches itself; it never brings back one that does not
        // (a bare "Noted." beside the matching turn).
        .filter(({ result }) => Object.values(result.match).some((fields) => fields.includes('text')))
        .sort(
          (left, right) => right.result.score - left.result.score || left.document.seq - right.document.seq,
        );
      const hits: RecallHit[] = [];
      let tokens = 0;
      for (const { result, document } of ranked) {
        if (hits.length >= topK) break;
        if (result.score < minScore) break;
        if (exclude?.(document.id)) continue;
        const cost = countTokens(document.text);
        if (tokens + cost > maxTokens) continue;
        tokens += cost;
        hits.push({
          id: document.id,
          text: document.text,
          turn: document.turn,
          score: result.score,
          tokens: cost,
          seq: document.seq,
        });
      }
      return { hits, tokens, matched: ranked.length };
    },
  };
}
