/**
 * One async lock per key: callers with the same key run one at a time, in arrival order; other
 * keys are not held up. Enough for one process serving many concurrent requests.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      // Forget the key once nobody queues behind us, so the map does not grow without bound.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Resolves when every task queued so far has finished. */
  async drain(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }
}
