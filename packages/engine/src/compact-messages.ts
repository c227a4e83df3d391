import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { approximateBytes, type CompactionPlan, type ThreadMessage } from '@compactor/core';

/**
 * Compact form of folded messages a committed plan hides (ADR-0285). A hidden message keeps its own
 * fields (id, role, seq, index, turn and the optional flags) as a plain object, while its `content`
 * moves into a deflated block shared with the other messages compacted in the same pass; `content`
 * becomes an own, enumerable accessor that inflates the block on first read. Spread, `JSON.stringify`,
 * `structuredClone` and deep equality read it like a data property, so a compacted message is equal to
 * the full one; only reading it costs more (the last block inflated is kept, so a scan in log order
 * inflates each block once).
 */

/** Messages per block: larger blocks deflate better, smaller ones inflate faster for one read. */
const BLOCK_MESSAGES = 128;
/** Characters of JSON per block at most (a block of large tool results closes early). */
const BLOCK_CHARS = 256 * 1024;
/**
 * zlib's fastest level: a pass over a 100,000-message thread deflates every hidden message once, and
 * level 6 spent about half that pass in zlib for a few percent smaller blocks.
 */
const DEFLATE_LEVEL = 1;
/** A Buffer's own object and backing-store bookkeeping, beside its bytes. */
const BUFFER_OVERHEAD_BYTES = 160;
/** One entry of the location map (the ephemeron table slot and the location object). */
const LOCATION_BYTES = 80;

/**
 * The deflated contents of the messages compacted in one pass, in order. The inflated contents are
 * held weakly: a render or a plan that reads a block's messages one after another inflates it once,
 * and the collector takes the copy back when nothing reads it (no cache beside the fold cache's bound).
 */
class ContentBlock {
  #inflated: WeakRef<ThreadMessage['content'][]> | undefined;

  constructor(readonly deflated: Buffer) {}

  contents(): ThreadMessage['content'][] {
    let contents = this.#inflated?.deref();
    if (contents === undefined) {
      contents = JSON.parse(inflateRawSync(this.deflated).toString('utf8')) as ThreadMessage['content'][];
      this.#inflated = new WeakRef(contents);
    }
    return contents;
  }
}

interface Location {
  block: ContentBlock;
  slot: number;
}

/** Where each compacted message's content is: kept off the message so spread and equality do not see it. */
const locations = new WeakMap<object, Location>();

/** The one getter every compacted message shares (one accessor pair keeps their hidden classes shared). */
function compactedContent(this: object): ThreadMessage['content'] {
  const location = locations.get(this);
  if (!location) throw new Error('a compacted message lost its content block');
  return location.block.contents()[location.slot]!;
}

/**
 * Whether a message is held in compact form.
 *
 * @param message - A folded message.
 * @returns True when its content lives in a deflated block.
 */
export function isCompacted(message: ThreadMessage): boolean {
  return locations.has(message);
}

/**
 * The ids of the messages a plan hides from the prompt: every message a summarization, a drop or an
 * externalization covers (a clearing keeps its messages in the prompt).
 *
 * @param plan - The committed plan.
 * @returns The hidden message ids.
 */
export function idsHiddenBy(plan: CompactionPlan): Set<string> {
  const ids = new Set<string>();
  for (const records of [plan.summarizations, plan.drops, plan.externalizations]) {
    for (const record of records) for (const id of record.span.messageIds) ids.add(id);
  }
  return ids;
}

/**
 * A copy of `message` whose `content` is the shared accessor, its keys in the same order (so
 * `JSON.stringify` of the two is the same text, and copies of messages of the same shape share a
 * hidden class).
 */
function compactCopy(message: ThreadMessage): ThreadMessage {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(message)) {
    if (key === 'content') {
      Object.defineProperty(copy, key, { get: compactedContent, enumerable: true, configurable: true });
    } else {
      copy[key] = (message as Record<string, unknown>)[key];
    }
  }
  return copy as ThreadMessage;
}

/** Messages compacted by one pass, and what they now hold. */
export interface CompactedMessages {
  /** The message list, compacted messages replaced (the input array is not changed). */
  messages: ThreadMessage[];
  /** How many messages were compacted in this pass. */
  compacted: number;
  /** Estimated bytes the replaced messages held before, and their compact forms hold now. */
  bytesBefore: number;
  bytesAfter: number;
}

/**
 * Replace the messages `hidden` names (those not compacted yet) by their compact form.
 *
 * @param messages - A folded thread's messages (not modified).
 * @param hidden - Ids of the messages to compact.
 * @param messageBytes - The estimate the fold cache charged each message in full form.
 * @returns The new list and the bytes it saves; `messages` itself when nothing was compacted.
 */
export function compactMessages(
  messages: readonly ThreadMessage[],
  hidden: ReadonlySet<string>,
  messageBytes: (message: ThreadMessage) => number,
): CompactedMessages {
  const positions: number[] = [];
  for (let position = 0; position < messages.length; position += 1) {
    const message = messages[position]!;
    if (hidden.has(message.id) && !locations.has(message)) positions.push(position);
  }
  if (positions.length === 0) {
    return { messages: messages as ThreadMessage[], compacted: 0, bytesBefore: 0, bytesAfter: 0 };
  }
  const out = messages.slice();
  let bytesBefore = 0;
  let bytesAfter = 0;
  let start = 0;
  while (start < positions.length) {
    // One block: up to BLOCK_MESSAGES contents, closed early past BLOCK_CHARS of JSON.
    const texts: string[] = [];
    let chars = 0;
    let end = start;
    while (end < positions.length && texts.length < BLOCK_MESSAGES && chars < BLOCK_CHARS) {
      const text = JSON.stringify(messages[positions[end]!]!.content);
      texts.push(text);
      chars += text.length;
      end += 1;
    }
    const block = new ContentBlock(
      deflateRawSync(Buffer.from(`[${texts.join(',')}]`, 'utf8'), { level: DEFLATE_LEVEL }),
    );
    bytesAfter += block.deflated.byteLength + BUFFER_OVERHEAD_BYTES;
    for (let index = start; index < end; index += 1) {
      const position = positions[index]!;
      const full = messages[position]!;
      bytesBefore += messageBytes(full);
      const compact = compactCopy(full);
      bytesAfter += approximateBytes({ ...full, content: undefined }) + LOCATION_BYTES;
      locations.set(compact, { block, slot: index - start });
      out[position] = compact;
    }
    start = end;
  }
  return { messages: out, compacted: positions.length, bytesBefore, bytesAfter };
}
