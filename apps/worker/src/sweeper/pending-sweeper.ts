import type { Logger } from '@compactor/core';
import type { SweepResult } from './sweep-pending-threads.js';

/** A running periodic sweeper. */
export interface PendingSweeper {
  /** Run a sweep now (or join the one running) and return its result. */
  sweepNow(): Promise<SweepResult>;
  /** Stop the timer and wait for a running sweep. Idempotent. */
  close(): Promise<void>;
}

/**
 * Runs `sweep` at start (threads left pending while no worker ran are found at once) and then
 * every `intervalMs`; a tick that finds a sweep still running is skipped, so sweeps never overlap.
 *
 * @param options - Period, the sweep to run, and the logger for failed sweeps.
 * @returns The sweeper.
 */
export function startPendingSweeper(options: {
  intervalMs: number;
  sweep: () => Promise<SweepResult>;
  logger: Logger;
}): PendingSweeper {
  let running: Promise<SweepResult> | undefined;
  let closed = false;
  const sweepNow = () => {
    running ??= options.sweep().finally(() => {
      running = undefined;
    });
    return running;
  };
  const tick = () => {
    if (closed || running) return;
    sweepNow().catch((error: unknown) => options.logger.error({ err: error }, 'pending sweep failed'));
  };
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  tick();
  return {
    sweepNow,
    async close() {
      closed = true;
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
