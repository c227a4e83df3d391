import type { Logger } from '@compactor/core';
import { type CompactionJobHandler, ShutdownDeadline } from '@compactor/queue';
import type { Runtime } from '@compactor/runtime';
import type { Registry } from 'prom-client';
import { createCompactionHandler } from './compaction/compaction-handler.js';
import { createWorkerMetrics, type WorkerMetrics } from './metrics/worker-metrics.js';
import { type PendingSweeper, startPendingSweeper } from './sweeper/pending-sweeper.js';
import { type SweepResult, sweepPendingThreads } from './sweeper/sweep-pending-threads.js';

/** The runtime a worker consumes from, and its overrides of the configured settings. */
export interface StartWorkerOptions {
  runtime: Pick<Runtime, 'config' | 'engine' | 'stores' | 'queue' | 'startConsumer'>;
  metrics: Registry;
  logger: Logger;
  /** Checks run at once. @defaultValue the runtime's `COMPACTOR_WORKER_CONCURRENCY` */
  concurrency?: number;
  /** Sweeper period; 0 = no sweeper here. @defaultValue the runtime's `COMPACTOR_SWEEP_INTERVAL_MS` */
  sweepIntervalMs?: number;
  /**
   * The whole time `close()` may take when given no deadline (running checks get it less what
   * requeueing them and closing needs). @defaultValue the runtime's `COMPACTOR_SHUTDOWN_TIMEOUT_MS`
   */
  shutdownTimeoutMs?: number;
}

/** A running worker. */
export interface CompactionWorkerProcess {
  metrics: WorkerMetrics;
  /** Run the sweeper once now (also when its timer is off); for operators and tests. */
  sweepNow(): Promise<SweepResult>;
  /**
   * Graceful, and over by `deadline` (default: the grace period from now) whatever the queue's
   * server does: stop the sweeper, stop taking checks, let running ones finish while there is time
   * (the rest are interrupted early enough to go back to the queue), and wait for their handlers
   * to let go of the stores. The runtime stays open (close it after). Idempotent.
   */
  close(deadline?: ShutdownDeadline): Promise<void>;
}

/**
 * The most `close()` waits for interrupted handlers to unwind before the stores may close; less
 * when the deadline is nearer.
 */
const HANDLER_UNWIND_MS = 5_000;

/**
 * The compaction worker: consumes compaction checks from the runtime's queue, runs the engine
 * (load, trigger, planner, commit with version CAS, lifecycle events), counts what happened in
 * Prometheus metrics, and sweeps threads whose enqueue failed.
 *
 * @param options - The runtime, metrics registry, logger and setting overrides.
 * @returns The running worker.
 */
export async function startWorker(options: StartWorkerOptions): Promise<CompactionWorkerProcess> {
  const { runtime, logger } = options;
  const settings = runtime.config.worker;
  const metrics = createWorkerMetrics(options.metrics);
  const sweep = () =>
    sweepPendingThreads({
      events: runtime.stores.events,
      queue: runtime.queue,
      logger,
      onThread: (outcome) => metrics.sweeperEnqueues.inc({ outcome }),
    });

  const running = new Set<Promise<unknown>>();
  const checkThread = createCompactionHandler(runtime.engine);
  const handler: CompactionJobHandler = (job, context) => {
    const handled = checkThread(job, context);
    running.add(handled);
    void handled.then(
      () => running.delete(handled),
      () => running.delete(handled),
    );
    return handled;
  };
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? settings.shutdownTimeoutMs;
  const consumer = await runtime.startConsumer(handler, {
    concurrency: options.concurrency ?? settings.concurrency,
    shutdownTimeoutMs,
    onJobFinished: (event) => metrics.recordJobFinished(event),
    logger,
  });
  const sweepIntervalMs = options.sweepIntervalMs ?? settings.sweepIntervalMs;
  const sweeper: PendingSweeper | undefined =
    sweepIntervalMs > 0 ? startPendingSweeper({ intervalMs: sweepIntervalMs, sweep, logger }) : undefined;

  let closing: Promise<void> | undefined;
  const closeGracefully = async (deadline: ShutdownDeadline) => {
    // Side by side: a sweep waiting on an enqueue must not eat the running checks' time.
    const sweeperClosed = sweeper ? settleWithin([sweeper.close()], deadline.remainingMs()) : undefined;
    await consumer.close(deadline);
    await sweeperClosed;
    // An interrupted check has been requeued already; its handler is still unwinding (the
    // signal aborted it). Wait a little so it does not write into stores being closed.
    if (running.size > 0) {
      const unwound = await settleWithin([...running], Math.min(HANDLER_UNWIND_MS, deadline.remainingMs()));
      if (!unwound) logger.warn({ handlers: running.size }, 'checks still running after shutdown');
    }
  };
  return {
    metrics,
    sweepNow: () => sweeper?.sweepNow() ?? sweep(),
    close(deadline) {
      closing ??= closeGracefully(deadline ?? ShutdownDeadline.after(shutdownTimeoutMs));
      return closing;
    },
  };
}

async function settleWithin(promises: Promise<unknown>[], timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const settled = Promise.allSettled(promises).then(() => true);
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
