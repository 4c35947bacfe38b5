/**
 * The storage engine behind the service, as the rest of the code sees it
 * (contract §6): an in-memory {@link Catalog} kept current with the database,
 * a health verdict, and the operator repository. SQLite (src/storage/sqlite/store.ts)
 * is the zero-set-up default; Postgres (src/storage/postgres/store.ts) is selected by
 * DATABASE_URL. Nothing outside src/db and src/repositories knows which.
 */
import type { AdminRepository } from './sqlite/admin.js';
import type { Catalog } from '../modules/catalogue/catalog.js';
import type { DatabaseHandle, DatabaseStatus } from './sqlite/database.js';

export type { DatabaseStatus } from './sqlite/database.js';

/** An open database with its catalogue. */
export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  /** Where the data lives, for logs (a file path, or the URL without its password). */
  readonly location: string;
  /** What requests read. Current as of the last {@link check} (SQLite) or the last notification/poll (Postgres). */
  readonly catalog: Catalog;
  /**
   * Cheap, synchronous, per request: is the database usable, and (SQLite)
   * catch the catalogue up with commits made elsewhere. Never throws.
   */
  check(): DatabaseStatus;
  /** A live probe for /ready and after a 503 (SQLite queries; Postgres answers its monitor's latest verdict). */
  probe(): DatabaseStatus;
  /** The catalogue's version token after catching up; equal tokens mean nothing changed in between. */
  version(): string;
  /** Operator reads and writes. */
  readonly admin: AdminRepository;
  /** Called after every change applied to the catalogue (any writer, any process). Returns an unsubscribe. */
  onChange(listener: () => void): () => void;
  /** Run one SQL statement (tests and tools only; the application never builds SQL outside repositories). */
  execute(statement: string): Promise<void>;
  /** The SQLite handle when the engine is SQLite (fault tests, file tools), else undefined. */
  readonly sqlite?: DatabaseHandle;
  close(): Promise<void>;
}

/** Calls every listener, isolating their failures from each other and from the caller. */
export class ChangeListeners {
  readonly #listeners = new Set<() => void>();
  constructor(private readonly onError: (err: unknown) => void) {}

  add(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(): void {
    for (const l of this.#listeners) {
      try {
        l();
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
