import { setMaxListeners } from 'node:events';
import type { Logger } from '@compactor/core';
import {
  type CompactionWorkerOptions,
  defaultConcurrency,
  defaultShutdownTimeoutMs,
} from '../compaction-worker-types.js';
import { finishedEvent, logAttempt, notifyJobFinished } from '../job-finished-event.js';
import { runAttempt } from '../run-attempt.js';
import { ShutdownDeadline } from '../shutdown-deadline.js';
import type { InProcessCompactionQueue } from './in-process-compaction-queue.js';
import type { InProcessEntry } from './in-process-entry.js';

/** Runs waiting entries up to `concurrency` at once; closes gracefully. */
export class InProcessConsumer {
  private readonly running = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  private readonly concurrency: number;
  private readonly shutdownTimeoutMs: number;
  private stopping = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly queue: InProcessCompactionQueue,
    private readonly options: CompactionWorkerOptions,
    private readonly logger: Logger,
  ) {
    this.concurrency = options.concurrency ?? defaultConcurrency;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) {
      throw new RangeError('concurrency must be at least 1');
    }
    this.shutdownTimeoutMs = options.shutdownTimeoutMs ?? defaultShutdownTimeoutMs;
    // Every running check listens on it (and removes its listener when done); no leak to warn about.
    setMaxListeners(0, this.shutdown.signal);
  }

  pump(): void {
    while (!this.stopping && this.running.size < this.concurrency) {
      const entry = this.queue.takeNext();
      if (!entry) return;
      const run: Promise<void> = this.run(entry).finally(() => {
        this.running.delete(run);
        this.pump();
      });
      this.running.add(run);
    }
  }

  /** Graceful, ending by `deadline` (default: the grace period from now). Idempotent. */
  close(deadline?: ShutdownDeadline): Promise<void> {
    this.closing ??= this.closeGracefully(deadline ?? ShutdownDeadline.after(this.shutdownTimeoutMs));
    return this.closing;
  }

  private async run(entry: InProcessEntry): Promise<void> {
    const attempt = entry.failedAttempts + 1;
    const maxAttempts = this.queue.retry.attempts;
    const outcome = await runAttempt({
      jobId: entry.id,
      data: entry.data,
      attempt,
      maxAttempts,
      handler: this.options.handler,
      shutdownSignal: this.shutdown.signal,
      logger: this.logger,
    });
    const willRetry = outcome.kind === 'failed' && !outcome.permanent && attempt < maxAttempts;
    if (outcome.kind === 'completed') this.queue.completed(entry);
    else if (outcome.kind === 'interrupted') this.queue.interrupted(entry);
    else this.queue.failed(entry, willRetry);
    const event = finishedEvent(entry.id, attempt, outcome, willRetry);
    logAttempt(this.logger, event);
    notifyJobFinished(this.options.onJobFinished, event, this.logger);
  }

  /**
   * Nothing to requeue over a network here (an interrupted entry goes back in memory at once), so
   * running checks get the time up to the deadline itself.
   */
  private async closeGracefully(deadline: ShutdownDeadline): Promise<void> {
    this.stopping = true;
    const allSettled = Promise.allSettled([...this.running]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), deadline.remainingMs());
    });
    const expired = await Promise.race([allSettled.then(() => false), timedOut]);
    clearTimeout(timer);
    if (expired) {
      this.logger.warn(
        { shutdownTimeoutMs: this.shutdownTimeoutMs },
        'shutdown grace period over; interrupting running checks',
      );
      this.shutdown.abort(new Error('worker shutdown'));
      await allSettled;
    }
    this.queue.detach(this);
  }
}
