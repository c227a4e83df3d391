/**
 * Wait for `promise` at most `timeoutMs`: true when it settled (either way) in time, false when
 * the time ran out. Used where a shutdown step may hang on a server that is gone (Redis down), so
 * the step is bounded and the caller decides what to do next.
 */
export async function settleWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How long closing a BullMQ connection may take once no check runs any more. Past it Redis is taken
 * to be unreachable and the connection is dropped instead of closed politely.
 */
export const connectionCloseAllowanceMs = 500;

/**
 * How long dropping a connection is waited for. The socket is ended at once, but BullMQ's promise
 * waits for a close that a connection retrying an unreachable Redis may never report (measured: it
 * had not settled 2.2 s later), so a shutdown only gives it a moment.
 */
export const connectionDropAllowanceMs = 100;
