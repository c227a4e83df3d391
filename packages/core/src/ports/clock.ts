/** The time, from the outside: core reads no clock of its own. */
export interface Clock {
  /** @returns The current time. */
  now(): Date;
}

/** The machine's clock. */
export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock tests can move by hand.
 *
 * @param start - The time it starts at.
 * @returns A clock with `advance` and `set`.
 */
export function fixedClock(
  start: Date | string,
): Clock & { advance(milliseconds: number): void; set(to: Date | string): void } {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance(milliseconds) {
      current += milliseconds;
    },
    set(to) {
      current = new Date(to).getTime();
    },
  };
}
