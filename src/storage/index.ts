/**
 * The storage door: the only code that decides which engine runs. Everything above storage opens the
 * database through {@link openStore} and sees the engine-neutral {@link Store}, {@link AdminRepository} and
 * record types; nothing outside src/storage imports src/storage/sqlite or src/storage/postgres
 * (.dependency-cruiser.cjs enforces it).
 */
import type { Tracer } from '@opentelemetry/api';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AdminRepository } from './model/admin-repository.js';
import { NoDatabaseError, StorageOpenError } from './errors.js';
import { describePostgresError } from './postgres/errors.js';
import { describePgTarget, openPgStore, redactUrl } from './postgres/store.js';
import { openSqliteStore } from './sqlite/store.js';
import type { CatalogueSink, Store } from './model/store.js';
import type { HistoryOptions } from './model/history.js';

export type { AdminRepository } from './model/admin-repository.js';
export type { CatalogueChange, CatalogueSink, DatabaseStatus, Store } from './model/store.js';
export { describeStorageFailure, isStorageUnavailable, NoDatabaseError, StorageOpenError } from './errors.js';
/**
 * The monitored SQLite connection alone, without a store or catalogue: how a replica's connection follows
 * its file (replaced, restored, validated off the event loop), for the tests that watch it from outside.
 */
export { openDatabase as openMonitoredSqlite, type DatabaseHandle as MonitoredSqlite } from './sqlite/database.js';

/**
 * Where the data is, for an operator: the SQLite file, or `host:port/database` on Postgres (never a password).
 */
export function describeDatabase(options: { dataDir: string; databaseUrl?: string | null }): string {
  return options.databaseUrl ? `Postgres ${describePgTarget(options.databaseUrl)}` : `SQLite ${path.join(options.dataDir, DATABASE_FILE)}`;
}

/** The SQLite database file inside DATA_DIR. */
export const DATABASE_FILE = 'gateway.db';

/** SQLite servers look at the file between requests this often (Postgres polls at the same pace). */
const SQLITE_WATCH_INTERVAL_MS = 500;

/** Options of {@link openStore}. */
export interface OpenStoreOptions<C extends CatalogueSink, T> {
  /** DATA_DIR: the SQLite database lives here when `databaseUrl` is not set. */
  dataDir: string;
  /** `postgres://…`: Postgres; null/absent: SQLite in `dataDir`. */
  databaseUrl?: string | null;
  /** What the store keeps current (the service's in-memory catalogue). */
  catalogue: C;
  logger?: Logger;
  /** Keep the catalogue current (servers; default). False for one-shot tools such as the admin CLI. */
  watch?: boolean;
  /**
   * Work to do on the migrated database before it serves (prove the master key, seed demo data). On Postgres
   * it runs under the boot lock, so of several replicas starting together exactly one does it. Its errors
   * are passed through unchanged.
   */
  prepare?: (admin: AdminRepository) => Promise<T>;
  /**
   * How long a server keeps serving its last catalogue while the database cannot be reached
   * (MAX_STALENESS_SECONDS). Default 0: refuse at once (the service passes its configuration, default 300).
   */
  maxStalenessSeconds?: number;
  /** Contract §15: change-log rows older than this are pruned by servers (default MAX_STALENESS_SECONDS + 1 h). */
  changeLogRetentionSeconds?: number;
  /** Change-log rows per catch-up slice and the pruning interval (tests); defaults in src/storage/model/history.ts. */
  history?: Omit<HistoryOptions, 'retentionSeconds'>;
  /**
   * MIGRATE_ON_START (default true). False: never write DDL; `prepare` must then only read. A Postgres server on
   * an older schema (either engine) stays not ready until `npm run migrate` has run (and `prepared` is undefined).
   */
  migrateOnStart?: boolean;
  /** Contract §13: catch-up spans and database CLIENT spans (Postgres); absent = tracing off. */
  tracer?: Tracer;
  /**
   * Refuse with {@link NoDatabaseError}, creating nothing, when there is no database yet (no SQLite file in
   * DATA_DIR; a Postgres database without this project's schema). For tools that must act on existing data.
   */
  mustExist?: boolean;
}

/** Why `prepare` failed, carried through the engine's own error handling unchanged. */
class PrepareFailure extends Error {
  constructor(readonly error: unknown) {
    super('prepare failed', { cause: error });
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Open the database (Postgres when `databaseUrl` is set, else SQLite in DATA_DIR), migrate it, run
 * `prepare`, and (servers) load the catalogue. Throws {@link StorageOpenError} naming the engine and the
 * location when the database cannot be opened, migrated or read; whatever `prepare` throws, as it is.
 */
export async function openStore<C extends CatalogueSink, T>(options: OpenStoreOptions<C, T>): Promise<{ store: Store<C>; prepared: T | undefined }> {
  const prepare = options.prepare
    ? (admin: AdminRepository) => options.prepare!(admin).catch((err: unknown) => Promise.reject(new PrepareFailure(err)))
    : undefined;
  if (options.databaseUrl) {
    try {
      return await openPgStore(options.databaseUrl, options.catalogue, {
        logger: options.logger,
        watch: options.watch,
        prepare,
        maxStalenessMs: (options.maxStalenessSeconds ?? 0) * 1000,
        migrate: options.migrateOnStart ?? true,
        tracer: options.tracer,
        mustExist: options.mustExist,
        history: { ...options.history, retentionSeconds: options.changeLogRetentionSeconds },
      });
    } catch (err) {
      if (err instanceof PrepareFailure) throw err.error;
      if (err instanceof NoDatabaseError) throw err;
      throw new StorageOpenError(`cannot open or migrate the Postgres database ${redactUrl(options.databaseUrl)}: ${describePostgresError(err)}`, { cause: err });
    }
  }

  const file = path.join(options.dataDir, DATABASE_FILE);
  // better-sqlite3 creates a missing file: look first.
  if (options.mustExist && !fs.existsSync(file)) throw new NoDatabaseError(`there is no database in ${options.dataDir} (no ${DATABASE_FILE})`);
  let store;
  try {
    store = openSqliteStore(path.join(options.dataDir, DATABASE_FILE), options.catalogue, {
      logger: options.logger,
      maxStalenessMs: (options.maxStalenessSeconds ?? 0) * 1000,
      migrate: options.migrateOnStart ?? true,
      tracer: options.tracer,
      history: { ...options.history, retentionSeconds: options.changeLogRetentionSeconds },
    });
  } catch (err) {
    throw new StorageOpenError(`cannot open or migrate the database in ${options.dataDir}: ${describe(err)}`, { cause: err });
  }
  try {
    if (options.migrateOnStart === false) {
      const pending = store.pendingMigrations();
      if (pending > 0 && options.watch === false) {
        throw new StorageOpenError(`the database schema in ${store.location} is not at this version (${pending} migration(s) pending) and MIGRATE_ON_START=false: run \`npm run migrate\` first`);
      }
      if (pending > 0) {
        // A server waits, not ready, for `npm run migrate`; the read-only checks run once the schema is there.
        store.deferUntilSchema(async (admin) => prepare?.(admin));
        store.watch(SQLITE_WATCH_INTERVAL_MS);
        return { store, prepared: undefined };
      }
    }
    const prepared = prepare ? await prepare(store.admin) : undefined;
    // Servers load the catalogue now, so a database they cannot read stops the start instead of the first request.
    if (options.watch !== false) {
      const status = store.check();
      if (!status.ok) throw new StorageOpenError(`cannot load the catalogue from ${store.location}: ${status.reason}`);
      store.watch(SQLITE_WATCH_INTERVAL_MS);
    }
    return { store, prepared };
  } catch (err) {
    await store.close();
    throw err instanceof PrepareFailure ? err.error : err;
  }
}
