/**
 * A map whose entries never outlive the data they were built from. Two tokens decide it:
 * - the **shared version** (`version()`): changes with whatever may alter any merchant's answers (a channel, a
 *   currency, a channel or category pricing rule taking effect, a quote key, a full reload). When it moves,
 *   the whole map is emptied;
 * - a **stamp** per entry: the catalogue's record of the one merchant the entry is about, which the catalogue
 *   marks `superseded` as soon as anything that merchant could see changed (its keys, KYC, category,
 *   enablements, overrides, own rules, order; one of its scheduled rules taking effect). An entry whose stamp
 *   is superseded is gone; the other merchants' entries stay.
 * Checking an entry costs a property read on the stamp it holds: no lookup of the merchant per request.
 *
 * Bounded by entry count and, optionally, by a total weight (e.g. bytes): past either bound the oldest entries
 * go (insertion order), so traffic spread over more keys than the bound keeps the newest ones instead of
 * emptying the whole; a single entry heavier than the whole budget is never kept. A superseded stamp is kept
 * alive only by the entries holding it, so the stamps cost nothing beyond the entry bound.
 */
/**
 * Returns the current shared version of the data (catching the data up first where that is lazy); equal
 * tokens mean nothing every merchant could see changed in between.
 */
export type DataVersion = () => string | number;

/**
 * What the data owner marks once the data it stands for changed (the catalogue: a merchant's record, marked
 * when anything that merchant could see changed). Never unmarked: a changed merchant gets a new stamp.
 */
export interface DataStamp {
  readonly superseded?: boolean;
}

/** Optional weight budget of a {@link VersionedCache}. */
export interface CacheWeight<V> {
  weigh: (value: V) => number;
  max: number;
}

/** A kept value and the stamp of the merchant it is about (null: it depends on shared data only). */
interface Entry<V> {
  value: V;
  stamp: DataStamp | null;
}

export class VersionedCache<K, V> {
  #version: string | number | undefined;
  #weight = 0;
  readonly #entries = new Map<K, Entry<V>>();

  constructor(
    private readonly version: DataVersion,
    private readonly maxEntries = 10_000,
    private readonly weight?: CacheWeight<V>,
  ) {}

  /**
   * The cached value (if any, and current) and the shared version token to pass to {@link put} once a value
   * is built.
   */
  peek(key: K): { value: V | undefined; token: string | number } {
    this.sync();
    const token = this.#version!;
    const entry = this.#entries.get(key);
    if (entry === undefined) return { value: undefined, token };
    if (entry.stamp?.superseded === true) {
      this.#delete(key, entry);
      return { value: undefined, token };
    }
    return { value: entry.value, token };
  }

  /**
   * Store a value built from the data as of `token` and, when it is about one merchant, that merchant's
   * `stamp` as it was before the value was built. Ignored when the shared data changed meanwhile or the stamp
   * is superseded: the value may be older than the data.
   */
  put(key: K, value: V, token: string | number, stamp: DataStamp | null): void {
    this.sync();
    if (token !== this.#version || stamp?.superseded === true) return;
    const w = this.weight ? this.weight.weigh(value) : 0;
    if (this.weight && w > this.weight.max) return;
    const previous = this.#entries.get(key);
    if (previous !== undefined) this.#delete(key, previous);
    while (this.#entries.size > 0 && (this.#entries.size >= this.maxEntries || (this.weight !== undefined && this.#weight + w > this.weight.max))) this.#evictOldest();
    this.#entries.set(key, { value, stamp });
    this.#weight += w;
  }

  /** Drop everything if the shared data changed since the last call. */
  sync(): void {
    const now = this.version();
    if (now !== this.#version) {
      this.clear();
      this.#version = now;
    }
  }

  /** Entries held now (superseded ones included until they are asked for or evicted). */
  get size(): number {
    return this.#entries.size;
  }

  #delete(key: K, entry: Entry<V>): void {
    this.#entries.delete(key);
    if (this.weight) this.#weight -= this.weight.weigh(entry.value);
  }

  #evictOldest(): void {
    const [key, entry] = this.#entries.entries().next().value as [K, Entry<V>];
    this.#delete(key, entry);
  }

  private clear(): void {
    this.#entries.clear();
    this.#weight = 0;
  }
}
