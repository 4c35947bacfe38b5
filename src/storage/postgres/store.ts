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
 * statement after `statementTimeoutMs`, so nothing hangs. A failed poll marks
 * the database unavailable at once: requests answer 503 (the process stays
 * up, /health stays 200). The poll keeps trying; the first success reloads
 * everything (changes made meanwhile included) before the store reports
 * healthy again, so a recovered replica never serves data older than the
 * outage.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { projectPath } from '../../shared/paths.js';
import { PgAdminRepository } from './admin.js';
import { PgCatalogReader } from './catalog-reader.js';
import * as schema from './schema.js';
import { ChangeListeners, type CatalogueSink, type DatabaseStatus, type Store } from '../model/store.js';

/** Absolute path of the committed Postgres migrations. */
export const PG_MIGRATIONS_DIR = projectPath('drizzle/pg');

/** The NOTIFY channel the change-log triggers use. */
export const CHANGE_CHANNEL = 'gateway_changes';

/** Session advisory lock held while migrating and seeding, so replicas starting together do it once. */
const BOOT_LOCK_KEY = 7245190210;

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

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
  readonly #options: Required<Omit<PgStoreOptions, 'logger'>>;
  #status: DatabaseStatus = { ok: true };
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
    };
    this.#pool = new pg.Pool({
      connectionString: url,
      max: this.#options.maxConnections,
      connectionTimeoutMillis: this.#options.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      statement_timeout: this.#options.statementTimeoutMs,
      // Client-side bound too: a server that stopped answering (not refusing) must not hold a request.
      query_timeout: this.#options.statementTimeoutMs + 1000,
      application_name: 'payment-gateway',
    });
    // An idle pooled connection that breaks (server restart) emits 'error'; the pool drops it. Unhandled, it would crash.
    this.#pool.on('error', (err) => this.#logger?.warn({ err: describe(err) }, 'postgres pool connection lost'));
    this.db = drizzle(this.#pool, { schema });
    this.#reader = new PgCatalogReader(this.db);
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
    await this.#fullLoad();
    this.#connectListener();
    this.#poll = setInterval(() => void this.#pollOnce(), this.#options.pollIntervalMs);
    this.#poll.unref();
  }

  check(): DatabaseStatus {
    return this.#status;
  }

  probe(): DatabaseStatus {
    return this.#status;
  }

  version(): string {
    return this.catalog.version;
  }

  onChange(listener: () => void): () => void {
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
    if (this.#listenerRetry) clearTimeout(this.#listenerRetry);
    const listener = this.#listener;
    this.#listener = null;
    await listener?.end().catch(() => undefined);
    await this.#catchUp?.catch(() => undefined);
    await this.#pool.end();
  }

  /**
   * Run `fn` with a client holding the boot lock (migrations and seed happen once however many replicas
   * start together; the others wait here, then find the work done).
   */
  async withBootLock<T>(fn: (db: NodePgDatabase<typeof schema>) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      // Waiting for another replica's migration may take longer than one statement may.
      await client.query('set statement_timeout = 0');
      await client.query('select pg_advisory_lock($1)', [BOOT_LOCK_KEY]);
      try {
        await client.query(`set statement_timeout = ${this.#options.statementTimeoutMs * 12}`);
        return await fn(drizzle(client, { schema }));
      } finally {
        await client.query('select pg_advisory_unlock($1)', [BOOT_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  }

  async #fullLoad(): Promise<void> {
    const { rows, lastSeq } = await this.#reader.loadAll();
    this.catalog.replaceAll(rows, lastSeq);
    this.#needsFullLoad = false;
    this.#listeners.emit();
  }

  async #pollOnce(): Promise<void> {
    // A poll still waiting (a frozen server) is not joined by another; its deadline below reports it.
    if (this.#closed || this.#polling) return;
    this.#polling = true;
    let deadline: NodeJS.Timeout | undefined;
    try {
      // A server that stops answering (not refusing) would hold the query until its statement timeout;
      // the contract wants 503 within 5 s, so the poll gives up on its own, sooner.
      const timedOut = new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`no answer within ${this.#options.connectTimeoutMs} ms`)), this.#options.connectTimeoutMs);
      });
      const seq = await Promise.race([this.#reader.maxSeq(), timedOut]);
      if (this.#needsFullLoad || seq > this.catalog.lastSeq) await Promise.race([this.#requestCatchUp(), timedOut]);
      this.#setStatus({ ok: true });
    } catch (err) {
      this.#needsFullLoad = true;
      this.#setStatus({ ok: false, reason: `postgres unavailable: ${describe(err)}` });
    } finally {
      clearTimeout(deadline);
      this.#polling = false;
    }
  }

  #setStatus(status: DatabaseStatus): void {
    if (status.ok !== this.#status.ok) {
      if (status.ok) this.#logger?.info({ database: this.location }, 'postgres available again; catalogue reloaded');
      else this.#logger?.error({ database: this.location, reason: status.reason }, 'postgres unavailable');
    }
    this.#status = status;
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
        if (this.#needsFullLoad) {
          await this.#fullLoad();
          continue;
        }
        const changes = await this.#reader.changesSince(this.catalog.lastSeq);
        if (changes.length === 0) continue;
        this.catalog.apply(await this.#reader.loadChanged(changes), changes[changes.length - 1]!.seq);
        this.#listeners.emit();
      } while (this.#catchUpAgain && !this.#closed);
    };
    this.#catchUp = run().finally(() => {
      this.#catchUp = null;
    });
    return this.#catchUp;
  }

  /** LISTEN on a dedicated connection, re-established with backoff; each (re)connect catches up once. */
  #connectListener(attempt = 0): void {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: this.#options.connectTimeoutMs, application_name: 'payment-gateway-listen' });
    const retry = () => {
      if (this.#listener === client) this.#listener = null;
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.#closed || this.#listenerRetry) return;
      this.#listenerRetry = setTimeout(
        () => {
          this.#listenerRetry = null;
          this.#connectListener(attempt + 1);
        },
        Math.min(2000, 100 * 2 ** attempt),
      );
      this.#listenerRetry.unref();
    };
    client.on('error', (err) => {
      this.#logger?.warn({ err: describe(err) }, 'postgres change listener lost; reconnecting');
      retry();
    });
    client.on('end', retry);
    client.on('notification', () => {
      this.#requestCatchUp().catch((err) => this.#logger?.warn({ err: describe(err) }, 'catalogue catch-up failed; the poll retries'));
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANGE_CHANNEL}`))
      .then(() => {
        if (this.#closed) return void client.end().catch(() => undefined);
        this.#listener = client;
        attempt = 0;
        // Anything committed while not listening is picked up now.
        return this.#requestCatchUp();
      })
      .catch((err) => {
        this.#logger?.debug({ err: describe(err) }, 'postgres change listener could not connect; retrying');
        retry();
      });
  }
}

/** Open a Postgres store: migrate (once across replicas, under the boot lock) and, if asked, run `prepare` under it too. */
export async function openPgStore<C extends CatalogueSink, T>(
  url: string,
  catalog: C,
  options: PgStoreOptions & { prepare?: (admin: PgAdminRepository) => Promise<T> } = {},
): Promise<{ store: PgStore<C>; prepared: T | undefined }> {
  const store = new PgStore(url, catalog, options);
  try {
    const prepared = await store.withBootLock(async (db) => {
      await migrate(db, { migrationsFolder: PG_MIGRATIONS_DIR });
      return options.prepare ? options.prepare(new PgAdminRepository(db)) : undefined;
    });
    await store.start();
    return { store, prepared };
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}
