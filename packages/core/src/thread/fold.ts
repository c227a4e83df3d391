import { ValidationError } from '../errors.js';
import type { PolicyPatch, StoredEvent } from '../schemas/events.js';
import {
  type CompactionPolicy,
  type CompactionPolicyInput,
  parsePolicy,
  policyForWindow,
} from '../schemas/policy.js';
import { isTurnStart, type Thread, type ThreadMessage, tokenizerFamilyOf } from './thread.js';

/**
 * Fold a thread's events (in sequence order) into its messages. Only `thread.created` and
 * `message.appended` shape the message list; `policy.updated` patches the policy (later patches
 * win); plans and lifecycle events are recorded elsewhere.
 *
 * @param events - The thread's stored events, `thread.created` first.
 * @returns The folded thread.
 * @throws ValidationError when the first event is not `thread.created`, events are out of order, or
 *   a message id appears twice.
 */
export function foldThread(events: readonly StoredEvent[]): Thread {
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
  const seenIds = new Set<string>();
  const patches: PolicyPatch[] = [];
  let turn = 0;
  let previousSeq = 0;
  for (const event of events) {
    if (event.seq <= previousSeq) {
      throw new ValidationError(`events out of order: seq ${event.seq} after ${previousSeq}`);
    }
    previousSeq = event.seq;
    thread.version = event.seq;
    if (event.type === 'thread.branched') {
      thread.branchedFrom = {
        sourceThreadId: event.sourceThreadId,
        fromMessageId: event.fromMessageId,
        sourceVersion: event.sourceVersion,
      };
    } else if (event.type === 'policy.updated') {
      patches.push(event.patch);
    } else if (event.type === 'message.appended') {
      const message = event.message;
      if (seenIds.has(message.id)) {
        throw new ValidationError(`message id ${message.id} appears twice in thread ${thread.id}`);
      }
      seenIds.add(message.id);
      if (isTurnStart(message)) turn += 1;
      const folded: ThreadMessage = { ...message, seq: event.seq, index: thread.messages.length, turn };
      thread.messages.push(folded);
    }
  }
  if (patches.length > 0) thread.policy = patchedPolicy(first.policy, patches, first.contextWindow);
  return thread;
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
 * Append more events to an already folded thread (for incremental consumers).
 *
 * @param thread - The folded thread (unchanged).
 * @param events - Events in sequence order; those at or below its version are skipped.
 * @returns A new thread with the events folded in.
 * @throws ValidationError when a message id appears twice.
 */
export function foldMore(thread: Thread, events: readonly StoredEvent[]): Thread {
  const messages = [...thread.messages];
  const seenIds = new Set(messages.map((message) => message.id));
  let turn = messages.at(-1)?.turn ?? 0;
  let version = thread.version;
  let branchedFrom = thread.branchedFrom;
  let policy = thread.policy;
  for (const event of events) {
    if (event.seq <= version) continue;
    version = event.seq;
    if (event.type === 'policy.updated') {
      // Capping an already capped policy again changes nothing, so this equals a full fold.
      policy = policyForWindow(
        parsePolicy({ ...policy, ...withoutUndefined(event.patch) }),
        thread.contextWindow,
      );
    }
    if (event.type === 'thread.branched') {
      branchedFrom = {
        sourceThreadId: event.sourceThreadId,
        fromMessageId: event.fromMessageId,
        sourceVersion: event.sourceVersion,
      };
    }
    if (event.type !== 'message.appended') continue;
    if (seenIds.has(event.message.id)) {
      throw new ValidationError(`message id ${event.message.id} appears twice in thread ${thread.id}`);
    }
    seenIds.add(event.message.id);
    if (isTurnStart(event.message)) turn += 1;
    messages.push({ ...event.message, seq: event.seq, index: messages.length, turn });
  }
  return { ...thread, messages, version, branchedFrom, policy };
}
