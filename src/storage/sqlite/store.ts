/**
 * The SQLite {@link Store}: the monitored better-sqlite3 connection of
 * src/storage/sqlite/database.ts, with the catalogue caught up synchronously on demand.
 *
 * Freshness: `check()`/`version()` compare the connection's version token
 * (`PRAGMA data_version` once per event-loop turn + `total_changes()`, see
 * data-version.ts); when it moved, the new change-log rows are read and the
 * entities they name reloaded, {@link CATCH_UP_SLICE} change-log rows a slice
 * and slices for at most {@link CATCH_UP_TURN_MS} per event-loop turn (a large
 * change continues one turn per event-loop iteration, after the requests that
 * arrived meanwhile). So a commit by any process
 * (admin CLI, another cluster worker, an operator's SQL: the triggers log
 * them all) is served from the next event-loop turn on, and a request never
 * queries the database when nothing changed. A checkpoint of another
 * process's writes is a routine write (database.ts: continuity); only a file
 * replaced, restored or repaired, or a replica behind the pruned change log,
 * reloads everything, into a catalogue built beside the live one (while serving: a page per event-loop
 * turn, on a second connection holding the snapshot, so requests keep being answered meanwhile). Such a
 * file is first validated in a worker thread (database.ts); until it is swapped in, the catalogue is served
 * as it is and nothing reads the database (`validating`: not an outage).
 *
 * Bounded history: a server prunes change-log rows older than the retention
 * every {@link PRUNE_INTERVAL_MS} (at most {@link PRUNE_BATCH} rows a time; many
 * processes pruning together delete the same rows, harmlessly).
 *
 * Outage: while the file cannot be used (missing, read-only, locked, damaged) the last catalogue is served
 * for at most `maxStalenessMs` from the last successful check (src/storage/model/freshness.ts), then 503.
 */
import type { Logger } from 'pino';
import { ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import { endWithError } from '../../shared/tracing.js';
import { SqliteAdminRepository } from './admin.js';
import { loadAllInTurns, SqliteCatalogReader, sameChangeAt } from './catalog-reader.js';
import { openDatabase, type Connection, type DatabaseHandle, type OpenDatabaseOptions } from './database.js';
import { pendingSqliteMigrations } from './migrations.js';
import { isSqliteUnavailable } from './errors.js';
import { createDataVersion, type SqliteDataVersion } from './data-version.js';
import { CatalogueFreshness } from '../model/freshness.js';
import { behindHorizon, committedAtOf, type ChangeRow } from '../model/catalogue-rows.js';
import { ChangeListeners, type CatalogueChange, type CatalogueLoad, type CatalogueSink, type DatabaseStatus, type Store } from '../model/store.js';
import { afterRequests, CATCH_UP_SLICE, CATCH_UP_TURN_MS, PRUNE_BATCH, PRUNE_INTERVAL_MS, pruneBefore, type HistoryOptions } from '../model/history.js';

/** While waiting for `npm run migrate` (MIGRATE_ON_START=false): how often to look, and one log line per 10 s. */
const SCHEMA_LOOK_MS = 500;
const SCHEMA_WAIT_LOG_MS = 10_000;

const tokenOf = (v: SqliteDataVersion) => ({ token: v.current, refreshToken: v.invalidate });

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class SqliteStore<C extends CatalogueSink> implements Store<C> {
  readonly engine = 'sqlite' as const;
  readonly admin: SqliteAdminRepository;
  readonly #listeners: ChangeListeners;
  readonly #source: { reader: SqliteCatalogReader; token: SqliteDataVersion['current']; refreshToken: SqliteDataVersion['invalidate'] };
  #loadedReplacements = -1;
  #loadedToken = '';
  /** The change-log row applied last: on a fresh connection, its presence proves the file is the database loaded. */
  #mark: (ChangeRow) | undefined;
  /** More change-log rows are known to be waiting. */
  #behind = false;
  /** The next turn of a large catch-up is scheduled ({@link afterRequests}); until it runs, nothing else catches up. */
  #continuation = false;
  #closed = false;
  /** A reload being built beside the live catalogue (resolves false when it failed), or null. */
  #reloading: Promise<boolean> | null = null;
  #prune: NodeJS.Timeout | null = null;
  readonly #history: Required<HistoryOptions>;
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
    history: HistoryOptions = {},
  ) {
    this.#history = { retentionSeconds: history.retentionSeconds ?? maxStalenessMs / 1000 + 3600, catchUpSlice: history.catchUpSlice ?? CATCH_UP_SLICE, catchUpTurnMs: history.catchUpTurnMs ?? CATCH_UP_TURN_MS, pruneIntervalMs: history.pruneIntervalMs ?? PRUNE_INTERVAL_MS };
    this.#freshness = new CatalogueFreshness({ maxStalenessMs, logger, location: sqlite.file });
    this.#listeners = new ChangeListeners((err) => logger?.error({ err }, 'catalogue change listener failed'));
    // A scheduled rule taking effect is a change too (contract §7): same listeners, no write needed.
    this.catalog.onTransition(() => this.#listeners.emit());
    // Rebuilt (new prepared statements) after the monitor opens a new connection; `replacements` tells the catalogue to reload.
    this.#source = sqlite.live((db) => ({
      reader: new SqliteCatalogReader(db),
      ...tokenOf(createDataVersion((db as unknown as { $client: Parameters<typeof createDataVersion>[0] }).$client)),
    }));
    // A checkpoint (or any in-place write) leaves the row applied last where it was: no reload.
    sqlite.setContinuity((conn) => this.#mark !== undefined && sameChangeAt(conn, this.#mark));
    this.admin = sqlite.live((db) => new SqliteAdminRepository(db, sqlite.sqlite));
    // A replaced file validated and swapped in (off the event loop): start its reload now, not at the next request.
    sqlite.onReplaced(() => {
      if (!this.#closed) this.version();
    });
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
    this.#prune = setInterval(() => this.#pruneNow(Date.now()), this.#history.pruneIntervalMs);
    this.#prune.unref();
  }

  /**
   * Delete change-log rows older than the retention (at most {@link PRUNE_BATCH}); returns how many. A failure
   * (the file locked, read-only) is logged and tried again at the next interval: nothing depends on it soon.
   */
  pruneHistory(now = Date.now()): Promise<number> {
    return Promise.resolve(this.#pruneNow(now));
  }

  #pruneNow(now: number): number {
    if (this.#schemaWait || !this.sqlite.check().ok) return 0;
    try {
      const pruned = this.#source.reader.prune(pruneBefore(now, this.#history.retentionSeconds), PRUNE_BATCH);
      if (pruned > 0) this.logger?.debug({ pruned, retentionSeconds: this.#history.retentionSeconds }, 'change log pruned');
      return pruned;
    } catch (err) {
      this.logger?.warn({ err }, 'change log could not be pruned; trying again later');
      return 0;
    }
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
    if (!status.ok) return this.#unusable(status);
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
    return status.ok ? this.#freshness.status() : this.#unusable(status);
  }

  catalogueAgeSeconds(): number {
    return this.#freshness.ageSeconds();
  }

  /**
   * The connection cannot be used. While a replaced file is validated (database.ts, in a worker) the catalogue
   * is served as it is, as during the reload that follows: not an outage, unless one was already under way
   * (a file put back after it went missing stays an outage until it is validated). Anything else is an outage.
   */
  #unusable(status: DatabaseStatus): DatabaseStatus {
    return this.sqlite.validating && !this.#freshness.inOutage ? this.#freshness.status() : this.#outage(status);
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

  async sync(): Promise<void> {
    // Re-reading data_version now and catching up sees every commit made before this call, by any process;
    // a large catch-up continues a slice per turn until nothing is left.
    this.#source.refreshToken();
    this.version();
    for (;;) {
      // A replaced file being validated: once it is swapped in, its reload starts (onReplaced); a file that
      // changed meanwhile is validated again (the check below starts it); a file refused leaves the handle down.
      const validation = this.sqlite.validation();
      if (validation !== null) {
        await validation;
        this.version();
        continue;
      }
      if (!((this.#reloading || this.#behind) && this.sqlite.check().ok)) return;
      if (this.#reloading) {
        if (!(await this.#reloading)) return;
      } else await nextTurn();
      this.version();
    }
  }

  close(): Promise<void> {
    this.#closed = true;
    if (this.#watch) clearInterval(this.#watch);
    this.#watch = null;
    if (this.#prune) clearInterval(this.#prune);
    this.#prune = null;
    if (this.#schemaWait) clearInterval(this.#schemaWait.timer);
    this.#schemaWait = null;
    this.catalog.close();
    this.sqlite.close();
    return Promise.resolve();
  }

  #catchUp(): void {
    const source = this.#source;
    // While a reload is built, catching up waits: the reload brings everything up to its snapshot, the rest follows.
    if (this.#reloading) return;
    if (this.sqlite.replacements !== this.#loadedReplacements) return this.#fullLoad();
    const token = this.#tokenNow();
    if (token === this.#loadedToken && !this.#behind) return;
    // A large change continues in turns of its own (below); requests meanwhile serve what is applied so far.
    if (this.#continuation) return;
    const started = performance.now();
    let applied = 0;
    // The earliest commit among the slices applied this turn: what the change's listeners time from.
    let committedAt: number | undefined;
    try {
      for (;;) {
        const lastSeq = this.catalog.lastSeq;
        const changes = source.reader.changesSince(lastSeq, this.#history.catchUpSlice);
        if (changes.length > 0 && behindHorizon(lastSeq, changes[0]!.seq, () => source.reader.position())) {
          this.logger?.warn({ appliedSeq: lastSeq, firstKeptSeq: source.reader.position().firstSeq }, 'catalogue is behind the pruned change log; reloading everything');
          applied = 0; // the full load tells the listeners itself
          return this.#fullLoad();
        }
        if (changes.length > 0) {
          // Synchronous (better-sqlite3): the span covers the rows' read and their application to the catalogue.
          const span = this.tracer?.startSpan('catalogue.catch_up', { attributes: { 'db.system.name': 'sqlite', 'gateway.catalogue.changes': changes.length } }, ROOT_CONTEXT);
          const last = changes[changes.length - 1]!;
          this.catalog.apply(source.reader.loadChanged(changes), last.seq);
          this.#mark = last;
          applied += changes.length;
          const at = committedAtOf(changes);
          if (at !== undefined && (committedAt === undefined || at < committedAt)) committedAt = at;
          span?.end();
        }
        if (changes.length < this.#history.catchUpSlice) {
          this.#behind = false;
          this.#loadedToken = token;
          return;
        }
        if (performance.now() - started >= this.#history.catchUpTurnMs) break;
      }
    } finally {
      if (applied > 0) this.#listeners.emit({ committedAt });
    }
    this.#behind = true;
    // The rest after the requests that arrive meanwhile: one turn of catch-up per event-loop iteration.
    this.#continuation = true;
    void afterRequests().then(() => {
      this.#continuation = false;
      if (!this.#closed) this.version();
    });
  }

  /**
   * Everything, into a catalogue built beside the live one and swapped in. The first load (nothing is served
   * yet) reads at once; a reload while serving reads a page per event-loop turn ({@link #reload}).
   */
  #fullLoad(): void {
    if (this.#loadedReplacements >= 0) return this.#startReload();
    this.#loadAtOnce();
  }

  /**
   * The version token of the data as of now. A token belongs to one connection (a fresh one starts its
   * data_version anew): the connection's generation is part of it. Taken BEFORE the rows it stands for are
   * read: a commit by another process between the read and the token would otherwise be counted as applied,
   * and nothing would catch it up until some later commit moved the token again.
   */
  #tokenNow(): string {
    return `${this.sqlite.generation}/${this.#source.token()}`;
  }

  /** Everything in one read transaction on the server's own connection (the first load; `:memory:`). */
  #loadAtOnce(): void {
    const replacements = this.sqlite.replacements;
    const token = this.#tokenNow();
    const load = this.catalog.beginLoad();
    const { lastSeq } = this.#source.reader.loadAll(load);
    this.#loaded(load, lastSeq, replacements, token);
  }

  /** `load` swapped in; `token`: a version token taken before its snapshot ('' when unknown: the next check catches up). */
  #loaded(load: CatalogueLoad, lastSeq: number, replacements: number, token: string): void {
    load.commit(lastSeq);
    this.#mark = this.#source.reader.changeAt(lastSeq);
    this.#loadedReplacements = replacements;
    this.#loadedToken = token;
    this.#behind = false;
    this.#listeners.emit();
  }

  #startReload(): void {
    const reader = this.sqlite.openReader();
    // `:memory:` has no second connection (and is never replaced): read at once.
    if (reader === null) return this.#loadAtOnce();
    this.#reloading = this.#reload(reader).finally(() => {
      reader.sqlite.close();
      this.#reloading = null;
    });
  }

  /**
   * A reload while serving (a replaced or restored file, a replica behind the pruned change log): pages of
   * LOAD_PAGE rows, one per event-loop turn, from a connection of its own holding one snapshot, into a
   * catalogue beside the live one, which requests keep reading until the swap. Changes committed after the
   * snapshot are caught up afterwards, from the position the snapshot had. Resolves false when it failed
   * (logged; the next check tries again).
   */
  async #reload(reader: Connection): Promise<boolean> {
    const replacements = this.sqlite.replacements;
    const span = this.tracer?.startSpan('catalogue.reload', { attributes: { 'db.system.name': 'sqlite' } }, ROOT_CONTEXT);
    try {
      const load = this.catalog.beginLoad();
      const { lastSeq } = await loadAllInTurns(reader, load, afterRequests);
      for (const steps = load.settle(); !steps.next().done; ) await afterRequests();
      if (this.#closed) {
        span?.end();
        return false;
      }
      // Another connection's snapshot has no token of this one: whatever was committed after the snapshot is
      // caught up from the next check on, from the position the snapshot had.
      this.#loaded(load, lastSeq, replacements, '');
      span?.end();
      return true;
    } catch (err) {
      this.logger?.error({ err }, 'catalogue reload failed; serving the previous catalogue, trying again at the next check');
      if (span) endWithError(span, err);
      return false;
    }
  }
}

/** Open (creating and migrating if needed) the SQLite database at `file`, feeding `catalog`. */
export function openSqliteStore<C extends CatalogueSink>(
  file: string,
  catalog: C,
  options: OpenDatabaseOptions & { logger?: Logger; maxStalenessMs?: number; tracer?: Tracer; history?: HistoryOptions } = {},
): SqliteStore<C> {
  return new SqliteStore(openDatabase(file, options), catalog, options.logger, options.maxStalenessMs, options.tracer, options.history);
}
