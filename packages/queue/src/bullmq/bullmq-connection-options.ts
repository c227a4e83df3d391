import type { Logger } from '@compactor/core';
import type { ConnectionOptions } from 'bullmq';

/** Where the queue lives; shared by the producer and the worker, which must agree on all three. */
export interface BullmqQueueLocation {
  /**
   * BullMQ connection options, e.g. `{ url: 'redis://127.0.0.1:6379' }`, or an ioredis instance
   * (workers need `maxRetriesPerRequest: null` on it; BullMQ sets that itself for options objects).
   */
  connection: ConnectionOptions;
  /** The queue's name; must not contain `:`. @defaultValue `'compaction-check'` */
  queueName?: string;
  /**
   * Prefix of every Redis key of the queue (default `compactor`). On Redis Cluster use a hash tag,
   * e.g. `{compactor}`, so all of a queue's keys land in one slot (BullMQ's scripts need that).
   * @defaultValue `'compactor'`
   */
  prefix?: string;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
}

/** {@link BullmqQueueLocation.queueName}'s default. */
export const defaultQueueName = 'compaction-check';
/** {@link BullmqQueueLocation.prefix}'s default. */
export const defaultPrefix = 'compactor';
/** The BullMQ job name; one kind of job per queue. */
export const compactionCheckJobName = 'compaction-check';

export function resolveLocation(location: BullmqQueueLocation): { queueName: string; prefix: string } {
  const queueName = location.queueName ?? defaultQueueName;
  const prefix = location.prefix ?? defaultPrefix;
  if (queueName.includes(':')) throw new RangeError(`queue name "${queueName}" must not contain ":"`);
  return { queueName, prefix };
}
