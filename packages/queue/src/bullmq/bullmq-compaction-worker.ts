import { setMaxListeners } from 'node:events';
import { type Logger, noopLogger } from '@compactor/core';
import { type Job, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import { compactionCheckJobSchema } from '../compaction-check-job-schema.js';
import {
  type CompactionJobResult,
  type CompactionWorker,
  type CompactionWorkerOptions,
  defaultConcurrency,
  defaultShutdownTimeoutMs,
} from '../compaction-worker-types.js';
import { summarizeFailure } from '../failure-classification.js';
import { finishedEvent, logAttempt, notifyJobFinished } from '../job-finished-event.js';
import { type AttemptOutcome, runAttempt } from '../run-attempt.js';
import { connectionCloseAllowanceMs, settleWithin } from '../settle-within.js';
import { type BullmqQueueLocation, resolveLocation } from './bullmq-connection-options.js';

/** Where the worker's queue lives, its handler, and how it recovers jobs whose worker died. */
export interface BullmqCompactionWorkerOptions extends BullmqQueueLocation, CompactionWorkerOptions {
  /**
   * How long a worker's lock on a running job lasts; it is renewed every half of it while the job
   * runs. A worker that dies loses the lock after this long.
   * @defaultValue 30,000
   */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose worker died (lock expired). @defaultValue 15,000 */
  stalledIntervalMs?: number;
  /**
   * How many times a job may be recovered after its worker died before it is failed, so a job that
   * crashes every worker that takes it cannot take the fleet down forever.
   * @defaultValue 2
   */
  maxStalledCount?: number;
}

/** A running BullMQ consumer. */
export interface BullmqCompactionWorker extends CompactionWorker {
  /** The underlying BullMQ worker, for operational tooling. */
  readonly worker: Worker;
}

interface AttemptRecord {
  attempt: number;
  outcome: AttemptOutcome;
  willRetry: boolean;
}

/**
 * The consumer. Payloads are validated (invalid = permanent failure); permanent handler errors
 * become BullMQ `UnrecoverableError`s; on shutdown timeout a running job is moved back to wait
 * (no attempt counted) rather than left for the stalled checker.
 *
 * @param options - Queue location, handler, concurrency, shutdown timeout and stall recovery.
 * @returns The running worker.
 * @throws RangeError when `concurrency` is below 1 or the queue name contains `:`.
 */
export async function startBullmqCompactionWorker(
  options: BullmqCompactionWorkerOptions,
): Promise<BullmqCompactionWorker> {
  const { queueName, prefix } = resolveLocation(options);
  const logger: Logger = options.logger ?? noopLogger;
  const concurrency = options.concurrency ?? defaultConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError('concurrency must be at least 1');
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? defaultShutdownTimeoutMs;
  const shutdown = new AbortController();
  // Every running check listens on it (and removes its listener when done); no leak to warn about.
  setMaxListeners(0, shutdown.signal);
  // Keyed by BullMQ's Job instance: the worker emits `completed`/`failed` with the same object it
  // passed to the processor, and only after it has persisted the outcome in Redis.
  const attempts = new WeakMap<Job, AttemptRecord>();
  // Our own count of running handlers: BullMQ's close() waits for them but also for Redis, and a
  // shutdown must tell the two apart.
  const running = new Set<Promise<unknown>>();

  const processor = async (job: Job, token?: string): Promise<CompactionJobResult> => {
    const processed = processJob(job, token);
    running.add(processed);
    try {
      return await processed;
    } finally {
      running.delete(processed);
    }
  };

  const processJob = async (job: Job, token?: string): Promise<CompactionJobResult> => {
    const jobId = job.id ?? 'unknown';
    const attempt = job.attemptsMade + 1;
    const maxAttempts = job.opts.attempts ?? 1;
    const outcome = await runAttempt({
      jobId,
      data: job.data,
      attempt,
      maxAttempts,
      handler: options.handler,
      shutdownSignal: shutdown.signal,
      logger,
    });
    switch (outcome.kind) {
      case 'completed':
        attempts.set(job, { attempt, outcome, willRetry: false });
        return outcome.result;
      case 'interrupted': {
        await requeueInterrupted(job, token, logger);
        const event = finishedEvent(jobId, attempt, outcome, false);
        logAttempt(logger, event);
        notifyJobFinished(options.onJobFinished, event, logger);
        // Tells BullMQ the job has been moved back to wait: nothing more to record.
        throw new WaitingError();
      }
      case 'failed': {
        const willRetry = !outcome.permanent && attempt < maxAttempts;
        attempts.set(job, { attempt, outcome, willRetry });
        const summary = summarizeFailure(outcome.error);
        if (outcome.permanent) throw new UnrecoverableError(`${summary.name}: ${summary.message}`);
        throw outcome.error instanceof Error ? outcome.error : new Error(summary.message);
      }
    }
  };

  const worker = new Worker(queueName, processor, {
    connection: options.connection,
    prefix,
    concurrency,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 15_000,
    maxStalledCount: options.maxStalledCount ?? 2,
  });

  const report = (job: Job) => {
    const record = attempts.get(job);
    if (!record) return;
    attempts.delete(job);
    const event = finishedEvent(job.id ?? 'unknown', record.attempt, record.outcome, record.willRetry);
    logAttempt(logger, event);
    notifyJobFinished(options.onJobFinished, event, logger);
  };
  worker.on('completed', report);
  worker.on('failed', (job, error) => {
    if (job && attempts.has(job)) report(job);
    // Failed without this worker's handler: by the stalled checker after too many recoveries.
    else reportFailureOutsideHandler(job, error, options, logger);
  });
  worker.on('stalled', (jobId) =>
    logger.warn({ jobId, queue: queueName }, 'stalled compaction check recovered'),
  );
  worker.on('error', (error) =>
    logger.error({ queue: queueName, error: summarizeFailure(error) }, 'compaction worker error'),
  );
  await worker.waitUntilReady();
  logger.info({ queue: queueName, prefix, concurrency }, 'compaction worker started');

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= closeGracefully(worker, running, shutdown, shutdownTimeoutMs, logger);
    return closing;
  };
  return { worker, close };
}

async function requeueInterrupted(job: Job, token: string | undefined, logger: Logger): Promise<void> {
  const moved = job.moveToWait(token);
  try {
    // The worker's connection waits for Redis forever; a shutdown must not.
    if (await settleWithin(moved, connectionCloseAllowanceMs)) {
      await moved;
      return;
    }
    moved.catch(() => {});
    throw new Error(`Redis did not answer within ${connectionCloseAllowanceMs} ms`);
  } catch (error) {
    // Redis may already be gone; the lock then expires and the stalled checker recovers the job.
    logger.warn({ jobId: job.id, error: summarizeFailure(error) }, 'could not requeue interrupted check');
  }
}

function reportFailureOutsideHandler(
  job: Job | undefined,
  error: Error,
  options: CompactionWorkerOptions,
  logger: Logger,
): void {
  const parsed = compactionCheckJobSchema.safeParse(job?.data);
  const event = {
    jobId: job?.id ?? 'unknown',
    job: parsed.success ? parsed.data : undefined,
    outcome: 'failed' as const,
    attempt: job?.attemptsStarted ?? 0,
    durationMs: 0,
    error: { ...summarizeFailure(error), permanent: true },
  };
  logAttempt(logger, event);
  notifyJobFinished(options.onJobFinished, event, logger);
}

/**
 * Stop taking jobs at once; give running checks the grace period, then interrupt them (they go back
 * to the queue); then close the connections, or drop them when Redis does not answer. So the close
 * is bounded whatever Redis does: about the grace period when checks run, about a second when none
 * does (ADR-0057).
 */
async function closeGracefully(
  worker: Worker,
  running: Set<Promise<unknown>>,
  shutdown: AbortController,
  shutdownTimeoutMs: number,
  logger: Logger,
): Promise<void> {
  logger.info({ shutdownTimeoutMs, running: running.size }, 'compaction worker closing');
  // Stops taking jobs at once, waits for running ones (and the storing of their outcomes), then
  // closes the connections.
  const closed = worker.close();
  closed.catch(() => {});
  const dropConnections = async () => {
    logger.warn({}, 'Redis did not answer while closing; dropping the worker connections');
    await settleWithin(worker.disconnect(), connectionCloseAllowanceMs);
  };
  // Nothing running and Redis unreachable: there is nothing to finish or store, and a polite close
  // would wait for Redis to come back.
  if (running.size === 0 && !(await settleWithin(closed, connectionCloseAllowanceMs))) {
    if (!(await redisAnswers(worker)))
      return dropConnections().then(() => logger.info({}, 'compaction worker closed'));
  }
  if (!(await settleWithin(closed, shutdownTimeoutMs))) {
    logger.warn({ shutdownTimeoutMs }, 'shutdown grace period over; interrupting running checks');
    shutdown.abort(new Error('worker shutdown'));
    // Interrupted handlers requeue their job (bounded) and return; then the close completes,
    // unless Redis is unreachable.
    if (!(await settleWithin(closed, connectionCloseAllowanceMs * 3)) && !(await redisAnswers(worker))) {
      await dropConnections();
    } else {
      await closed;
    }
  }
  logger.info({}, 'compaction worker closed');
}

/**
 * Whether the worker's Redis connection is still trying to reach Redis (connection refused or
 * lost). A connection that is up, or already closing politely, is left to finish closing.
 */
async function redisAnswers(worker: Worker): Promise<boolean> {
  const client = worker.backend.client;
  client.catch(() => {});
  if (!(await settleWithin(client, connectionCloseAllowanceMs))) return false;
  const status = await client.then(
    (connected) => connected.status,
    () => 'end',
  );
  return !UNREACHABLE_STATUSES.has(status);
}

/** ioredis statuses of a connection waiting for a server it cannot reach. */
const UNREACHABLE_STATUSES = new Set(['connecting', 'reconnecting', 'wait']);
