import {
  type CompactionCheckJob,
  CompactorError,
  type EnqueueOptions,
  type JobQueue,
  type Logger,
  noopLogger,
} from '@compactor/core';
import { nextProbeDelay, type ProbeBackoff, resolveProbeBackoff } from './probe-backoff.js';

/** Closed: enqueues pass. Open: they fail at once. Half-open: a probe is running. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** How the breaker probes a queue that is down. */
export interface CircuitBreakingJobQueueOptions {
  /** A cheap request that succeeds only when the queue's server answers (e.g. a Redis read). */
  probe: () => Promise<void>;
  /**
   * First probe this long after the circuit opens, doubling after each failed probe up to a cap.
   * @defaultValue {@link defaultProbeBackoff}
   */
  backoff?: Partial<ProbeBackoff>;
  /** @defaultValue `noopLogger` */
  logger?: Logger;
  /** Told of every change of state, for metrics. */
  onStateChange?: (state: CircuitState) => void;
}

/**
 * A producer that stops asking a queue that is down (ADR-0055). Closed: every enqueue goes to the
 * inner queue. The first enqueue that fails with anything but a validation error opens the
 * circuit: from then on enqueues fail at once with a retryable `unavailable` error (the ingest
 * marks the thread pending for the sweeper), so an append no longer waits the enqueue timeout.
 * While open, a background probe runs with exponential backoff (half-open while it runs); the
 * first probe that succeeds closes the circuit. Appends never wait for a probe.
 */
export class CircuitBreakingJobQueue implements JobQueue {
  private readonly backoff: ProbeBackoff;
  private readonly logger: Logger;
  private current: CircuitState = 'closed';
  private failedProbes = 0;
  private probeTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * @param inner - The queue enqueues go to while the circuit is closed.
   * @param options - Probe, backoff, logger and state listener.
   * @throws RangeError for a backoff figure below 1 ms or a cap below the initial delay.
   */
  constructor(
    private readonly inner: JobQueue,
    private readonly options: CircuitBreakingJobQueueOptions,
  ) {
    this.backoff = resolveProbeBackoff(options.backoff);
    this.logger = options.logger ?? noopLogger;
  }

  /**
   * The circuit's state now.
   *
   * @returns `closed`, `open` or `half-open`.
   */
  get state(): CircuitState {
    return this.current;
  }

  async enqueueCompactionCheck(job: CompactionCheckJob, options?: EnqueueOptions): Promise<void> {
    if (this.current !== 'closed') {
      throw new CompactorError(
        'unavailable',
        `the compaction queue is unavailable (circuit ${this.current})`,
        {
          isRetryable: true,
          details: { tenantId: job.tenantId, threadId: job.threadId, circuit: this.current },
        },
      );
    }
    try {
      await this.inner.enqueueCompactionCheck(job, options);
    } catch (error) {
      if (!CompactorError.hasCode(error, 'validation')) this.open(error);
      throw error;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    await this.inner.close();
  }

  private open(cause: unknown): void {
    if (this.current !== 'closed' || this.closed) return;
    this.failedProbes = 0;
    this.transition('open');
    this.logger.warn(
      { err: cause },
      'compaction queue unavailable: circuit open, appends mark threads pending',
    );
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.closed) return;
    const delayMs = nextProbeDelay(this.failedProbes, this.backoff);
    this.probeTimer = setTimeout(() => void this.runProbe(), delayMs);
    // An open circuit must not keep a process alive that has nothing else to do.
    this.probeTimer.unref();
  }

  private async runProbe(): Promise<void> {
    this.probeTimer = undefined;
    if (this.closed) return;
    this.transition('half-open');
    try {
      await withTimeout(this.options.probe(), this.backoff.probeTimeoutMs);
      if (this.closed) return;
      this.transition('closed');
      this.logger.info({ failedProbes: this.failedProbes }, 'compaction queue answers again: circuit closed');
    } catch (error) {
      if (this.closed) return;
      this.failedProbes += 1;
      this.transition('open');
      this.logger.debug({ err: error, failedProbes: this.failedProbes }, 'compaction queue probe failed');
      this.scheduleProbe();
    }
  }

  private transition(state: CircuitState): void {
    if (this.current === state) return;
    this.current = state;
    this.options.onStateChange?.(state);
  }
}

function withTimeout(promise: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`probe took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  // A late rejection of the probe itself must not surface as an unhandled rejection.
  promise.catch(() => {});
  return Promise.race([promise, timedOut]).finally(() => clearTimeout(timer));
}
