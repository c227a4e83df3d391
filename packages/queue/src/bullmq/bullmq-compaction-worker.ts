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
import { connectionCloseAllowanceMs, connectionDropAllowanceMs, settleWithin } from '../settle-within.js';
import { closingReserveMs, ShutdownDeadline } from '../shutdown-deadline.js';
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
  // Set when close() starts: an interrupted check's requeue is budgeted from it.
  let requeueDeadline: ShutdownDeadline | undefined;

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
        await requeueInterrupted(job, token, requeueDeadline, logger);
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
  const close = (deadline?: ShutdownDeadline) => {
    if (closing) return closing;
    const closeBy = deadline ?? ShutdownDeadline.after(shutdownTimeoutMs);
    const reserve = closingReserveMs(closeBy.remainingMs());
    requeueDeadline = closeBy.earlier(reserve * DROP_SHARE_OF_RESERVE);
    closing = closeGracefully(worker, running, shutdown, closeBy, reserve, logger);
    return closing;
  };
  return { worker, close };
}

/** The part of the closing reserve kept for dropping the connections after requeueing. */
const DROP_SHARE_OF_RESERVE = 0.25;

async function requeueInterrupted(
  job: Job,
  token: string | undefined,
  deadline: ShutdownDeadline | undefined,
  logger: Logger,
): Promise<void> {
  const moved = job.moveToWait(token);
  // The worker's connection waits for Redis forever; a shutdown must not.
  const allowanceMs = Math.min(
    connectionCloseAllowanceMs,
    deadline?.remainingMs() ?? connectionCloseAllowanceMs,
  );
  try {
    if (await settleWithin(moved, allowanceMs)) {
      await moved;
      return;
    }
    moved.catch(() => {});
    throw new Error(`Redis did not answer within ${Math.round(allowanceMs)} ms`);
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
 * Stop taking jobs at once; give running checks the time before the deadline less `reserveMs`, then
 * interrupt them (they go back to the queue); then close the connections, or drop them when Redis
 * does not answer or the deadline comes. Every step is budgeted from `deadline`, so the close ends
 * by it whatever Redis does: about a second when no check runs and Redis is gone (ADR-0057,
 * ADR-0100).
 */
async function closeGracefully(
  worker: Worker,
  running: Set<Promise<unknown>>,
  shutdown: AbortController,
  deadline: ShutdownDeadline,
  reserveMs: number,
  logger: Logger,
): Promise<void> {
  const dropReserveMs = reserveMs * DROP_SHARE_OF_RESERVE;
  logger.info(
    { closeWithinMs: Math.round(deadline.remainingMs()), reserveMs, running: running.size },
    'compaction worker closing',
  );
  // Stops taking jobs at once, waits for running ones (and the storing of their outcomes), then
  // closes the connections.
  const closed = worker.close();
  closed.catch(() => {});
  const dropConnections = async (reason: string) => {
    logger.warn({}, reason);
    await settleWithin(worker.disconnect(), Math.min(connectionDropAllowanceMs, deadline.remainingMs()));
    logger.info({}, 'compaction worker closed');
  };
  // Nothing running and Redis unreachable: there is nothing to finish or store, and a polite close
  // would wait for Redis to come back.
  if (running.size === 0) {
    const politeWithinMs = Math.min(connectionCloseAllowanceMs, deadline.remainingMs(reserveMs));
    if (!(await settleWithin(closed, politeWithinMs)) && !(await redisAnswers(worker, deadline)))
      return dropConnections('Redis did not answer while closing; dropping the worker connections');
  }
  if (!(await settleWithin(closed, deadline.remainingMs(reserveMs)))) {
    if (running.size > 0) {
      logger.warn(
        { running: running.size, reserveMs },
        'shutdown grace period over; interrupting running checks',
      );
    }
    shutdown.abort(new Error('worker shutdown'));
    // Interrupted handlers requeue their job (bounded by the same deadline) and return; then the
    // close completes, unless Redis is unreachable or slow: then the connections are dropped.
    if (!(await settleWithin(closed, deadline.remainingMs(dropReserveMs)))) {
      return dropConnections('worker not closed by the shutdown deadline; dropping the worker connections');
    }
  }
  await closed;
  logger.info({}, 'compaction worker closed');
}

/**
 * Whether the worker's Redis connection is still trying to reach Redis (connection refused or
 * lost). A connection that is up, or already closing politely, is left to finish closing.
 */
async function redisAnswers(worker: Worker, deadline: ShutdownDeadline): Promise<boolean> {
  const client = worker.backend.client;
  client.catch(() => {});
  if (!(await settleWithin(client, Math.min(connectionCloseAllowanceMs, deadline.remainingMs()))))
    return false;
  const status = await client.then(
    (connected) => connected.status,
    () => 'end',
  );
  return !UNREACHABLE_STATUSES.has(status);
}

/** ioredis statuses of a connection waiting for a server it cannot reach. */
const UNREACHABLE_STATUSES = new Set(['connecting', 'reconnecting', 'wait']);
