import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  extendThread,
  foldThread,
  foldThreadEvents,
  type StoredEvent,
  type Thread,
  type ThreadFold,
  type ThreadMessage,
  withOwnMessages,
} from '../src/index.js';
import { arbitraryThreadEvents } from './support/testkit.js';

/**
 * ADR-0375: the newest fold of a line grows its message array in place, and every older thread
 * keeps reading what it read before. These properties hold older folds across any sequence of
 * extensions, of the newest fold or of an older one again (a branch), with batches that fail.
 */

/** How one step extends one of the folds made so far. */
interface Step {
  /** Which fold (modulo how many there are): the newest, or an older one, which branches. */
  from: number;
  /** Messages appended, service events only (no message), or a batch failing on a repeated id. */
  kind: 'messages' | 'service' | 'repeated-id';
  count: number;
}

const step: fc.Arbitrary<Step> = fc.record({
  from: fc.nat({ max: 40 }),
  kind: fc.constantFrom('messages', 'messages', 'service', 'repeated-id'),
  count: fc.integer({ min: 1, max: 3 }),
});

/** Everything a consumer reads of a thread, by every accessor consumers use, as a value snapshot. */
function reading(thread: Thread) {
  const messages = thread.messages;
  const iterated: string[] = [];
  for (const message of messages) iterated.push(message.id);
  const indexed: string[] = [];
  for (let position = 0; position < messages.length; position += 1) indexed.push(messages[position]!.id);
  const visited: string[] = [];
  messages.forEach((message) => {
    visited.push(message.id);
  });
  // Values only (ids, JSON texts): a snapshot that a later change to the array cannot reach.
  return {
    length: messages.length,
    iterated,
    indexed,
    visited,
    mapped: messages.map((message) => `${message.id}@${message.index}/${message.turn}`),
    sliced: JSON.stringify(messages.slice()),
    tail: messages.slice(-2).map((message) => message.id),
    last: messages.at(-1)?.id,
    users: messages.filter((message) => message.role === 'user').map((message) => message.id),
    firstAssistant: messages.find((message) => message.role === 'assistant')?.id,
    entries: [...messages.entries()].map(([position, message]) => `${position}:${message.id}`),
    json: JSON.stringify(thread),
    keys: Object.keys(thread),
    spread: JSON.stringify({ ...thread }),
    cloned: JSON.stringify(structuredClone(thread)),
    version: thread.version,
  };
}

/** One fold made by the test, with what its thread read when it was made and what a caller kept. */
interface Made {
  fold: ThreadFold;
  /** The events of its line, `thread.created` first: a fold of them all equals its thread. */
  events: StoredEvent[];
  read: ReturnType<typeof reading>;
  /** The message objects, by position, when it was made. */
  objects: ThreadMessage[];
  /** The array a caller read from `thread.messages` then (it may grow, never change a position). */
  held: readonly ThreadMessage[];
  /** `withOwnMessages`'s array for the thread: it never grows. */
  owned: readonly ThreadMessage[];
  /** Successful extensions of this fold so far. */
  extensions: number;
  /** Whether its array is one a fold may grow (made by a fold, not shared from an older thread). */
  growable: boolean;
}

function made(fold: ThreadFold, events: StoredEvent[]): Made {
  const held = fold.thread.messages;
  return {
    fold,
    events,
    read: reading(fold.thread),
    objects: [...held],
    held,
    owned: withOwnMessages(fold.thread).messages,
    extensions: 0,
    growable: true,
  };
}

/** The events one step appends after `line` (fresh ids per step, so branches never collide). */
function stepEvents(line: readonly StoredEvent[], current: Thread, at: number, next: Step): StoredEvent[] {
  const last = line.at(-1)!;
  const base = { tenantId: last.tenantId, threadId: last.threadId, timestamp: last.timestamp };
  let seq = last.seq;
  const message = (id: string, role: 'user' | 'assistant'): StoredEvent =>
    ({
      ...base,
      eventId: `e-${id}-${seq + 1}`,
      seq: ++seq,
      type: 'message.appended',
      message: { id, role, content: [{ type: 'text', text: `step ${at}: ${id}` }] },
    }) as StoredEvent;
  if (next.kind === 'service') {
    return Array.from(
      { length: next.count },
      () =>
        ({
          ...base,
          eventId: `lifecycle-${at}-${seq + 1}`,
          seq: ++seq,
          type: 'lifecycle',
          name: 'compaction_completed',
          details: {},
        }) as StoredEvent,
    );
  }
  const fresh = Array.from({ length: next.count }, (_, k) =>
    message(`s${at}-${k}`, k % 2 === 0 ? 'user' : 'assistant'),
  );
  const repeated = current.messages[0]?.id ?? fresh[0]!.type;
  return next.kind === 'repeated-id' ? [...fresh, message(repeated, 'user')] : fresh;
}

describe('extendThread on a shared, growing message array (ADR-0375)', () => {
  it('every older thread, held across any extensions and branches, reads exactly what it read before', () => {
    fc.assert(
      fc.property(
        arbitraryThreadEvents({ maxTurns: 4 }),
        fc.array(step, { minLength: 1, maxLength: 8 }),
        (events, steps) => {
          const folds: Made[] = [made(foldThreadEvents(events), events)];
          steps.forEach((next, at) => {
            const source = folds[next.from % folds.length]!;
            const before = source.fold.thread.messages;
            const added = stepEvents(source.events, source.fold.thread, at, next);
            if (next.kind === 'repeated-id' && source.fold.thread.messages.length > 0) {
              expect(() => extendThread(source.fold, added)).toThrowError(/appears twice/);
              return;
            }
            const extended = extendThread(source.fold, added);
            // The common path copies nothing: the first extension of a fold that owns a growable
            // array grows it in place. An older fold extended again (a branch) copies what it read
            // when messages are added; with none, the new thread shares that copy, which nothing grows.
            const inPlace = source.growable && source.extensions === 0;
            if (inPlace) expect(extended.thread.messages).toBe(before);
            else if (next.kind === 'messages') expect(extended.thread.messages).not.toBe(before);
            source.extensions += 1;
            const grown = made(extended, [...source.events, ...added]);
            grown.growable = inPlace || extended.thread.messages !== before;
            folds.push(grown);
          });
          for (const fold of folds) {
            const { thread } = fold.fold;
            expect(reading(thread)).toEqual(fold.read);
            expect(thread).toEqual(foldThread(fold.events));
            // The same message objects at the same positions.
            expect(thread.messages.length).toBe(fold.objects.length);
            expect(fold.objects.every((message, position) => thread.messages[position] === message)).toBe(
              true,
            );
            // An array read earlier may have grown, but no position it had changed.
            expect(fold.held.length).toBeGreaterThanOrEqual(fold.objects.length);
            expect(fold.objects.every((message, position) => fold.held[position] === message)).toBe(true);
            expect(fold.owned).toEqual(fold.objects);
          }
        },
      ),
      { numRuns: 60 },
    );
    // Sixty random histories of up to nine folds each: seconds on a loaded machine.
  }, 30_000);

  it('a thread a caller froze is extended by a copy, and still reads what it read', () => {
    fc.assert(
      fc.property(arbitraryThreadEvents({ maxTurns: 3 }), (events) => {
        const head = foldThreadEvents(events);
        Object.freeze(head.thread);
        const before = reading(head.thread);
        const added = stepEvents(events, head.thread, 0, { from: 0, kind: 'messages', count: 2 });
        const extended = extendThread(head, added);
        expect(extended.thread.messages).not.toBe(head.thread.messages);
        expect(reading(head.thread)).toEqual(before);
        expect(extended.thread).toEqual(foldThread([...events, ...added]));
      }),
      { numRuns: 30 },
    );
  });

  it('withOwnMessages copies only an array a fold may still grow', () => {
    fc.assert(
      fc.property(arbitraryThreadEvents({ maxTurns: 3 }), (events) => {
        const head = foldThreadEvents(events);
        const own = withOwnMessages(head.thread);
        expect(own).not.toBe(head.thread);
        expect(own).toEqual(head.thread);
        const added = stepEvents(events, head.thread, 0, { from: 0, kind: 'messages', count: 1 });
        const extended = extendThread(head, added);
        expect(own.messages).toHaveLength(head.thread.messages.length);
        // The older thread now reads its own copy, which nothing grows: kept as it is.
        expect(withOwnMessages(head.thread)).toBe(head.thread);
        // A caller's own thread (a spread with a new array) is never copied.
        const callers = { ...extended.thread, messages: extended.thread.messages.slice() };
        expect(withOwnMessages(callers)).toBe(callers);
      }),
      { numRuns: 30 },
    );
  });
});
