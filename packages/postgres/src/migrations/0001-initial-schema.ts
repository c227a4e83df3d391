import type { Migration } from './migration.js';

/**
 * The first schema. Ids are `COLLATE "C"` so thread listing pages by byte order, the same on every
 * server whatever its locale. Payloads are `json`, not `jsonb`: `json` keeps the text verbatim and
 * accepts `\u0000`, which jsonb refuses and which real tool output contains.
 */
export const initialSchema: Migration = {
  version: 1,
  name: 'initial schema: threads, events, plans, summaries, lifecycle events',
  statements: (n) => [
    `CREATE TABLE ${n.threads} (
      tenant_id text COLLATE "C" NOT NULL,
      thread_id text COLLATE "C" NOT NULL,
      model text NOT NULL,
      context_window integer NOT NULL,
      version integer NOT NULL,
      event_count integer NOT NULL,
      message_count integer NOT NULL,
      message_tokens bigint NOT NULL,
      created_at text NOT NULL,
      updated_at text NOT NULL,
      compaction_pending boolean NOT NULL DEFAULT false,
      PRIMARY KEY (tenant_id, thread_id)
    )`,
    // Only pending threads are indexed: the sweeper's query stays small however many threads exist.
    `CREATE INDEX threads_compaction_pending ON ${n.threads} (tenant_id, thread_id) WHERE compaction_pending`,
    `CREATE TABLE ${n.events} (
      tenant_id text COLLATE "C" NOT NULL,
      thread_id text COLLATE "C" NOT NULL,
      seq integer NOT NULL,
      event_id text NOT NULL,
      message_id text,
      content_hash text NOT NULL,
      event json NOT NULL,
      PRIMARY KEY (tenant_id, thread_id, seq),
      UNIQUE (tenant_id, thread_id, event_id)
    )`,
    // A message id is used once per thread; only message events carry one.
    `CREATE UNIQUE INDEX events_message_id ON ${n.events} (tenant_id, thread_id, message_id)
      WHERE message_id IS NOT NULL`,
    `CREATE TABLE ${n.planHeads} (
      tenant_id text COLLATE "C" NOT NULL,
      thread_id text COLLATE "C" NOT NULL,
      version integer NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, thread_id)
    )`,
    `CREATE TABLE ${n.plans} (
      tenant_id text COLLATE "C" NOT NULL,
      thread_id text COLLATE "C" NOT NULL,
      version integer NOT NULL,
      based_on_seq integer NOT NULL,
      created_at text NOT NULL,
      reverted_from integer,
      plan json NOT NULL,
      PRIMARY KEY (tenant_id, thread_id, version)
    )`,
    `CREATE TABLE ${n.summaries} (
      tenant_id text COLLATE "C" NOT NULL,
      cache_key text NOT NULL,
      value json NOT NULL,
      PRIMARY KEY (tenant_id, cache_key)
    )`,
    `CREATE TABLE ${n.lifecycleEvents} (
      id bigserial PRIMARY KEY,
      tenant_id text COLLATE "C" NOT NULL,
      thread_id text COLLATE "C" NOT NULL,
      event json NOT NULL
    )`,
    `CREATE INDEX lifecycle_events_thread ON ${n.lifecycleEvents} (tenant_id, thread_id, id)`,
  ],
};
