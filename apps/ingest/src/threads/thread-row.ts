import type { EventStore, LifecycleEventLog, PlanStore, ThreadMetadata } from '@compactor/core';
import type { ThreadOrigins } from './thread-origin.js';
import type { ThreadPolicies } from './thread-policies.js';

export interface ThreadRowSources {
  events: EventStore;
  plans: PlanStore;
  lifecycle: LifecycleEventLog;
  origins: ThreadOrigins;
  policies: ThreadPolicies;
}

/** Events read per page when summing the tokens appended since the last compaction. */
const PAGE = 1_000;

/**
 * One row of `GET /v1/threads`: what an operator scans for. `tokens.now` is the message tokens the
 * model sees: the current plan's measured count plus everything appended after it (all message
 * tokens before any plan); `tokens.ceiling` is the default render budget (the window less the
 * output reserve and safety buffer of the effective policy).
 */
export async function threadRow(sources: ThreadRowSources, thread: ThreadMetadata) {
  const { tenantId, threadId } = thread;
  const [origin, policy, current, lastEvents] = await Promise.all([
    sources.origins.get(tenantId, threadId),
    sources.policies.effective(thread),
    sources.plans.getCurrent(tenantId, threadId),
    sources.lifecycle.list(tenantId, threadId, { limit: 1 }),
  ]);
  const plan = current.plan;
  const now = plan
    ? plan.compactedTokenCount + (await tokensAfter(sources.events, thread, plan.basedOnSeq))
    : thread.messageTokens;
  const last = lastEvents.at(-1);
  const status = thread.compactionPending ? 'pending' : last?.name === 'compaction_failed' ? 'failed' : 'ok';
  return {
    threadId,
    model: thread.model,
    contextWindow: thread.contextWindow,
    messageCount: thread.messageCount,
    version: thread.version,
    tokens: {
      messages: thread.messageTokens,
      now,
      ceiling: thread.contextWindow - policy.outputReserveTokens - policy.safetyBufferTokens,
    },
    planVersion: current.version,
    lastCompaction: plan ? { planVersion: current.version, at: plan.createdAt } : null,
    autoCompact: policy.autoCompact,
    status,
    lastLifecycleEvent: last ? { name: last.name, at: last.at } : null,
    branchedFrom: origin.branched
      ? { sourceThreadId: origin.branched.sourceThreadId, fromMessageId: origin.branched.fromMessageId }
      : null,
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
  };
}

async function tokensAfter(events: EventStore, thread: ThreadMetadata, seq: number): Promise<number> {
  let total = 0;
  let fromSeq: number | null = seq + 1;
  while (fromSeq !== null && fromSeq <= thread.version) {
    const page = await events.read(thread.tenantId, thread.threadId, { fromSeq, limit: PAGE });
    for (const event of page.events) if (event.type === 'message.appended') total += event.tokens ?? 0;
    fromSeq = page.nextSeq;
  }
  return total;
}
