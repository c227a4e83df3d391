import {
  type CompactionPolicy,
  type EventStore,
  type PolicyPatch,
  parsePolicy,
  patchedPolicy,
  type ThreadMetadata,
} from '@compactor/core';
import type { ThreadOrigins } from './thread-origin.js';

interface CachedPatches {
  /** The thread version read up to. */
  version: number;
  patches: PolicyPatch[];
}

/** Events read per page while looking for policy patches. */
const PAGE = 1_000;

/**
 * A thread's effective policy: the created one with every `policy.updated` patch applied
 * (ADR-0092). The patches seen so far are cached per thread with the version read up to, so a
 * later call reads only the events appended since: the first call on a long thread reads its log
 * once, every later one a page at most. Bounded in entries.
 */
export function createThreadPolicies(events: EventStore, origins: ThreadOrigins, maxEntries = 2_000) {
  const cache = new Map<string, CachedPatches>();

  async function patchesOf(thread: ThreadMetadata): Promise<PolicyPatch[]> {
    const key = `${thread.tenantId}\u0000${thread.threadId}`;
    const cached = cache.get(key) ?? { version: 0, patches: [] };
    if (cached.version >= thread.version) return cached.patches;
    const patches = [...cached.patches];
    let fromSeq: number | null = cached.version + 1;
    let version = cached.version;
    while (fromSeq !== null && fromSeq <= thread.version) {
      const page = await events.read(thread.tenantId, thread.threadId, { fromSeq, limit: PAGE });
      for (const event of page.events) {
        if (event.type === 'policy.updated') patches.push(event.patch);
        version = event.seq;
      }
      fromSeq = page.nextSeq;
    }
    cache.delete(key);
    cache.set(key, { version, patches });
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    return patches;
  }

  return {
    /** The policy as configured (created + patches), before sizing for the window. */
    async configured(thread: ThreadMetadata): Promise<CompactionPolicy> {
      const [{ created }, patches] = await Promise.all([
        origins.get(thread.tenantId, thread.threadId),
        patchesOf(thread),
      ]);
      return parsePolicy(Object.assign({}, created.policy ?? {}, ...patches.map(definedFields)));
    },
    /** The policy as the planner and renderer apply it to this thread's window. */
    async effective(thread: ThreadMetadata): Promise<CompactionPolicy> {
      const [{ created }, patches] = await Promise.all([
        origins.get(thread.tenantId, thread.threadId),
        patchesOf(thread),
      ]);
      return patchedPolicy(created.policy, patches, thread.contextWindow);
    },
  };
}

function definedFields(patch: PolicyPatch): Partial<PolicyPatch> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
}

export type ThreadPolicies = ReturnType<typeof createThreadPolicies>;
