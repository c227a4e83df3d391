import type { LifecycleEvent, Logger } from '@compactor/core';
import pg from 'pg';
import type { PostgresLifecycleEventLog } from './postgres-lifecycle-log.js';
import type { SqlNames } from './sql-names.js';

export interface LifecycleSubscriptionOptions {
  /** Connection settings for the dedicated listening connection (a pooled one cannot LISTEN). */
  connection: pg.ClientConfig;
  names: SqlNames;
  log: PostgresLifecycleEventLog;
  logger: Logger;
  /** Only this tenant's events (default every tenant: an operator's view). */
  tenantId?: string;
  onEvent(event: LifecycleEvent): void;
  /** The listening connection failed; the subscription is over (subscribe again to resume). */
  onError?(error: Error): void;
}

/** A running lifecycle subscription. */
export interface LifecycleSubscription {
  /** Stop listening and release the dedicated connection. */
  close(): Promise<void>;
}

/**
 * Follow lifecycle events appended by any process on this schema: `LISTEN` on a dedicated
 * connection, and for each notification read the event it names. Events arrive in commit order;
 * a subscriber sees only what was appended after `subscribe` resolved.
 */
export async function subscribeToLifecycleEvents(
  options: LifecycleSubscriptionOptions,
): Promise<LifecycleSubscription> {
  const client = new pg.Client(options.connection);
  let closed = false;
  // Reads run one after another so events are delivered in notification (commit) order.
  let delivery: Promise<void> = Promise.resolve();
  client.on('notification', (message) => {
    if (message.channel !== options.names.lifecycleChannel || message.payload === undefined) return;
    const id = message.payload;
    delivery = delivery.then(async () => {
      if (closed) return;
      try {
        const event = await options.log.getById(id);
        if (event === null) return;
        if (options.tenantId !== undefined && event.tenantId !== options.tenantId) return;
        options.onEvent(event);
      } catch (error) {
        options.logger.warn({ err: error, id }, 'lifecycle notification could not be read');
      }
    });
  });
  client.on('error', (error) => {
    if (closed) return;
    closed = true;
    options.logger.error({ err: error }, 'lifecycle subscription lost its connection');
    options.onError?.(error);
    void client.end().catch(() => {});
  });
  await client.connect();
  await client.query(`LISTEN "${options.names.lifecycleChannel}"`);
  return {
    async close() {
      if (closed) return;
      closed = true;
      await delivery;
      await client.end();
    },
  };
}
