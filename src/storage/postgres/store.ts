/**
 * The Postgres {@link Store} (contract §6): durable state in Postgres, the
 * catalogue in memory, requests never waiting on a round-trip.
 *
 * Propagation. The change-log triggers NOTIFY `gateway_changes` in the
 * committing transaction. A dedicated LISTEN connection wakes the catch-up,
 * which reads the change-log rows after the last applied one and reloads
 * the entities they name. A poll of `max(seq)` every `pollIntervalMs`
 * (default 500 ms) is the cheap catch-up for a lost notification (the
 * listening connection dropped, a replica restarted its listener) and the
 * health monitor at the same time. Because the triggers serialise change-log
 * writers until commit (advisory transaction lock), sequence order is commit
 * order and "everything after lastSeq" never skips a late commit.
 *
 * Failure. Pool connections time out after `connectTimeoutMs` and every
 * query after `statementTimeoutMs` (client side, plus `SET LOCAL` in the read
 * transactions: nothing is sent as a startup parameter or a session `SET`,
 * which a transaction pooler such as PgBouncer refuses or leaks), so nothing
 * hangs. A failed poll starts an outage (src/storage/model/freshness.ts): the
 * last catalogue keeps being served for at most `maxStalenessMs` counted from
 * the last successful poll, then requests answer 503 (the process stays up,
 * /health stays 200). The poll keeps trying; the first success catches up
 * on the changes made meanwhile before the outage ends (everything is reloaded only when the change log
 * shows another database, a restore, or rows pruned past this replica). The poll's deadline bounds the
 * database's answer, not the replica's own work: it is judged after the event loop has read what arrived,
 * and a catch-up in progress is never raced against it.
 *
 * Scale (contract §15). A full load is read page by page into a catalogue built beside the live one and
 * swapped in; a catch-up applies {@link CATCH_UP_SLICE} change-log rows at a time and yields to requests
 * between slices. Servers prune change-log rows older than the retention (every replica may: they delete
 * the same rows).
 *
 * Listening. Where LISTEN cannot work (a read-only standby refuses it; a
 * transaction pooler accepts it but never delivers a NOTIFY, which a
 * pg_notify round-trip right after LISTEN detects) the store says so once
 * and relies on the poll, without retrying.
 */
import { randomUUID } from 'node:crypto';
import { context, trace, type Tracer } from '@opentelemetry/api';
import pg from 'pg';
import type { Logger } from 'pino';
import { sql } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgAdminRepository, type PgDb } from './admin.js';
import { PgCatalogReader } from './catalog-reader.js';
import { describePostgresError, isPostgresUnavailable } from './errors.js';
import { applyMigrations, hasSchema, pendingMigrationCount } from './migrations.js';
import * as schema from './schema.js';
import { NoDatabaseError } from '../errors.js';
import { CatalogueFreshness } from '../model/freshness.js';
import { behindHorizon, committedAtOf, type ChangedEntities, type ChangeRow } from '../model/catalogue-rows.js';
import { afterRequests, APPLY_CHUNK, CATCH_UP_SLICE_POSTGRES, CATCH_UP_TURN_MS, PRUNE_BATCH, PRUNE_INTERVAL_MS, pruneBefore, type HistoryOptions } from '../model/history.js';
import { ChangeListeners, type CatalogueChange, type CatalogueSink, type DatabaseStatus, type Store } from '../model/store.js';
import { endWithError, startClientSpan } from '../../shared/tracing.js';

/** The NOTIFY channel the change-log triggers use. */
export const CHANGE_CHANNEL = 'gateway_changes';

/**
 * Transaction-level advisory lock held while migrating and seeding, so replicas starting together do it once.
 * Transaction-level (released by COMMIT/ROLLBACK, never by an unlock that could land on another server
 * connection behind a transaction pooler).
 */
const BOOT_LOCK_KEY = 7245190210;

/** How long the boot transaction may wait for another replica's migration and run its own. */
const BOOT_TIMEOUT_MS = 60_000;

/** How long the LISTEN round-trip probe waits for its own notification. */
const LISTEN_PROBE_MS = 2000;

/** While waiting for `npm run migrate` (MIGRATE_ON_START=false): one log line per this many ms. */
const SCHEMA_WAIT_LOG_MS = 10_000;

/** Options of {@link openPgStore}. */
export interface PgStoreOptions {
  logger?: Logger;
  /** Watch for changes and health (servers); false for one-shot tools such as the admin CLI. */
  watch?: boolean;
  pollIntervalMs?: number;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** Pool size per process. */
  maxConnections?: number;
  /** How long the last catalogue is served while the database cannot be reached (0: refuse at once). */
  maxStalenessMs?: number;
  /** Contract §13: a catch-up that read rows is a span, with a CLIENT span per query under it; absent = off. */
  tracer?: Tracer;
  /** Change-log retention and catch-up slices (contract §15). */
  history?: HistoryOptions;
}

/** The URL with its password hidden, for logs and messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

const describe = describePostgresError;

/** `host:port` of a URL, for log lines (the cause of a failure names where it went). */
function hostPortOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}`;
  } catch {
    return '(unparseable URL)';
  }
}

export class PgStore<C extends CatalogueSink> implements Store<C> {
  readonly engine = 'postgres' as const;
  readonly admin: PgAdminRepository;
  readonly db: NodePgDatabase<typeof schema>;
  readonly location: string;
  readonly #pool: pg.Pool;
  readonly #reader: PgCatalogReader;
  readonly #listeners: ChangeListeners;
  readonly #logger?: Logger;
  readonly #options: Required<Omit<PgStoreOptions, 'logger' | 'tracer' | 'history'>>;
  readonly #history: Required<HistoryOptions>;
  /** The change-log row applied last (its presence proves, after an outage, that the database is the one loaded). */
  #mark: (ChangeRow) | undefined;
  /** After an outage: check that the database is the one loaded before catching up. */
  #verify = false;
  #prune: NodeJS.Timeout | null = null;
  #pruneWarned = false;
  readonly #tracer: Tracer | undefined;
  readonly #freshness: CatalogueFreshness;
  readonly #hostPort: string;
  /**
   * MIGRATE_ON_START=false on an older schema: the read-only start-up checks to run once `npm run migrate` has
   * run; set while waiting (not ready), cleared once the catalogue is loaded.
   */
  #waitForSchema: ((admin: PgAdminRepository) => Promise<unknown>) | null = null;
  #schemaLoggedAt = Number.NEGATIVE_INFINITY;
  /** LISTEN cannot work here (standby, transaction pooler): said once, never retried. */
  #listenUnsupported = false;
  /** True once the catalogue may be stale (start, or an outage): the next successful poll reloads everything. */
  #needsFullLoad = true;
  #catchUp: Promise<void> | null = null;
  #catchUpAgain = false;
  #poll: NodeJS.Timeout | null = null;
  #polling = false;
  #listener: pg.Client | null = null;
  #listenerRetry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(
    private readonly url: string,
    readonly catalog: C,
    options: PgStoreOptions = {},
  ) {
    this.location = redactUrl(url);
    this.#logger = options.logger;
    this.#options = {
      watch: options.watch ?? true,
      pollIntervalMs: options.pollIntervalMs ?? 500,
      connectTimeoutMs: options.connectTimeoutMs ?? 2000,
      statementTimeoutMs: options.statementTimeoutMs ?? 5000,
      maxConnections: options.maxConnections ?? 10,
      maxStalenessMs: options.maxStalenessMs ?? 0,
    };
    this.#history = {
      retentionSeconds: options.history?.retentionSeconds ?? this.#options.maxStalenessMs / 1000 + 3600,
      catchUpSlice: options.history?.catchUpSlice ?? CATCH_UP_SLICE_POSTGRES,
      catchUpTurnMs: options.history?.catchUpTurnMs ?? CATCH_UP_TURN_MS,
      pruneIntervalMs: options.history?.pruneIntervalMs ?? PRUNE_INTERVAL_MS,
    };
    this.#hostPort = hostPortOf(url);
    this.#freshness = new CatalogueFreshness({ maxStalenessMs: this.#options.maxStalenessMs, logger: options.logger, location: this.location });
    this.#pool = new pg.Pool({
      connectionString: url,
      max: this.#options.maxConnections,
      connectionTimeoutMillis: this.#options.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      // No `statement_timeout` startup parameter: PgBouncer (default settings) refuses connections that send
      // it. The bound is client side (a server that stopped answering must not hold anything) and `SET LOCAL`
      // inside the read transactions (src/storage/postgres/catalog-reader.ts).
      query_timeout: this.#options.statementTimeoutMs + 1000,
      application_name: 'payment-gateway',
    });
    // An idle pooled connection that breaks (server restart) emits 'error'; the pool drops it. Unhandled, it would crash.
    // Debug only: an outage is reported once by the poll (src/storage/model/freshness.ts), not once per connection.
    this.#pool.on('error', (err) => this.#logger?.debug({ err: describe(err) }, 'postgres pool connection lost'));
    this.#tracer = options.tracer;
    if (options.tracer !== undefined) traceQueries(this.#pool, options.tracer, url);
    this.db = drizzle(this.#pool, { schema });
    this.#reader = new PgCatalogReader(this.db, this.#options.statementTimeoutMs);
    this.admin = new PgAdminRepository(this.db);
    this.#listeners = new ChangeListeners((err) => this.#logger?.error({ err }, 'catalogue change listener failed'));
    // A scheduled rule taking effect is a change too (contract §7): same listeners, no write needed.
    this.catalog.onTransition(() => this.#listeners.emit());
  }

  /**
   * Servers: load the catalogue, then listen and poll. One-shot tools (watch: false, the admin CLI) need no
   * catalogue and load none (it is the whole database in memory). Throws when the database cannot be read.
   */
  async start(): Promise<void> {
    if (!this.#options.watch) return;
    // Waiting for `npm run migrate` (MIGRATE_ON_START=false): not ready; the poll below looks again and loads once it has run.
    if (!this.#waitForSchema || !(await this.#schemaPending())) await this.#schemaReady();
    this.#poll = setInterval(() => void this.#pollOnce(), this.#options.pollIntervalMs);
    this.#poll.unref();
    this.#prune = setInterval(() => void this.pruneHistory(), this.#history.pruneIntervalMs);
    this.#prune.unref();
  }

  /**
   * Delete change-log rows older than the retention (at most {@link PRUNE_BATCH}); returns how many. A failure
   * (the database unreachable, a read-only standby) is logged once as a warning and tried again later.
   */
  async pruneHistory(now = Date.now()): Promise<number> {
    if (this.#closed || this.#waitForSchema) return 0;
    try {
      const pruned = await this.#reader.prune(pruneBefore(now, this.#history.retentionSeconds), PRUNE_BATCH);
      if (pruned > 0) this.#logger?.debug({ pruned, retentionSeconds: this.#history.retentionSeconds }, 'change log pruned');
      return pruned;
    } catch (err) {
      if (!this.#pruneWarned) this.#logger?.warn({ err: describe(err) }, 'change log could not be pruned (a read-only standby prunes nothing: the primary\'s replicas do); trying again later');
      this.#pruneWarned = true;
      return 0;
    }
  }

  check(): DatabaseStatus {
    return this.#freshness.status();
  }

  probe(): DatabaseStatus {
    return this.#freshness.status();
  }

  /** MIGRATE_ON_START=false on an older schema: start() will wait for the schema, then run `checks` and load. */
  deferUntilSchema(checks: (admin: PgAdminRepository) => Promise<unknown>): void {
    this.#waitForSchema = checks;
  }

  /** Seconds since the catalogue was last known current (the `gateway_catalogue_age_seconds` gauge). */
  catalogueAgeSeconds(): number {
    return this.#freshness.ageSeconds();
  }

  /** True (and logged at most once per 10 s) while the database's schema is older than this build's. */
  async #schemaPending(): Promise<boolean> {
    const pending = await pendingMigrationCount(this.db);
    if (pending === 0) return false;
    const now = Date.now();
    if (now - this.#schemaLoggedAt >= SCHEMA_WAIT_LOG_MS) {
      this.#schemaLoggedAt = now;
      this.#logger?.warn(
        { database: this.location, pendingMigrations: pending },
        `database schema is not at this version (${pending} migration(s) pending) and MIGRATE_ON_START=false: not ready until \`npm run migrate\` has run`,
      );
    }
    return true;
  }

  /**
   * The schema is at version: run the deferred checks (MIGRATE_ON_START=false), load, listen. Waiting ends only
   * when all of it succeeded; otherwise the next poll tries the whole again.
   */
  async #schemaReady(): Promise<void> {
    const checks = this.#waitForSchema;
    if (checks) await checks(this.admin);
    const at = Date.now();
    await this.#fullLoad();
    this.#freshness.current(at);
    if (checks) {
      this.#waitForSchema = null;
      this.#logger?.info({ database: this.location }, 'database schema is at this version; catalogue loaded');
    }
    this.#connectListener();
  }

  version(): string {
    return this.catalog.version;
  }

  onChange(listener: (change: CatalogueChange) => void): () => void {
    return this.#listeners.add(listener);
  }

  async sync(): Promise<void> {
    await this.#requestCatchUp();
  }

  /** Stop watching and close every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.catalog.close();
    if (this.#poll) clearInterval(this.#poll);
    if (this.#prune) clearInterval(this.#prune);
    if (this.#listenerRetry) clearTimeout(this.#listenerRetry);
    const listener = this.#listener;
    this.#listener = null;
    await listener?.end().catch(() => undefined);
    await this.#catchUp?.catch(() => undefined);
    await this.#pool.end();
  }

  /**
   * Run `fn` in one transaction holding the boot lock (migrations and seed happen once however many replicas
   * start together; the others wait here, then find the work done). A dedicated connection with a longer
   * client-side timeout: waiting for another replica's migration may take longer than one query may.
   * `SET LOCAL` and the transaction-level lock end with the transaction, so nothing is left on a pooled
   * server connection.
   */
  async withBootLock<T>(fn: (tx: PgDb) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: this.#options.connectTimeoutMs, query_timeout: BOOT_TIMEOUT_MS + 5000 });
    client.on('error', (err) => this.#logger?.warn({ err: describe(err) }, 'postgres boot connection lost'));
    await client.connect();
    try {
      return await drizzle(client, { schema }).transaction(async (tx) => {
        await tx.execute(sql.raw(`set local statement_timeout = ${BOOT_TIMEOUT_MS}`));
        await tx.execute(sql`select pg_advisory_xact_lock(${BOOT_LOCK_KEY})`);
        return fn(tx);
      });
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Everything, page by page, into a catalogue built beside the live one and swapped in. */
  async #fullLoad(): Promise<void> {
    const load = this.catalog.beginLoad();
    const { lastSeq } = await this.#traced('catalogue.load', undefined, () => this.#reader.loadAll(load));
    this.#mark = await this.#reader.changeAt(lastSeq);
    // The per-merchant work before the swap, a step per turn: requests keep being answered from the live catalogue.
    for (const steps = load.settle(); !steps.next().done; ) await afterRequests();
    load.commit(lastSeq);
    this.#needsFullLoad = false;
    this.#verify = false;
    this.#listeners.emit();
  }

  /**
   * Whether the database is still the one loaded (after an outage): the row applied last is unchanged, and
   * the log has not gone back (a restore). A row pruned meanwhile is no proof either way: the horizon check
   * of the catch-up decides then.
   */
  async #continues(): Promise<boolean> {
    const mark = this.#mark;
    if (mark === undefined) return this.catalog.lastSeq === 0;
    const [row, last] = await Promise.all([this.#reader.changeAt(mark.seq), this.#reader.maxSeq()]);
    if (last < mark.seq) return false;
    return row === undefined || (row.entity === mark.entity && row.entityId === mark.entityId && row.at === mark.at);
  }

  /**
   * `read` bounded by the poll's deadline. The deadline is judged only after the event loop has taken in
   * what arrived (a timer, then a turn for I/O): a replica whose own work delayed the timer is not taken
   * for a database that did not answer.
   */
  #withDeadline<T>(read: Promise<T>): Promise<T> {
    const ms = this.#options.connectTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) return;
            settled = true;
            reject(new Error(`no answer within ${ms} ms`));
          }),
        ms,
      );
      read.then(
        (value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }

  async #pollOnce(): Promise<void> {
    // A poll still waiting (a frozen server, a long catch-up) is not joined by another; its deadline reports a frozen server.
    if (this.#closed || this.#polling) return;
    this.#polling = true;
    try {
      // A server that stops answering (not refusing) would hold the query until its statement timeout;
      // the contract wants 503 within 5 s, so the poll gives up on its own, sooner.
      const at = Date.now();
      if (this.#waitForSchema) {
        if (!(await this.#withDeadline(this.#schemaPending()))) await this.#schemaReady();
        return;
      }
      const seq = await this.#withDeadline(this.#reader.maxSeq());
      // The catch-up's own statements are bounded by their timeouts; its length is the replica's work, never a verdict on the database.
      if (this.#needsFullLoad || this.#verify || seq > this.catalog.lastSeq) await this.#requestCatchUp();
      this.#freshness.current(at);
    } catch (err) {
      // After the outage, catch up on what changed meanwhile (the change log holds it), once the database is proven the same.
      this.#verify = true;
      this.#freshness.failed(`postgres at ${this.#hostPort}: ${describe(err)}`);
    } finally {
      this.#polling = false;
    }
  }

  /**
   * Contract §13: a catch-up that read rows as a root span (its queries' CLIENT spans under it). The poll that
   * found nothing new makes no span: its query runs outside any span, so it makes none either.
   */
  #traced<T>(name: string, changes: number | undefined, read: () => Promise<T>): Promise<T> {
    const tracer = this.#tracer;
    if (tracer === undefined) return read();
    const span = tracer.startSpan(name, { attributes: changes === undefined ? { 'db.system.name': 'postgresql' } : { 'db.system.name': 'postgresql', 'gateway.catalogue.changes': changes } }, context.active());
    return context.with(trace.setSpan(context.active(), span), read).then(
      (result) => {
        span.end();
        return result;
      },
      (err: unknown) => {
        endWithError(span, err);
        throw err;
      },
    );
  }

  /** One catch-up at a time; a request during one schedules exactly one more (it may have missed the newest rows). */
  #requestCatchUp(): Promise<void> {
    if (this.#catchUp) {
      this.#catchUpAgain = true;
      return this.#catchUp;
    }
    const run = async (): Promise<void> => {
      do {
        this.#catchUpAgain = false;
        if (this.#verify && !this.#needsFullLoad) {
          this.#verify = false;
          if (!(await this.#continues())) {
            this.#logger?.warn({ database: this.location, appliedSeq: this.catalog.lastSeq }, 'the database is not the one loaded (restored or replaced); reloading everything');
            this.#needsFullLoad = true;
          }
        }
        if (this.#needsFullLoad) {
          await this.#fullLoad();
          continue;
        }
        await this.#catchUpSlices();
      } while (this.#catchUpAgain && !this.#closed);
    };
    this.#catchUp = run().finally(() => {
      this.#catchUp = null;
    });
    return this.#catchUp;
  }

  /**
   * Apply every change after the catalogue's, a slice at a time. Each slice's reads yield the event loop; past
   * {@link CATCH_UP_TURN_MS} of work the loop also yields a turn, so requests are answered in between.
   */
  async #catchUpSlices(): Promise<void> {
    let turn = performance.now();
    for (;;) {
      const lastSeq = this.catalog.lastSeq;
      const changes = await this.#reader.changesSince(lastSeq, this.#history.catchUpSlice);
      if (changes.length === 0 || this.#closed) return;
      const position = changes[0]!.seq > lastSeq + 1 ? await this.#reader.position() : null;
      if (position !== null && behindHorizon(lastSeq, changes[0]!.seq, () => position)) {
        this.#logger?.warn({ database: this.location, appliedSeq: lastSeq }, 'catalogue is behind the pruned change log; reloading everything');
        return this.#fullLoad();
      }
      const rows = await this.#traced('catalogue.catch_up', changes.length, () => this.#reader.loadChanged(changes));
      const last = changes[changes.length - 1]!;
      // What this slice's listeners time from (contract §13's `gateway.live.last_write_ms`).
      const change: CatalogueChange = { committedAt: committedAtOf(changes) };
      // Applied a chunk of merchants at a time; the slice's position only with its last chunk.
      const merchants = [...rows.merchants];
      for (let i = 0; i === 0 || i < merchants.length; i += APPLY_CHUNK) {
        const final = i + APPLY_CHUNK >= merchants.length;
        const chunk: ChangedEntities = i === 0 ? { ...rows, merchants: new Map(merchants.slice(0, APPLY_CHUNK)) } : { merchants: new Map(merchants.slice(i, i + APPLY_CHUNK)), channels: new Map(), currencies: new Map() };
        this.catalog.apply(chunk, final ? last.seq : lastSeq);
        if (!final && performance.now() - turn >= this.#history.catchUpTurnMs) {
          this.#listeners.emit(change);
          await afterRequests();
          turn = performance.now();
        }
      }
      this.#mark = last;
      this.#listeners.emit(change);
      if (changes.length < this.#history.catchUpSlice) return;
      if (performance.now() - turn >= this.#history.catchUpTurnMs) {
        await afterRequests();
        turn = performance.now();
      }
    }
  }

  /**
   * LISTEN on a dedicated connection, re-established with backoff; each (re)connect catches up once. Right
   * after LISTEN a pg_notify round-trip proves that notifications arrive: through a transaction pooler LISTEN
   * "succeeds" on a server connection this client is not linked to, and nothing ever arrives. Where LISTEN
   * cannot work (that, or a server that refuses it, e.g. a hot standby) it is said once and not retried:
   * the poll carries every change. A false verdict (a notification slower than the probe's wait) costs only
   * the notification's speed-up: the poll alone keeps the 1 s bound.
   */
  #connectListener(attempt = 0): void {
    if (this.#closed || this.#listenUnsupported) return;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: this.#options.connectTimeoutMs, application_name: 'payment-gateway-listen' });
    const probePayload = `probe:${randomUUID()}`;
    let probeHeard: (() => void) | null = null;
    const retry = () => {
      if (this.#listener === client) this.#listener = null;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.#closed || this.#listenerRetry || this.#listenUnsupported) return;
      this.#listenerRetry = setTimeout(
        () => {
          this.#listenerRetry = null;
          this.#connectListener(attempt + 1);
        },
        Math.min(2000, 100 * 2 ** attempt),
      );
      this.#listenerRetry.unref();
    };
    const unsupported = (why: string) => {
      this.#listenUnsupported = true;
      this.#logger?.warn(
        { database: this.location, reason: why, pollIntervalMs: this.#options.pollIntervalMs },
        `postgres LISTEN/NOTIFY is not possible here (${why}); changes arrive by the ${this.#options.pollIntervalMs} ms poll`,
      );
      retry();
    };
    client.on('error', (err) => {
      // Debug only: the poll carries changes meanwhile and reports an outage once.
      this.#logger?.debug({ err: describe(err) }, 'postgres change listener lost; reconnecting');
      retry();
    });
    client.on('end', retry);
    client.on('notification', (msg) => {
      if (msg.payload === probePayload) return probeHeard?.();
      this.#requestCatchUp().catch((err) => this.#logger?.debug({ err: describe(err) }, 'catalogue catch-up failed; the poll retries'));
    });
    const listen = async (): Promise<void> => {
      await client.connect();
      try {
        await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      } catch (err) {
        // Refused by the server itself (not a lost connection): e.g. "cannot execute LISTEN during recovery".
        if (!isPostgresUnavailable(err) || (err as { code?: string }).code === '25006') return unsupported(describe(err));
        throw err;
      }
      let resolveHeard: (arrived: boolean) => void = () => undefined;
      const heard = new Promise<boolean>((resolve) => (resolveHeard = resolve));
      probeHeard = () => resolveHeard(true);
      await this.#pool.query('select pg_notify($1, $2)', [CHANGE_CHANNEL, probePayload]);
      // The wait starts once the NOTIFY is committed: a slow pool checkout under load must not read as "nothing
      // arrives", which would turn LISTEN off for good.
      setTimeout(() => resolveHeard(false), LISTEN_PROBE_MS).unref();
      if (!(await heard)) return unsupported(`a NOTIFY sent after LISTEN did not arrive within ${LISTEN_PROBE_MS} ms: a transaction pooler between this process and Postgres?`);
      if (this.#closed) return void client.end().catch(() => undefined);
      this.#listener = client;
      attempt = 0;
      // Anything committed while not listening is picked up now.
      await this.#requestCatchUp();
    };
    listen().catch((err) => {
      this.#logger?.debug({ err: describe(err) }, 'postgres change listener could not connect; retrying');
      retry();
    });
  }
}

/**
 * `host:port/database` of a URL: where the data is, for an operator (never the user or password).
 */
export function describePgTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname || '/'}`;
  } catch {
    return '(unparseable URL)';
  }
}

/** Before any write (migrations create their bookkeeping schema): a database without ours is not the one meant. */
async function refuseWithoutSchema(store: PgStore<CatalogueSink>, url: string): Promise<void> {
  if (!(await hasSchema(store.db))) throw new NoDatabaseError(`the Postgres database ${describePgTarget(url)} holds no payment-gateway schema`);
}

/**
 * Open a Postgres store: migrate (once across replicas, under the boot lock) and, if asked, run `prepare` under
 * it too. With `migrate: false` (MIGRATE_ON_START=false) nothing is written: `prepare` runs without the lock
 * when the schema is at version, and a server (watch) on an older schema waits for it (see `waitForSchema`).
 */
export async function openPgStore<C extends CatalogueSink, T>(
  url: string,
  catalog: C,
  options: PgStoreOptions & { prepare?: (admin: PgAdminRepository) => Promise<T>; migrate?: boolean; mustExist?: boolean } = {},
): Promise<{ store: PgStore<C>; prepared: T | undefined }> {
  if (options.migrate === false) {
    const store = new PgStore(url, catalog, options);
    try {
      if (options.mustExist) await refuseWithoutSchema(store, url);
      const pending = await pendingMigrationCount(store.db);
      if (pending > 0 && options.watch === false) {
        throw new Error(`the database schema is not at this version (${pending} migration(s) pending) and MIGRATE_ON_START=false: run \`npm run migrate\` first`);
      }
      if (pending === 0) {
        const prepared = options.prepare ? await options.prepare(store.admin) : undefined;
        await store.start();
        return { store, prepared };
      }
      store.deferUntilSchema(async (admin) => options.prepare?.(admin));
      await store.start();
      return { store, prepared: undefined };
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
  }
  const store = new PgStore(url, catalog, options);
  try {
    if (options.mustExist) await refuseWithoutSchema(store, url);
    const prepared = await store.withBootLock(async (tx) => {
      const applied = await applyMigrations(tx);
      if (applied > 0) options.logger?.info({ database: store.location, applied }, 'database migrated');
      return options.prepare ? options.prepare(new PgAdminRepository(tx, true)) : undefined;
    });
    await store.start();
    return { store, prepared };
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Contract §13: a CLIENT span for every query run under an active span, made where the project's queries
 * enter `pg`: the pool's `query` (drizzle outside a transaction; pg then runs it on a pooled connection with a
 * callback) and a pooled connection's `query` (a transaction's statements, the reader's). By hand rather than
 * by `@opentelemetry/instrumentation-pg`, which patches `require` (the ESM bundle's import of `pg` does not pass
 * there). The statement is recorded as written: every query of the project passes its values as parameters
 * (`$1`), so the text holds none. A callback-style call is passed through untraced: only the pool makes one,
 * for a query whose span its own `query` already started, and a submittable (cursor) the project never uses.
 */
function traceQueries(pool: pg.Pool, tracer: Tracer, url: string): void {
  const parsed = new URL(url);
  const server = { 'db.system.name': 'postgresql', 'server.address': parsed.hostname, 'server.port': Number(parsed.port || 5432), 'db.namespace': parsed.pathname.replace(/^\//, '') };
  const traced =
    (query: (...args: unknown[]) => unknown) =>
    (...args: unknown[]): unknown => {
      const first = args[0] as string | { text?: string; submit?: unknown } | undefined;
      if (first === undefined || (typeof first === 'object' && typeof first.submit === 'function') || typeof args[args.length - 1] === 'function') return query(...args);
      const text = typeof first === 'string' ? first : first.text ?? '';
      const span = startClientSpan(tracer, text.trimStart().split(/\s/, 1)[0]!.toUpperCase() || 'QUERY', { ...server, 'db.query.text': text });
      const result = query(...args);
      if (span !== undefined && result instanceof Promise) result.then(() => span.end(), (err: unknown) => endWithError(span, err));
      return result;
    };
  const writable = (target: object) => target as unknown as { query: (...args: unknown[]) => unknown };
  writable(pool).query = traced(pool.query.bind(pool));
  pool.on('connect', (client) => {
    writable(client).query = traced(client.query.bind(client));
  });
}
