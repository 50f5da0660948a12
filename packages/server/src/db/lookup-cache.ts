/** How long the server's caches trust what they read (LookupCache). */
export const LOOKUP_CACHE_MS = 10_000;
/** Entries a cache holds at most; past it, it starts afresh (a flood of made-up keys). */
const LOOKUP_CACHE_ENTRIES = 50_000;

/**
 * What was read from the database by key, trusted for `ttlMs`: the hot lookups of every
 * request (an ingest key's project, a secret API key, a project's owner) cost no statement on a
 * hit. Synchronous on a hit (`peek`), so a hot path pays no promise; concurrent misses of one
 * key share one read; a failed read is not kept. Bounded: past `maxEntries` it starts afresh (a
 * flood of made-up keys). An absent row is kept too (as null): a burst of unknown keys costs one
 * read each per `ttlMs`, not one per request. A change made on this instance is applied at once
 * by its writer (`forget`, `set`); other instances see it within `ttlMs`: LOOKUP_CACHE_MS for the
 * server's caches (ingest keys, API keys, project owners, sessions), as docs/operating.md
 * promises (Accounts, sessions and passwords).
 */
export class LookupCache<V extends object | null> {
  private readonly entries = new Map<string, Entry<V> | Promise<Entry<V>>>();

  constructor(
    private readonly read: (key: string) => Promise<V>,
    private readonly options: { ttlMs: number; maxEntries: number } = {
      ttlMs: LOOKUP_CACHE_MS,
      maxEntries: LOOKUP_CACHE_ENTRIES,
    },
  ) {}

  /** The fresh cached value (null: no such row), or undefined if it must be read. */
  peek(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry instanceof Promise || entry.expires <= now) return undefined;
    return entry.value;
  }

  /** The value: from the cache if fresh, else read (once, however many ask meanwhile). */
  get(key: string): V | Promise<V> {
    const cached = this.peek(key);
    if (cached !== undefined) return cached;
    const entry = this.entries.get(key);
    const loading = entry instanceof Promise ? entry : this.load(key);
    return loading.then((loaded) => loaded.value);
  }

  /** Replaces a key's value (a write of this instance's), trusted for a new `ttlMs`. */
  set(key: string, value: V): void {
    this.store(key, { value, expires: Date.now() + this.options.ttlMs });
  }

  /** Drops a key (a write of this instance's removed its row); a read still out is not kept. */
  delete(key: string): void {
    this.entries.delete(key);
  }

  /**
   * Drops the entries whose value matches (they are read again on their next use), and every
   * read still out, which may have read the row before the change: its answer is not kept.
   */
  forget(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (entry instanceof Promise || matches(entry.value)) this.entries.delete(key);
    }
  }

  /** Drops expired entries. */
  sweep(now = Date.now()): void {
    for (const [key, entry] of this.entries) {
      if (!(entry instanceof Promise) && entry.expires <= now) this.entries.delete(key);
    }
  }

  /** Sets a key's entry; a new key past the bound first empties the cache. */
  private store(key: string, entry: Entry<V> | Promise<Entry<V>>): void {
    if (this.entries.size >= this.options.maxEntries && !this.entries.has(key)) {
      this.entries.clear();
    }
    this.entries.set(key, entry);
  }

  private load(key: string): Promise<Entry<V>> {
    const loading = this.read(key).then(
      (value): Entry<V> => {
        const entry = { value, expires: Date.now() + this.options.ttlMs };
        // A write of this instance's (set, forget) while the read was out wins over it.
        if (this.entries.get(key) === loading) this.store(key, entry);
        return entry;
      },
      (error: unknown) => {
        if (this.entries.get(key) === loading) this.entries.delete(key);
        throw error;
      },
    );
    this.store(key, loading);
    return loading;
  }
}

interface Entry<V> {
  value: V;
  expires: number;
}
