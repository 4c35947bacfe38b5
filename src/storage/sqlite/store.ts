/**
 * The SQLite {@link Store}: the monitored better-sqlite3 connection of
 * src/storage/sqlite/database.ts, with the catalogue caught up synchronously on demand.
 *
 * Freshness: `check()`/`version()` compare the connection's version token
 * (`PRAGMA data_version` once per event-loop turn + `total_changes()`, see
 * data-version.ts); when it moved, the new change-log rows are read and the
 * entities they name reloaded. So a commit by any process (admin CLI,
 * another cluster worker, an operator's SQL: the triggers log them all) is
 * served from the next event-loop turn on, and a request never queries the
 * database when nothing changed. After a reconnect (the file was replaced or
 * repaired) everything is reloaded.
 *
 * Outage: while the file cannot be used (missing, read-only, locked, damaged) the last catalogue is served
 * for at most `maxStalenessMs` from the last successful check (src/storage/model/freshness.ts), then 503.
 */
import type { Logger } from 'pino';
import { ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import { SqliteAdminRepository } from './admin.js';
import { SqliteCatalogReader } from './catalog-reader.js';
import { openDatabase, type DatabaseHandle, type OpenDatabaseOptions } from './database.js';
import { pendingSqliteMigrations } from './migrations.js';
import { isSqliteUnavailable } from './errors.js';
import { createDataVersion, type SqliteDataVersion } from './data-version.js';
import { CatalogueFreshness } from '../model/freshness.js';
import { ChangeListeners, type CatalogueChange, type CatalogueSink, type DatabaseStatus, type Store } from '../model/store.js';
import { committedAtOf } from '../model/catalogue-rows.js';

/** While waiting for `npm run migrate` (MIGRATE_ON_START=false): how often to look, and one log line per 10 s. */
const SCHEMA_LOOK_MS = 500;
const SCHEMA_WAIT_LOG_MS = 10_000;

const tokenOf = (v: SqliteDataVersion) => ({ token: v.current, refreshToken: v.invalidate });

export class SqliteStore<C extends CatalogueSink> implements Store<C> {
  readonly engine = 'sqlite' as const;
  readonly admin: SqliteAdminRepository;
  readonly #listeners: ChangeListeners;
  readonly #source: { reader: SqliteCatalogReader; token: SqliteDataVersion['current']; refreshToken: SqliteDataVersion['invalidate']; generation: number };
  #loadedGeneration = -1;
  #loadedToken = '';
  readonly #freshness: CatalogueFreshness;
  /** Set while waiting for the schema (MIGRATE_ON_START=false); requests are refused until it is cleared. */
  #schemaWait: { timer: NodeJS.Timeout; reason: string } | null = null;
  #watch: NodeJS.Timeout | null = null;

  constructor(
    private readonly sqlite: DatabaseHandle,
    readonly catalog: C,
    private readonly logger?: Logger,
    maxStalenessMs = 0,
    /** Contract §13: a catch-up that read rows is a span; absent = tracing off. */
    private readonly tracer?: Tracer,
  ) {
    this.#freshness = new CatalogueFreshness({ maxStalenessMs, logger, location: sqlite.file });
    this.#listeners = new ChangeListeners((err) => logger?.error({ err }, 'catalogue change listener failed'));
    // A scheduled rule taking effect is a change too (contract §7): same listeners, no write needed.
    this.catalog.onTransition(() => this.#listeners.emit());
    // Rebuilt (new prepared statements) after the monitor reconnects; `generation` tells the catalogue to reload.
    this.#source = sqlite.live((db) => ({
      reader: new SqliteCatalogReader(db),
      ...tokenOf(createDataVersion((db as unknown as { $client: Parameters<typeof createDataVersion>[0] }).$client)),
      generation: sqlite.generation,
    }));
    this.admin = sqlite.live((db) => new SqliteAdminRepository(db, sqlite.sqlite));
    // The catalogue loads on first use (check()/version()): one-shot tools such as the admin CLI never need it.
  }

  get location(): string {
    return this.sqlite.file;
  }

  /**
   * Servers: check the file every `intervalMs` between requests too, so an idle server's catalogue stays
   * known current (the age gauge means the same as on Postgres) and an outage is noticed and logged when it
   * starts, not at the next request.
   */
  watch(intervalMs: number): void {
    if (this.#watch) return;
    this.#watch = setInterval(() => {
      if (!this.#schemaWait) this.check();
    }, intervalMs);
    this.#watch.unref();
  }

  /** Schema versions this database lacks (drizzle's bookkeeping against the committed journal); 0 = at version. */
  pendingMigrations(): number {
    return pendingSqliteMigrations(this.sqlite.sqlite);
  }

  /**
   * MIGRATE_ON_START=false on an older schema: refuse (not ready) and look every 500 ms, logging once per 10 s,
   * until `npm run migrate` has run; then run `checks` (read-only) and serve.
   */
  deferUntilSchema(checks: (admin: SqliteAdminRepository) => Promise<unknown>): void {
    let loggedAt = Number.NEGATIVE_INFINITY;
    let checking = false;
    const look = () => {
      if (checking || !this.#schemaWait) return;
      let pending: number;
      try {
        pending = this.pendingMigrations();
      } catch (err) {
        this.logger?.warn({ err }, 'cannot read the database schema version; looking again');
        return;
      }
      if (pending > 0) {
        this.#schemaWait.reason = `the database schema is not at this version (${pending} migration(s) pending) and MIGRATE_ON_START=false: not ready until \`npm run migrate\` has run`;
        if (Date.now() - loggedAt >= SCHEMA_WAIT_LOG_MS) {
          loggedAt = Date.now();
          this.logger?.warn({ database: this.location, pendingMigrations: pending }, this.#schemaWait.reason);
        }
        return;
      }
      checking = true;
      checks(this.admin).then(
        () => {
          if (!this.#schemaWait) return;
          clearInterval(this.#schemaWait.timer);
          this.#schemaWait = null;
          this.logger?.info({ database: this.location }, 'database schema is at this version; loading the catalogue');
        },
        (err: unknown) => {
          checking = false;
          this.logger?.error({ err }, 'the database schema is there but the start-up checks failed; looking again');
        },
      );
    };
    const timer = setInterval(look, SCHEMA_LOOK_MS);
    timer.unref();
    this.#schemaWait = { timer, reason: 'the database schema is not at this version and MIGRATE_ON_START=false: not ready until `npm run migrate` has run' };
    look();
  }

  check(): DatabaseStatus {
    if (this.#schemaWait) return { ok: false, reason: this.#schemaWait.reason };
    const at = Date.now();
    const status = this.sqlite.check();
    if (!status.ok) return this.#outage(status);
    try {
      this.#catchUp();
      this.#freshness.current(at);
      return status;
    } catch (err) {
      if (!isSqliteUnavailable(err)) this.logger?.error({ err }, 'catalogue catch-up failed');
      const probed = this.sqlite.probe();
      return this.#outage(probed.ok ? { ok: false, reason: `catalogue catch-up failed: ${(err as Error).message}` } : probed);
    }
  }

  probe(): DatabaseStatus {
    if (this.#schemaWait) return { ok: false, reason: this.#schemaWait.reason };
    const status = this.sqlite.probe();
    return status.ok ? this.#freshness.status() : this.#outage(status);
  }

  catalogueAgeSeconds(): number {
    return this.#freshness.ageSeconds();
  }

  /** The file cannot be used: serve the last catalogue within the staleness bound, refuse past it. */
  #outage(failure: DatabaseStatus): DatabaseStatus {
    this.#freshness.failed(failure.reason ?? 'database unavailable');
    return this.#freshness.status();
  }

  version(): string {
    if (this.#schemaWait) return this.catalog.version;
    // A failure here leaves the catalogue as it was; the health check (check()) reports it to the request.
    if (this.sqlite.check().ok) {
      try {
        this.#catchUp();
      } catch (err) {
        this.logger?.warn({ err }, 'catalogue catch-up failed; serving the previous state until the database answers');
      }
    }
    return this.catalog.version;
  }

  onChange(listener: (change: CatalogueChange) => void): () => void {
    return this.#listeners.add(listener);
  }

  sync(): Promise<void> {
    // Synchronous engine: re-reading data_version now and catching up sees every commit made before this call, by any process.
    this.#source.refreshToken();
    this.version();
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.#watch) clearInterval(this.#watch);
    this.#watch = null;
    if (this.#schemaWait) clearInterval(this.#schemaWait.timer);
    this.#schemaWait = null;
    this.catalog.close();
    this.sqlite.close();
    return Promise.resolve();
  }

  #catchUp(): void {
    const source = this.#source;
    if (source.generation !== this.#loadedGeneration) {
      const { rows, lastSeq } = source.reader.loadAll();
      this.catalog.replaceAll(rows, lastSeq);
      this.#loadedGeneration = source.generation;
      this.#loadedToken = source.token();
      this.#listeners.emit();
      return;
    }
    const token = source.token();
    if (token === this.#loadedToken) return;
    const changes = source.reader.changesSince(this.catalog.lastSeq);
    if (changes.length > 0) {
      // Synchronous (better-sqlite3): the span covers the rows' read and their application to the catalogue.
      const span = this.tracer?.startSpan('catalogue.catch_up', { attributes: { 'db.system.name': 'sqlite', 'gateway.catalogue.changes': changes.length } }, ROOT_CONTEXT);
      this.catalog.apply(source.reader.loadChanged(changes), changes[changes.length - 1]!.seq);
      span?.end();
      this.#listeners.emit({ committedAt: committedAtOf(changes) });
    }
    this.#loadedToken = token;
  }
}

/** Open (creating and migrating if needed) the SQLite database at `file`, feeding `catalog`. */
export function openSqliteStore<C extends CatalogueSink>(file: string, catalog: C, options: OpenDatabaseOptions & { logger?: Logger; maxStalenessMs?: number; tracer?: Tracer } = {}): SqliteStore<C> {
  return new SqliteStore(openDatabase(file, options), catalog, options.logger, options.maxStalenessMs, options.tracer);
}
