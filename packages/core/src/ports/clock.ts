export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move by hand. */
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
