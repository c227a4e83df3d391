import type { FileHandle } from 'node:fs/promises';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the logs of one store: appends write their bytes, then ask for a sync here.
 * Requests that arrive together (in the same turn of the event loop) or while a round of syncs is
 * running wait for the next round, which syncs every touched file once and answers all of them.
 * So concurrent appends to many threads share rounds instead of each racing its own `fdatasync`
 * for the thread pool, and a file written twice before its round is synced once. Durability is
 * unchanged: a request is answered only after a sync that began after its bytes were written.
 * See ADR-0095.
 */
export class GroupCommit {
  #pending = new Map<FileHandle, Waiter[]>();
  #running = false;
  /** Rounds run so far and files synced in them: how much batching happened (tests, benchmarks). */
  rounds = 0;
  fileSyncs = 0;
  requests = 0;

  /** Resolves once `handle`'s data, as written before this call, is on stable storage. */
  sync(handle: FileHandle): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.requests += 1;
      const waiters = this.#pending.get(handle);
      if (waiters) waiters.push({ resolve, reject });
      else this.#pending.set(handle, [{ resolve, reject }]);
      if (this.#running) return;
      this.#running = true;
      // One turn's grace: every append whose write finished in this turn joins the first round.
      setImmediate(() => void this.#runRounds());
    });
  }

  async #runRounds(): Promise<void> {
    while (this.#pending.size > 0) {
      const round = this.#pending;
      this.#pending = new Map();
      this.rounds += 1;
      this.fileSyncs += round.size;
      await Promise.all(
        [...round].map(async ([handle, waiters]) => {
          try {
            await handle.datasync();
          } catch (error) {
            for (const waiter of waiters) waiter.reject(error);
            return;
          }
          for (const waiter of waiters) waiter.resolve();
        }),
      );
    }
    this.#running = false;
  }
}
