import { randomUUID } from 'node:crypto';
import {
  type Clock,
  CompactorError,
  type EventInput,
  type EventStore,
  foldThread,
  type PlanStore,
  planCommittedEvent,
  restrictPlanToMessages,
  type StoredEvent,
  type StoredEventOf,
  ValidationError,
} from '@compactor/core';

/** The stores and clock a branch is made with. */
export interface BranchDependencies {
  events: EventStore;
  plans: PlanStore;
  clock: Clock;
}

/** Where to branch, and the new thread's id. */
export interface BranchRequest {
  /** The last source message the branch keeps. */
  fromMessageId: string;
  /** The branch's thread id. @defaultValue a random UUID */
  newThreadId?: string | undefined;
}

/** The branch made (or found, on a retry) and where it came from. */
export interface BranchResult {
  threadId: string;
  /** The branch's thread version (its last event seq). */
  version: number;
  sourceThreadId: string;
  fromMessageId: string;
  sourceVersion: number;
  /** The branch's plan version: 1 when a source plan applied, 0 when none did. */
  planVersion: number;
  /** The source plan version the branch's plan was copied from, or null. */
  sourcePlanVersion: number | null;
  /** False when the branch already existed (an idempotent retry); when true, `version` events were stored. */
  created: boolean;
}

const CREATED_EVENT_ID = 'branch.created';
const BRANCHED_EVENT_ID = 'branch.origin';
const COPY_EVENT_PREFIX = 'branch.copy.';
const copyEventId = (sourceSeq: number) => `${COPY_EVENT_PREFIX}${sourceSeq}`;

/** The source seq a branch event was copied from (undefined for the branch's own events). */
/** The branch's copy of a source event, for messages and policy changes; nothing for the rest. */
function copyForBranch(event: StoredEvent): EventInput[] {
  const copied = { eventId: copyEventId(event.seq), timestamp: event.timestamp };
  if (event.type === 'message.appended') {
    return [
      {
        ...copied,
        type: 'message.appended',
        message: event.message,
        ...(event.tokens !== undefined ? { tokens: event.tokens } : {}),
      },
    ];
  }
  if (event.type === 'context.registered') {
    return [{ ...copied, type: 'context.registered', system: event.system, tools: event.tools }];
  }
  if (event.type === 'policy.updated') {
    return [
      {
        ...copied,
        type: 'policy.updated',
        patch: event.patch,
        ...(event.requesterId !== undefined ? { requesterId: event.requesterId } : {}),
      },
    ];
  }
  return [];
}

function sourceSeqOf(event: StoredEvent): number | undefined {
  return event.eventId.startsWith(COPY_EVENT_PREFIX)
    ? Number(event.eventId.slice(COPY_EVENT_PREFIX.length))
    : undefined;
}

/**
 * A new thread holding the source's messages up to and including `fromMessageId` (pi's
 * /branch, ADR-0022): `thread.created` (same model, window, policy), `thread.branched`, then copies of the
 * `message.appended` events (new event ids, same message ids). Its plan is the latest source plan
 * made from no more than those messages: a compaction that happened later does not apply, so
 * branching before a compaction undoes it. Retrying with the same `newThreadId` is safe.
 *
 * @param dependencies - The event and plan stores and the clock.
 * @param tenantId - The tenant owning both threads.
 * @param sourceThreadId - The thread to branch from.
 * @param request - The message to branch at and the new thread's id.
 * @returns The branch, with `created: false` when an identical branch already existed.
 * @throws ValidationError when the source has no such message, or the new id equals the source's.
 * @throws CompactorError (code `concurrency`) when `newThreadId` names a thread that is not this branch.
 */
export async function branchThread(
  dependencies: BranchDependencies,
  tenantId: string,
  sourceThreadId: string,
  request: BranchRequest,
): Promise<BranchResult> {
  const { events } = dependencies;
  const source = await events.readAll(tenantId, sourceThreadId);
  const created = source[0] as StoredEventOf<'thread.created'>;
  const from = source.find(
    (event): event is StoredEventOf<'message.appended'> =>
      event.type === 'message.appended' && event.message.id === request.fromMessageId,
  );
  if (!from) {
    throw new ValidationError(`thread ${sourceThreadId} has no message ${request.fromMessageId}`, [
      { path: 'fromMessageId', message: 'no message with this id in the source thread' },
    ]);
  }
  const threadId = request.newThreadId ?? randomUUID();
  if (threadId === sourceThreadId) {
    throw new ValidationError('a branch needs a new thread id', [
      { path: 'newThreadId', message: 'must differ from the source thread id' },
    ]);
  }

  const existing = await events.getThread(tenantId, threadId);
  if (existing) {
    const branchEvents = await events.readAll(tenantId, threadId);
    const branched = branchEvents[1]?.type === 'thread.branched' ? branchEvents[1] : undefined;
    const same =
      branched?.sourceThreadId === sourceThreadId && branched.fromMessageId === request.fromMessageId;
    if (!same) throw alreadyExists(threadId);
    const { logVersion, ...plan } = await ensureBranchPlan(
      dependencies,
      tenantId,
      sourceThreadId,
      from.seq,
      branchEvents,
    );
    return {
      threadId,
      version: logVersion ?? existing.version,
      sourceThreadId,
      fromMessageId: request.fromMessageId,
      sourceVersion: branched.sourceVersion,
      ...plan,
      created: false,
    };
  }

  const sourceVersion = source.at(-1)!.seq;
  const inputs: EventInput[] = [
    {
      eventId: CREATED_EVENT_ID,
      type: 'thread.created',
      model: created.model,
      contextWindow: created.contextWindow,
      ...(created.maxOutputTokens !== undefined ? { maxOutputTokens: created.maxOutputTokens } : {}),
      ...(created.policy !== undefined ? { policy: created.policy } : {}),
      ...(created.metadata !== undefined ? { metadata: created.metadata } : {}),
    },
    {
      eventId: BRANCHED_EVENT_ID,
      type: 'thread.branched',
      sourceThreadId,
      fromMessageId: request.fromMessageId,
      sourceVersion,
    },
    // Messages up to the branch point, and the policy changes made before it (ADR-0092), in log order.
    ...source.filter((event) => event.seq <= from.seq).flatMap(copyForBranch),
  ];
  let appended: Awaited<ReturnType<typeof events.append>>;
  try {
    appended = await events.append(tenantId, threadId, inputs, { expectedVersion: 0 });
  } catch (error) {
    if (CompactorError.hasCode(error, 'concurrency')) throw alreadyExists(threadId);
    throw error;
  }
  const { logVersion, ...plan } = await ensureBranchPlan(
    dependencies,
    tenantId,
    sourceThreadId,
    from.seq,
    appended.events,
  );
  return {
    threadId,
    version: logVersion ?? appended.version,
    sourceThreadId,
    fromMessageId: request.fromMessageId,
    sourceVersion,
    ...plan,
    created: true,
  };
}

/** Commit the branch's plan unless it has one (a retry after a crash between append and commit). */
async function ensureBranchPlan(
  dependencies: BranchDependencies,
  tenantId: string,
  sourceThreadId: string,
  fromSeq: number,
  branchEvents: readonly StoredEvent[],
): Promise<{ planVersion: number; sourcePlanVersion: number | null; logVersion?: number }> {
  const { plans } = dependencies;
  const branchId = branchEvents[0]!.threadId;
  const versions = await plans.listVersions(tenantId, sourceThreadId);
  const applicable = versions
    .filter((version) => version.basedOnSeq <= fromSeq)
    .reduce<number | null>((latest, version) => Math.max(latest ?? 0, version.version), null);
  const current = await plans.getCurrent(tenantId, branchId);
  if (current.version > 0 || applicable === null) {
    return { planVersion: current.version, sourcePlanVersion: applicable };
  }
  const sourcePlan = await plans.getVersion(tenantId, sourceThreadId, applicable);
  if (!sourcePlan) return { planVersion: 0, sourcePlanVersion: null };
  const branch = foldThread([...branchEvents]);
  const turnById = new Map(branch.messages.map((message) => [message.id, message.turn]));
  // The plan's basedOnSeq is a source seq; the branch numbers the same messages differently.
  const copiedUpTo = branchEvents.filter(
    (event) => (sourceSeqOf(event) ?? Infinity) <= sourcePlan.basedOnSeq,
  );
  const basedOnSeq = copiedUpTo.at(-1)?.seq ?? branchEvents[1]?.seq ?? 0;
  const restricted = restrictPlanToMessages(sourcePlan, turnById, {
    threadId: branchId,
    basedOnSeq,
    createdAt: dependencies.clock.now().toISOString(),
  });
  if (!restricted) return { planVersion: 0, sourcePlanVersion: null };
  const commit = await plans.commit(tenantId, branchId, restricted, 0);
  // The branch's log records its plan as every thread's does (ADR-0190); a failed append is
  // repaired by the branch's next check.
  const logged = commit.committed
    ? await dependencies.events
        .append(tenantId, branchId, [planCommittedEvent(restricted, commit.version)])
        .catch(() => undefined)
    : undefined;
  return {
    planVersion: commit.committed ? commit.version : commit.currentVersion,
    sourcePlanVersion: applicable,
    ...(logged ? { logVersion: logged.version } : {}),
  };
}

function alreadyExists(threadId: string): CompactorError {
  return new CompactorError('concurrency', `thread ${threadId} already exists`, { details: { threadId } });
}
