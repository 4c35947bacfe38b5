/**
 * The storage door as the rest of the service sees it (contract §6): a database of either engine that keeps
 * an in-memory catalogue current, a health verdict, and the operator repository. Opened by `openStore`
 * (src/storage/index.ts), the only code that knows which engine runs: SQLite (src/storage/sqlite/) is the
 * zero-set-up default, Postgres (src/storage/postgres/) is selected by DATABASE_URL.
 *
 * The catalogue itself (what requests read, with the pricing rules applied) is domain code
 * (src/modules/catalogue/catalog.ts): the store only feeds it rows through {@link CatalogueSink}, so storage
 * never imports a module.
 */
import type { AdminRepository } from './admin-repository.js';
import type { CatalogRows, ChangedEntities } from './catalogue-rows.js';

/** Whether the database is usable. */
export interface DatabaseStatus {
  ok: boolean;
  /** Why the database is not usable (for logs and /ready), when not ok. */
  reason?: string;
}

/**
 * A full load in progress, built beside the live catalogue: rows are added in batches (channels, currencies
 * and their rules before the merchants' rows that name them) and nothing is visible until `commit` swaps the
 * whole in. Peak memory is the live catalogue, the one being built and one batch of rows.
 */
export interface CatalogueLoad {
  add(rows: Partial<CatalogRows>): void;
  /**
   * The work between the last `add` and the swap (per merchant: bounded steps), as an iterator a reload while
   * serving advances a step per event-loop turn; `commit` runs whatever is left.
   */
  settle(): Iterator<void>;
  /** Swap the loaded catalogue in, consistent with the change log up to `lastSeq`. */
  commit(lastSeq: number): void;
}

/**
 * What a store keeps current. Invariants the store relies on: `lastSeq` is the highest change-log sequence
 * number applied; `version` changes whenever anything applied changed; a transition listener is called when
 * something changes without a write (a scheduled rule taking effect), exactly like a committed change.
 */
export interface CatalogueSink {
  readonly lastSeq: number;
  readonly version: string;
  /** Start replacing everything (start, a replaced database, a replica behind the pruned change log). */
  beginLoad(): CatalogueLoad;
  /** Apply the rows of the entities named by change-log rows up to `lastSeq`. */
  apply(changed: ChangedEntities, lastSeq: number): void;
  onTransition(listener: () => void): void;
  /** Stop timers; nothing is called back afterwards. */
  close(): void;
}

/** An open database with the catalogue it keeps current. */
export interface Store<C extends CatalogueSink = CatalogueSink> {
  readonly engine: 'sqlite' | 'postgres';
  /** Where the data lives, for logs (a file path, or the URL without its password). */
  readonly location: string;
  /** What requests read. Current as of the last {@link check} (SQLite) or the last notification/poll (Postgres). */
  readonly catalog: C;
  /**
   * Cheap, synchronous, per request: is the database usable, and (SQLite)
   * catch the catalogue up with commits made elsewhere. Never throws.
   */
  check(): DatabaseStatus;
  /** A live probe for /ready and after a 503 (SQLite queries; Postgres answers its monitor's latest verdict). */
  probe(): DatabaseStatus;
  /** Seconds since the catalogue was last known current (`gateway_catalogue_age_seconds`; grows during an outage). */
  catalogueAgeSeconds(): number;
  /** The catalogue's version token after catching up; equal tokens mean nothing changed in between. */
  version(): string;
  /** Resolves once every change committed before the call (by any process) is in the catalogue. */
  sync(): Promise<void>;
  /** Operator reads and writes. */
  readonly admin: AdminRepository;
  /**
   * Contract §15: delete `change_log` rows older than the retention as of `now` (a bounded batch, never the
   * newest row); returns how many. Servers call it periodically; safe from any number of processes at once.
   */
  pruneHistory(now?: number): Promise<number>;
  /** Called after every change applied to the catalogue (any writer, any process). Returns an unsubscribe. */
  onChange(listener: (change: CatalogueChange) => void): () => void;
  close(): Promise<void>;
}

/**
 * What a change listener learns of a change. `committedAt` (epoch ms) is the commit time of the earliest change
 * applied, from its change-log row (`at`, on the database's clock): what contract §8b's "within 1 s of its
 * commit" is measured from. Absent when the catalogue changed without a change-log row of its own: a full
 * reload (start, reconnect) or a scheduled pricing rule taking effect.
 */
export interface CatalogueChange {
  committedAt?: number;
}

/** Calls every listener, isolating their failures from each other and from the caller. */
export class ChangeListeners {
  readonly #listeners = new Set<(change: CatalogueChange) => void>();
  constructor(private readonly onError: (err: unknown) => void) {}

  add(listener: (change: CatalogueChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(change: CatalogueChange = {}): void {
    for (const l of this.#listeners) {
      try {
        l(change);
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
