/**
 * What a store keeps in memory per key (a thread's index, an open log), loaded from disk on first
 * use and dropped again when the budget is exceeded: least recently used first, and never while a
 * call is using it. Because an entry is dropped only when nobody uses it, at most one instance per
 * key is ever alive, so a writer never races a second copy of the same thread's index.
 */
export interface ResidentCacheOptions<V> {
  /** Most bytes (as `sizeOf` estimates them) kept across all idle entries. */
  maxBytes: number;
  /** Approximate bytes the value holds; asked again after every use (values grow as threads do). */
  sizeOf(value: V): number;
  /** Whether the value is worth keeping once unused: the absence of a thread is never kept. */
  worthKeeping(value: V): boolean;
  /** Release what the value holds (an open file) once it is dropped; errors are ignored. */
  dispose?(value: V): Promise<void> | void;
}

interface Entry<V> {
  loading: Promise<V>;
  value: V | undefined;
  users: number;
  bytes: number;
}

export interface ResidentCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
}

export class ResidentCache<V> {
  /** Insertion order is recency order: least recently used first. */
  readonly #entries = new Map<string, Entry<V>>();
  readonly #options: ResidentCacheOptions<V>;
  #bytes = 0;
  /** After `clear`: entries are dropped as soon as nobody uses them. */
  #clearing = false;

  constructor(options: ResidentCacheOptions<V>) {
    this.#options = options;
  }

  /**
   * Run `task` with the key's value, loading it with `load` when it is not resident. The entry
   * cannot be dropped while `task` runs; afterwards it is kept, resized or dropped.
   */
  async use<T>(key: string, load: () => Promise<V>, task: (value: V) => Promise<T> | T): Promise<T> {
    let entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    } else {
      const created: Entry<V> = { loading: load(), value: undefined, users: 0, bytes: 0 };
      created.loading.then(
        (value) => {
          created.value = value;
        },
        () => undefined,
      );
      entry = created;
      this.#entries.set(key, entry);
    }
    entry.users += 1;
    try {
      const value = await entry.loading;
      entry.value = value;
      return await task(value);
    } finally {
      entry.users -= 1;
      this.#settle(key, entry);
    }
  }

  get stats(): ResidentCacheStats {
    return { entries: this.#entries.size, bytes: this.#bytes, maxBytes: this.#options.maxBytes };
  }

  #settle(key: string, entry: Entry<V>): void {
    if (this.#entries.get(key) !== entry) return;
    if (entry.value === undefined) {
      // The load failed: the next call tries again.
      if (entry.users === 0) this.#remove(key, entry);
      return;
    }
    if (entry.users === 0 && (this.#clearing || !this.#options.worthKeeping(entry.value))) {
      this.#remove(key, entry);
      return;
    }
    // Just used: the most recently used, whatever it was when the call began.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    const bytes = this.#options.sizeOf(entry.value);
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    this.#evictOverBudget();
  }

  #evictOverBudget(): void {
    if (this.#bytes <= this.#options.maxBytes) return;
    for (const [key, entry] of this.#entries) {
      if (this.#bytes <= this.#options.maxBytes) return;
      if (entry.users === 0) this.#remove(key, entry);
    }
  }

  /** Drop every idle entry (releasing it); entries in use are dropped when their last call ends. */
  async clear(): Promise<void> {
    this.#clearing = true;
    const releasing: Array<Promise<void> | void> = [];
    for (const [key, entry] of this.#entries) {
      if (entry.users === 0) releasing.push(this.#remove(key, entry));
    }
    await Promise.all(releasing);
  }

  #remove(key: string, entry: Entry<V>): Promise<void> | undefined {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    if (entry.value === undefined || !this.#options.dispose) return undefined;
    return Promise.resolve()
      .then(() => this.#options.dispose?.(entry.value as V))
      .catch(() => undefined);
  }
}

/** Rough bytes of a JavaScript string held in memory (UTF-16 plus the object header). */
export function stringBytes(value: string): number {
  return 32 + 2 * value.length;
}
