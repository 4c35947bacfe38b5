/**
 * A map that empties itself whenever the database's version token changes
 * (the store's `version()`, src/storage/model/store.ts), so nothing derived from an older state of
 * the data is ever returned. Bounded by entry count and, optionally, by a
 * total weight (e.g. bytes): past either bound the oldest entries go (insertion
 * order), so traffic spread over more keys than the bound keeps the newest
 * ones instead of emptying the whole; a single entry heavier than the whole
 * budget is never kept.
 */
/** Returns the current version token of the data; equal tokens mean nothing changed in between. */
export type DataVersion = () => string;

/** Optional weight budget of a {@link VersionedCache}. */
export interface CacheWeight<V> {
  weigh: (value: V) => number;
  max: number;
}

export class VersionedCache<K, V> {
  #version: string | undefined;
  #weight = 0;
  readonly #entries = new Map<K, V>();

  constructor(
    private readonly version: DataVersion,
    private readonly maxEntries = 10_000,
    private readonly weight?: CacheWeight<V>,
  ) {}

  /** The cached value, or `build()`'s result (cached) when absent or the data changed. */
  get(key: K, build: () => V): V {
    this.sync();
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    const token = this.#version!;
    const value = build();
    // A value built across a change must not be kept.
    if (value !== undefined) this.put(key, value, token);
    return value;
  }

  /**
   * For values built asynchronously: the cached value (if any) and the
   * version token to pass to {@link put} once the value is built.
   */
  peek(key: K): { value: V | undefined; token: string } {
    this.sync();
    return { value: this.#entries.get(key), token: this.#version! };
  }

  /** Store a value built from the data as of `token`; ignored if the data changed meanwhile. */
  put(key: K, value: V, token: string): void {
    this.sync();
    if (token !== this.#version) return;
    const w = this.weight ? this.weight.weigh(value) : 0;
    if (this.weight && w > this.weight.max) return;
    const previous = this.#entries.get(key);
    if (previous !== undefined) {
      this.#entries.delete(key);
      if (this.weight) this.#weight -= this.weight.weigh(previous);
    }
    while (this.#entries.size > 0 && (this.#entries.size >= this.maxEntries || (this.weight !== undefined && this.#weight + w > this.weight.max))) this.#evictOldest();
    this.#entries.set(key, value);
    this.#weight += w;
  }

  /** Drop everything if the data changed since the last call. */
  sync(): void {
    const now = this.version();
    if (now !== this.#version) {
      this.clear();
      this.#version = now;
    }
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  #evictOldest(): void {
    const [key, value] = this.#entries.entries().next().value as [K, V];
    this.#entries.delete(key);
    if (this.weight) this.#weight -= this.weight.weigh(value);
  }

  private clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }
}
