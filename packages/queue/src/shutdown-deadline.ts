/**
 * The moment by which a shutdown must be over, on the `performance.now()` clock. Every step of a
 * close (waiting for running checks, requeueing interrupted ones, closing connections) is budgeted
 * from the same deadline, so the steps add up to the grace period instead of each adding its own
 * allowance after it (ADR-0100).
 */
export class ShutdownDeadline {
  private constructor(readonly at: number) {}

  /** The deadline `ms` from now. */
  static after(ms: number): ShutdownDeadline {
    return new ShutdownDeadline(performance.now() + Math.max(0, ms));
  }

  /** Time left before the deadline, keeping `keepMs` of it for later steps; never negative. */
  remainingMs(keepMs = 0): number {
    return Math.max(0, this.at - keepMs - performance.now());
  }

  /** A deadline `ms` earlier, leaving that much to whatever runs after this one's steps. */
  earlier(ms: number): ShutdownDeadline {
    return new ShutdownDeadline(this.at - Math.max(0, ms));
  }
}

/**
 * Of a close's total time, the part kept for what follows the interruption of running checks:
 * requeueing them and closing (or dropping) the connections. A second, or a third of the total
 * when that is shorter, so short grace periods still give running checks most of the time.
 */
export function closingReserveMs(totalMs: number): number {
  return Math.min(1_000, Math.floor(Math.max(0, totalMs) / 3));
}
