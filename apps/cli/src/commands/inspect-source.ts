import { CompactorApiError, createCompactorClient } from '@compactor/client';
import {
  type EventStore,
  type LifecycleEventLog,
  type PlanStore,
  type StoredEvent,
  ValidationError,
} from '@compactor/core';

/** What `inspect` reads: a subset of the store ports, served by the embedded stores or over HTTP. */
export interface InspectSource {
  events: Pick<EventStore, 'getThread' | 'listThreads' | 'readAll'>;
  plans: Pick<PlanStore, 'getCurrent' | 'listVersions'>;
  lifecycle: Pick<LifecycleEventLog, 'list'>;
}

/**
 * The thread as a running ingest API serves it, for `inspect --server` (the embedded data
 * directory is locked while `serve` runs). The API key decides the tenant; the HTTP API serves no
 * lifecycle log, so recent compaction events are left out.
 */
export function remoteInspectSource(server: string, apiKey: string | undefined): InspectSource {
  if (!apiKey) {
    throw new ValidationError('--server needs --api-key', [
      { path: '--api-key', message: 'required with --server' },
    ]);
  }
  const client = createCompactorClient({ baseUrl: server, apiKey });
  return {
    events: {
      async getThread(tenantId, threadId) {
        try {
          const view = await client.getThread(threadId);
          return {
            tenantId,
            threadId,
            model: view.model,
            contextWindow: view.contextWindow,
            version: view.version,
            eventCount: view.eventCount,
            messageCount: view.messageCount,
            messageTokens: view.tokens.messages,
            createdAt: view.createdAt,
            updatedAt: view.updatedAt,
            compactionPending: view.compactionPending,
          };
        } catch (error) {
          if (CompactorApiError.isInstance(error) && error.status === 404) return null;
          throw error;
        }
      },
      async listThreads() {
        return { threads: [], nextCursor: null };
      },
      async readAll(_tenantId, threadId) {
        return (await client.readAllEvents(threadId)) as StoredEvent[];
      },
    },
    plans: {
      async getCurrent(_tenantId, threadId) {
        return (await client.getPlan(threadId)).current;
      },
      async listVersions(_tenantId, threadId) {
        return (await client.getPlan(threadId)).history;
      },
    },
    lifecycle: {
      async list() {
        return [];
      },
    },
  };
}
