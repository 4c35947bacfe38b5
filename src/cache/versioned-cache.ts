/**
 * A map that empties itself whenever the database's version token changes
 * (see src/db/data-version.ts), so nothing derived from an older state of
 * the data is ever returned. Bounded: past `maxEntries` it is cleared
 * rather than grown (entries are cheap to rebuild).
 */
import type { DataVersion } from '../db/data-version.js';

export class VersionedCache<K, V> {
  #version: string | undefined;
  readonly #entries = new Map<K, V>();

  constructor(
    private readonly version: DataVersion,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value, or `build()`'s result (cached) when absent or the data changed. */
  get(key: K, build: () => V): V {
    this.sync();
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    const value = build();
    // Re-check: build() itself may have written (it should not), and a value built across a change must not be kept.
    if (value !== undefined && this.#version === this.version()) {
      if (this.#entries.size >= this.maxEntries) this.#entries.clear();
      this.#entries.set(key, value);
    }
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
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(key, value);
  }

  /** Drop everything if the data changed since the last call. */
  sync(): void {
    const now = this.version();
    if (now !== this.#version) {
      this.#entries.clear();
      this.#version = now;
    }
  }
}
