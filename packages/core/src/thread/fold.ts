import { ValidationError } from '../errors.js';
import { isConversationEvent } from '../ports/plan-log.js';
import type { PolicyPatch, StoredEvent } from '../schemas/events.js';
import type { Message } from '../schemas/message.js';
import {
  type CompactionPolicy,
  type CompactionPolicyInput,
  parsePolicy,
  policyForWindow,
} from '../schemas/policy.js';
import type { RegisteredContext } from './registered-context.js';
import { isTurnStart, type Thread, type ThreadMessage, tokenizerFamilyOf } from './thread.js';

/**
 * A folded thread with what extending it needs: the created event's policy input and the patches
 * since (so a policy is always `patchedPolicy` of the same inputs as a full fold would use), and
 * the message ids seen (shared with the fold it was extended from while nobody forks it).
 */
export interface ThreadFold {
  readonly thread: Thread;
  readonly createdPolicy: CompactionPolicyInput | undefined;
  readonly patches: readonly PolicyPatch[];
  /** @internal Message ids folded so far; a fold extended twice rebuilds its own copy. */
  readonly ids: Set<string>;
  /**
   * What the log says besides the conversation, kept so an incremental reader need not rescan it:
   * the latest registration (`registeredContext`), the last conversation seq (`lastConversationSeq`)
   * and the plan versions logged (`planVersionsMissingFromLog`), ADR-0190, ADR-0192.
   */
  readonly service: ServiceRecords;
}

/** The log's service facts a {@link ThreadFold} keeps. */
export interface ServiceRecords {
  readonly registered: RegisteredContext | undefined;
  readonly lastConversationSeq: number;
  readonly loggedPlanVersions: ReadonlySet<number>;
}

const NO_SERVICE_RECORDS: ServiceRecords = {
  registered: undefined,
  lastConversationSeq: 0,
  loggedPlanVersions: new Set(),
};

/**
 * The thread allowed to push onto each message array a fold made: the newest thread of a line of
 * extensions (ADR-0375). Extending that thread appends its new messages to the same array in place
 * (no copy of the history) and turns the older thread's `messages` into a lazy copy of its own
 * prefix, so the older thread reads exactly what it read before. Any other thread (an older one
 * extended again, a branch; a copy made by spreading; a thread a caller built) is extended by
 * copying its array once, as before.
 */
const growableBy = new WeakMap<readonly ThreadMessage[], Thread>();

/**
 * Fold a thread's events (in sequence order) into its messages. Only `thread.created` and
 * `message.appended` shape the message list; `policy.updated` patches the policy (later patches
 * win); `thread.branched` records the origin; plans and lifecycle events are recorded elsewhere.
 *
 * @param events - The thread's stored events, `thread.created` first.
 * @returns The folded thread.
 * @throws ValidationError when the first event is not `thread.created`, events are out of order, or
 *   a message id appears twice.
 */
export function foldThread(events: readonly StoredEvent[]): Thread {
  return foldThreadEvents(events).thread;
}

/**
 * {@link foldThread}, keeping what {@link extendThread} needs to fold more events in later.
 *
 * @param events - The thread's stored events, `thread.created` first.
 * @returns The fold.
 * @throws ValidationError as {@link foldThread} does.
 */
export function foldThreadEvents(events: readonly StoredEvent[]): ThreadFold {
  const first = events[0];
  if (first?.type !== 'thread.created') {
    throw new ValidationError('a thread must start with a thread.created event');
  }
  const tokenizerFamily = tokenizerFamilyOf(first);
  const thread: Thread = {
    id: first.threadId,
    tenantId: first.tenantId,
    model: first.model,
    contextWindow: first.contextWindow,
    maxOutputTokens: first.maxOutputTokens,
    ...(tokenizerFamily !== undefined ? { tokenizerFamily } : {}),
    policy: policyForWindow(parsePolicy(first.policy ?? {}), first.contextWindow),
    createdAt: first.timestamp,
    version: first.seq,
    messages: [],
    branchedFrom: undefined,
  };
  const fold = foldInto(
    {
      thread,
      createdPolicy: first.policy,
      patches: [],
      ids: new Set(),
      service: { ...NO_SERVICE_RECORDS, lastConversationSeq: first.seq },
    },
    events,
    1,
    true,
  );
  growableBy.set(thread.messages, thread);
  return fold;
}

/**
 * Fold more events into an already folded thread, in time linear in the new events only when `fold`
 * is the newest fold of its line (the common case: a cache extending the fold it keeps), otherwise
 * with one copy of the message array's references. Pure to every reader of a thread: `fold.thread`
 * reads the same messages afterwards (its `messages` becomes a lazy copy of its prefix when its
 * array was extended in place, ADR-0375), and folding a prefix then extending with the rest equals
 * folding everything at once (property-tested). Events at or below the thread's version are skipped
 * (an overlapping read is harmless); every event type is accepted, and only messages, branch origins
 * and policy patches change the thread.
 *
 * An array read from `thread.messages` earlier may grow when that fold is extended (its existing
 * positions never change): whoever keeps a thread's messages across an await keeps the thread and
 * reads `messages` again, or takes {@link withOwnMessages}.
 *
 * @param fold - A fold from {@link foldThreadEvents} or a previous `extendThread`.
 * @param events - Later events of the same thread, in sequence order.
 * @returns The extended fold (`fold` itself when nothing new was given).
 * @throws ValidationError when a message id appears twice, or an event belongs to another thread.
 */
export function extendThread(fold: ThreadFold, events: readonly StoredEvent[]): ThreadFold {
  let from = 0;
  while (from < events.length && events[from]!.seq <= fold.thread.version) from += 1;
  if (from === events.length) return fold;
  const previous = fold.thread;
  const before = previous.messages;
  // The ids set is shared along one line of extensions; a fold extended a second time (a fork, or
  // after a failed extension) no longer matches it and takes its own copy.
  const ids = fold.ids.size === before.length ? fold.ids : new Set(before.map((message) => message.id));
  // The new messages are folded into their own array first, so a batch that fails part-way leaves
  // the shared array as it was.
  const extended = foldInto(
    {
      thread: { ...previous, messages: [] },
      createdPolicy: fold.createdPolicy,
      patches: fold.patches,
      ids,
      service: fold.service,
    },
    events,
    from,
    false,
    before,
  );
  const added = extended.thread.messages;
  if (growableBy.get(before) === previous && keepsOwnPrefix(previous, before, before.length)) {
    for (const message of added) before.push(message);
    extended.thread.messages = before;
    growableBy.set(before, extended.thread);
  } else if (added.length === 0 && !growableBy.has(before)) {
    // An array no fold grows may be shared by both threads as it is.
    extended.thread.messages = before;
  } else {
    // Another thread's growable array (a fork of an older fold, a spread copy) or a caller's: one
    // copy of the references, which the new thread may then grow (ADR-0307).
    extended.thread.messages = before.concat(added);
    growableBy.set(extended.thread.messages, extended.thread);
  }
  return extended;
}

/**
 * Redefines `thread.messages` as a copy of the first `length` messages of `shared`, made on first
 * read (then a plain data property again): what the thread read before, whatever is pushed onto
 * `shared` later. False when the property cannot be redefined (a frozen thread).
 */
function keepsOwnPrefix(thread: Thread, shared: readonly ThreadMessage[], length: number): boolean {
  const settle = (messages: ThreadMessage[]): ThreadMessage[] => {
    Reflect.defineProperty(thread, 'messages', {
      value: messages,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    return messages;
  };
  return Reflect.defineProperty(thread, 'messages', {
    get: () => settle(shared.slice(0, length)),
    set: (messages: ThreadMessage[]) => {
      settle(messages);
    },
    enumerable: true,
    configurable: true,
  });
}

/**
 * A thread equal to `thread` whose message array no later extension will grow: `thread` itself
 * unless its array is the one a fold extends in place (then a copy of the array's references), for
 * a caller that keeps the array across an await (the planner, ADR-0375).
 *
 * @param thread - A folded thread.
 * @returns `thread`, or a shallow copy with its own message array.
 */
export function withOwnMessages(thread: Thread): Thread {
  const messages = thread.messages;
  if (!growableBy.has(messages)) return thread;
  const own = messages.slice();
  copiedFrom.set(own, messages);
  return { ...thread, messages: own };
}

/** Each array `withOwnMessages` made → the growable array it copied. */
const copiedFrom = new WeakMap<readonly ThreadMessage[], readonly ThreadMessage[]>();

/**
 * Whether two message arrays hold the same messages at the same positions, known without reading them:
 * the same array, or a copy `withOwnMessages` made and the array it copied, of equal length (a growable
 * array only grows at its end, ADR-0375, and the copy is never written). What a planning run derived by
 * position over its own copy then holds for the caller's array too (ADR-0416).
 *
 * @param left - A message array.
 * @param right - Another.
 * @returns True when they are known to be position for position the same.
 */
export function sameMessageArrays(left: readonly ThreadMessage[], right: readonly ThreadMessage[]): boolean {
  if (left === right) return true;
  return (copiedFrom.get(left) === right || copiedFrom.get(right) === left) && left.length === right.length;
}

/**
 * Folds `events` from `from` into `fold` (whose thread and messages it owns), in place; the thread's
 * messages follow `before` (messages already folded, not in its array).
 */
function foldInto(
  fold: ThreadFold,
  events: readonly StoredEvent[],
  from: number,
  strict: boolean,
  before: readonly ThreadMessage[] = [],
): ThreadFold {
  const { thread, ids } = fold;
  let patches = fold.patches;
  let service = fold.service;
  let turn = (thread.messages.at(-1) ?? before.at(-1))?.turn ?? 0;
  let previousSeq = thread.version;
  for (let position = from; position < events.length; position += 1) {
    const event = events[position]!;
    if (event.seq <= previousSeq) {
      if (strict || position > from) {
        throw new ValidationError(`events out of order: seq ${event.seq} after ${previousSeq}`);
      }
      continue;
    }
    if (!strict && (event.threadId !== thread.id || event.tenantId !== thread.tenantId)) {
      throw new ValidationError(`event ${event.eventId} belongs to another thread than ${thread.id}`);
    }
    previousSeq = event.seq;
    thread.version = event.seq;
    if (isConversationEvent(event.type)) {
      service = { ...service, lastConversationSeq: event.seq };
    } else if (event.type === 'context.registered') {
      service = { ...service, registered: { system: event.system, tools: event.tools, seq: event.seq } };
    } else if (event.type === 'plan.committed' && !service.loggedPlanVersions.has(event.planVersion)) {
      service = {
        ...service,
        loggedPlanVersions: new Set([...service.loggedPlanVersions, event.planVersion]),
      };
    }
    if (event.type === 'thread.branched') {
      thread.branchedFrom = {
        sourceThreadId: event.sourceThreadId,
        fromMessageId: event.fromMessageId,
        sourceVersion: event.sourceVersion,
      };
    } else if (event.type === 'policy.updated') {
      patches = [...patches, event.patch];
      thread.policy = patchedPolicy(fold.createdPolicy, patches, thread.contextWindow);
    } else if (event.type === 'message.appended') {
      const message = event.message;
      if (ids.has(message.id)) {
        throw new ValidationError(`message id ${message.id} appears twice in thread ${thread.id}`);
      }
      ids.add(message.id);
      if (isTurnStart(message)) turn += 1;
      thread.messages.push(foldedMessage(message, event.seq, before.length + thread.messages.length, turn));
    }
  }
  return patches === fold.patches && service === fold.service ? fold : { ...fold, patches, service };
}

/**
 * `{ ...message, seq, index, turn }`, built so that messages with the same keys share one hidden class (ADR-0406):
 * on Node 20, spreading the imported messages and adding these three gave almost every folded message a map of its
 * own (1,295 maps for the pi bench's 1,332-message span), so every loop reading messages (the summarizer's, the
 * planner's) read them megamorphically, ~100 ns a message instead of ~10. Same keys in the same order, same values.
 */
function foldedMessage(message: Message, seq: number, index: number, turn: number): ThreadMessage {
  // An own `__proto__` key would set the copy's prototype under `Object.assign`: the spread keeps it a key.
  if (Object.hasOwn(message, '__proto__')) return { ...message, seq, index, turn };
  const folded = Object.assign({}, message) as ThreadMessage;
  folded.seq = seq;
  folded.index = index;
  folded.turn = turn;
  return folded;
}

/** The created policy with every patch applied in order, sized for the window. */
export function patchedPolicy(
  created: CompactionPolicyInput | undefined,
  patches: readonly PolicyPatch[],
  contextWindow: number,
): CompactionPolicy {
  const merged = Object.assign({}, created ?? {}, ...patches.map(withoutUndefined));
  return policyForWindow(parsePolicy(merged), contextWindow);
}

function withoutUndefined(patch: PolicyPatch): Partial<PolicyPatch> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
}

/**
 * Append more events to an already folded thread (for incremental consumers that kept only the
 * thread). Its policy is taken as the created one, so later patches apply on top of it.
 *
 * @param thread - The folded thread (unchanged).
 * @param events - Events in sequence order; those at or below its version are skipped.
 * @returns A new thread with the events folded in.
 * @throws ValidationError when a message id appears twice.
 * @deprecated Keep the {@link ThreadFold} and use {@link extendThread}: this rebuilds the id set
 *   from every message on each call.
 */
export function foldMore(thread: Thread, events: readonly StoredEvent[]): Thread {
  return extendThread(
    { thread, createdPolicy: thread.policy, patches: [], ids: new Set(), service: NO_SERVICE_RECORDS },
    events,
  ).thread;
}
