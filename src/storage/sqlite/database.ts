/**
 * Opening the database: one better-sqlite3 connection per process, WAL
 * journal, foreign keys on, migrations from `drizzle/` applied at start.
 *
 * The handle is also the database's health monitor. SQLite alone does not notice most operational faults: a
 * deleted file keeps working on the unlinked inode (writes would vanish), a
 * file made read-only stays writable through the open descriptor, and a
 * file overwritten in place may keep being served from the page cache. So
 * every request calls {@link DatabaseHandle.check}, which compares a cheap
 * `stat` fingerprint (inode, size, mtime, ctime, mode) with the one taken
 * when the connection was validated:
 *
 * - file missing or without write permission → down (503), the old
 *   connection is kept but not used (closing it would checkpoint the WAL
 *   into a file that is gone);
 * - fingerprint changed on the same inode (a checkpoint of another process's writes moves WAL pages into
 *   the file; an in-place overwrite or repair does too) → a NEW connection is opened and asked whether the
 *   file is still the database the catalogue was loaded from ({@link DatabaseHandle.setContinuity}: the
 *   change-log row applied last is still there, unchanged). If so it replaces the old one and nothing is
 *   reloaded: a checkpoint is a routine write, caught up like any other;
 * - otherwise (replaced, restored, repaired, or the continuity check failed) → the file is validated
 *   (`quick_check` and a read of every table) in a worker thread (./validation-worker.ts), because reading
 *   the whole file takes about a second at 100,000 merchants and the event loop must keep answering. Until
 *   the worker answers, the handle is {@link DatabaseHandle.validating}: check() is not ok and the connection
 *   is not to be used, while the store keeps serving its catalogue as it is (src/storage/sqlite/store.ts). On
 *   "ok" a NEW connection is opened, on the very file the worker validated (the same inode before and after
 *   opening; a file replaced meanwhile is validated anew), and replaces the old one; `replacements` moves (the
 *   catalogue reloads everything, announced by {@link DatabaseHandle.onReplaced}). A file that fails, a worker
 *   that crashes or gives no answer within `validationTimeoutMs`, is not taken: the handle is down with the
 *   reason, the old connection (if the file is still its file) is kept, and a later check tries again. Either
 *   way of continuing, the generation counter moves so repositories rebuild their prepared statements (see
 *   {@link DatabaseHandle.live});
 * - another process holding the write lock for longer than `lockGraceMs`
 *   → unavailable until it lets go (see #lockStatus);
 * - a failed {@link DatabaseHandle.probe} (no busy wait; run by /ready and
 *   after any 503, e.g. SQLITE_BUSY under another process's exclusive lock)
 *   marks the handle suspect: requests fail fast with 503 until a later
 *   probe succeeds.
 *
 * While down, a re-validation is attempted at most every `retryIntervalMs`,
 * so recovery needs no restart and a broken file costs little per request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { Logger } from 'pino';
import { projectPath } from '../../shared/paths.js';
import { workerModule } from '../../shared/worker-module.js';
import * as schema from './schema.js';
import type { FileIdentity, ValidationAnswer } from './validation-worker.js';

/** The typed drizzle handle used by repositories. */
export type Db = BetterSQLite3Database<typeof schema>;

/** Result of a health check. */
import type { DatabaseStatus } from '../model/store.js';

/** An open, monitored database. `db`/`sqlite` always return the current connection. */
export interface DatabaseHandle {
  readonly db: Db;
  readonly sqlite: Database.Database;
  readonly file: string;
  /** Incremented whenever the connection is replaced. */
  readonly generation: number;
  /** Incremented whenever the file was found replaced, restored or repaired (validated anew): reload everything. */
  readonly replacements: number;
  /**
   * How to tell, on a fresh connection, that the file is still the database already loaded (a checkpoint, not a
   * restore). Without one, every change of the file's fingerprint counts as a replacement.
   */
  setContinuity(check: (sqlite: Database.Database) => boolean): void;
  /**
   * True while a replaced file is being validated off the event loop: check() and probe() are not ok, and
   * neither the connection nor anything built on it is to be used until the validation ends.
   */
  readonly validating: boolean;
  /** The validation under way: resolves true once its file was swapped in, false otherwise. Null when none runs. */
  validation(): Promise<boolean> | null;
  /** Called after a validated file was swapped in (`replacements` moved), from the worker's answer. */
  onReplaced(listener: () => void): void;
  /** Cheap per-request health check; a file repaired or replaced is validated (off the event loop), then reconnected to. */
  check(): DatabaseStatus;
  /** A live query and write-lock probe (no busy wait) on the current connection, for /ready. */
  probe(): DatabaseStatus;
  /**
   * An object built from the current connection and rebuilt after a
   * reconnect (prepared statements belong to one connection). The returned
   * proxy forwards every property to the current instance.
   */
  live<T extends object>(build: (db: Db) => T): T;
  /**
   * A second connection to the file, for a long read spread over event-loop turns (a full reload in its own
   * read transaction, while the monitored connection keeps serving); the caller closes it. Null for
   * `:memory:`, which has no second connection.
   */
  openReader(): Connection | null;
  close(): void;
}

/** Absolute path of the committed migrations folder. */
export const MIGRATIONS_DIR = projectPath('drizzle/sqlite');

const BUSY_TIMEOUT_MS = 2000;

/**
 * The longest a validation may take by default (ms). About a second at 100,000 merchants; generous, as a
 * file that cannot be validated within the limit is never taken. Meanwhile the previous catalogue is served.
 */
export const VALIDATION_TIMEOUT_MS = 60_000;

/** The worker's module (src/shared/worker-module.ts). */
export const VALIDATION_WORKER: URL = workerModule(import.meta.url, './validation-worker.ts', './sqlite-validation-worker.mjs');

/** The one validation under way: its worker, its time limit, and its outcome for {@link DatabaseHandle.validation}. */
interface Validation {
  readonly worker: Worker;
  readonly timer: NodeJS.Timeout;
  readonly done: Promise<boolean>;
  readonly resolve: (swapped: boolean) => void;
}

export interface Connection {
  sqlite: Database.Database;
  db: Db;
}

function connect(file: string, options: Database.Options = {}): Connection {
  const sqlite = new Database(file, options);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma('synchronous = NORMAL');
    return { sqlite, db: drizzle(sqlite, { schema }) };
  } catch (err) {
    sqlite.close();
    throw err;
  }
}

type Fingerprint = string;

const HEALTHY: DatabaseStatus = Object.freeze({ ok: true });

function fingerprintOf(st: fs.BigIntStats): Fingerprint {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}`;
}

function describe(err: unknown): string {
  if (err instanceof Database.SqliteError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** Least time between re-validation attempts while down (ms). */
  retryIntervalMs?: number;
  /** Least time between probes of the write lock while it is free (ms). */
  lockProbeIntervalMs?: number;
  /** How long another process may hold the write lock before the database counts as unavailable (ms). */
  lockGraceMs?: number;
  /** Clock in ms. */
  now?: () => number;
  /**
   * How long a validation of a replaced file may take before the worker is stopped and the file counts as
   * not validated (ms; default {@link VALIDATION_TIMEOUT_MS}).
   */
  validationTimeoutMs?: number;
  /** The validation worker's module (default {@link VALIDATION_WORKER}); tests put stand-ins here that hang or crash. */
  validationWorker?: URL;
  /** Where a validation worker's crash or time-out is logged. */
  logger?: Logger;
  /**
   * Apply pending migrations (default true). False (MIGRATE_ON_START=false): never write DDL; the caller checks
   * the schema version (./migrations.ts) and waits for `npm run migrate`.
   */
  migrate?: boolean;
}

class MonitoredDatabase implements DatabaseHandle {
  #conn: Connection;
  #fingerprint: Fingerprint | null;
  #generation = 0;
  #replacements = 0;
  #continuity: ((sqlite: Database.Database) => boolean) | null = null;
  #down: string | null = null;
  #suspect = false;
  #lastAttempt = Number.NEGATIVE_INFINITY;
  readonly #lockProbeMs: number;
  readonly #lockGraceMs: number;
  #lastLockProbe = Number.NEGATIVE_INFINITY;
  /** True from a healthy check() until the end of the current event-loop turn. */
  #healthyThisTurn = false;
  readonly #endTurn = () => {
    this.#healthyThisTurn = false;
  };
  #lockedSince: number | null = null;
  /** Inode the current connection has open; null once abandoned. */
  #inode: bigint | null = null;
  readonly #retryMs: number;
  readonly #now: () => number;
  readonly #validationTimeoutMs: number;
  readonly #validationWorker: URL;
  readonly #logger: Logger | undefined;
  #validation: Validation | null = null;
  #onReplaced: (() => void) | null = null;

  constructor(
    readonly file: string,
    conn: Connection,
    options: OpenDatabaseOptions,
  ) {
    this.#conn = conn;
    this.#retryMs = options.retryIntervalMs ?? 250;
    this.#lockProbeMs = options.lockProbeIntervalMs ?? 1000;
    this.#lockGraceMs = options.lockGraceMs ?? 1000;
    this.#now = options.now ?? Date.now;
    this.#validationTimeoutMs = options.validationTimeoutMs ?? VALIDATION_TIMEOUT_MS;
    this.#validationWorker = options.validationWorker ?? VALIDATION_WORKER;
    this.#logger = options.logger;
    this.#fingerprint = this.#stat();
    if (file !== ':memory:') this.#inode = fs.statSync(file, { bigint: true }).ino;
  }

  get db(): Db {
    return this.#conn.db;
  }

  get sqlite(): Database.Database {
    return this.#conn.sqlite;
  }

  get replacements(): number {
    return this.#replacements;
  }

  setContinuity(check: (sqlite: Database.Database) => boolean): void {
    this.#continuity = check;
  }

  get validating(): boolean {
    return this.#validation !== null;
  }

  validation(): Promise<boolean> | null {
    return this.#validation?.done ?? null;
  }

  onReplaced(listener: () => void): void {
    this.#onReplaced = listener;
  }

  get generation(): number {
    return this.#generation;
  }

  #stat(): Fingerprint | null {
    if (this.file === ':memory:') return null;
    return fingerprintOf(fs.statSync(this.file, { bigint: true }));
  }

  /** Close the current connection (it belongs to a file no longer at our path). */
  #abandon(): void {
    this.#inode = null;
    try {
      if (this.#conn.sqlite.open) this.#conn.sqlite.close();
    } catch {
      // The file is gone or replaced; the connection is unusable either way and never used again.
    }
  }

  /**
   * In WAL mode another process cannot stop our reads, but it can hold the
   * write lock (BEGIN EXCLUSIVE, a stuck migration or backup). Probed with
   * BEGIN IMMEDIATE and no busy wait, at most every `lockProbeIntervalMs`
   * (every `retryIntervalMs` while held); held for `lockGraceMs` → unavailable,
   * so ordinary short write transactions of other processes never count.
   */
  #lockStatus(now: number): DatabaseStatus {
    const interval = this.#lockedSince === null ? this.#lockProbeMs : this.#retryMs;
    if (now - this.#lastLockProbe >= interval) {
      this.#lastLockProbe = now;
      if (this.#writeLockBusy()) this.#lockedSince ??= now;
      else this.#lockedSince = null;
    }
    if (this.#lockedSince !== null && now - this.#lockedSince >= this.#lockGraceMs) {
      return { ok: false, reason: `database ${this.file} is locked by another process` };
    }
    return { ok: true };
  }

  #writeLockBusy(): boolean {
    const sqlite = this.#conn.sqlite;
    sqlite.pragma('busy_timeout = 0');
    try {
      sqlite.exec('BEGIN IMMEDIATE');
      sqlite.exec('ROLLBACK');
      return false;
    } catch (err) {
      if (err instanceof Database.SqliteError && /^SQLITE_(BUSY|LOCKED)/.test(err.code)) return true;
      throw err;
    } finally {
      sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  #fail(reason: string): DatabaseStatus {
    this.#down = reason;
    return { ok: false, reason };
  }

  check(): DatabaseStatus {
    // A healthy answer is reused for the rest of the event-loop turn: the check costs two system calls
    // (stat + access), which were ~7 % of a hot-path request when made for every request. A fault is
    // therefore seen by every request processed from the next turn on (as a commit by another process is,
    // src/storage/sqlite/data-version.ts), never later. Unhealthy answers are never reused: each one re-checks.
    // (A failure noticed meanwhile by a query or probe, or a close, ends the reuse at once.)
    if (this.#healthyThisTurn && this.#down === null && !this.#suspect && this.#validation === null && this.#conn.sqlite.open) return HEALTHY;
    try {
      const status = this.#check();
      if (status.ok) {
        this.#healthyThisTurn = true;
        setImmediate(this.#endTurn);
      }
      return status;
    } catch (err) {
      // The health check itself must never take a request down.
      this.#suspect = true;
      this.#lastAttempt = this.#now();
      return { ok: false, reason: `database health check failed: ${describe(err)}` };
    }
  }

  #check(): DatabaseStatus {
    // Closed on purpose (shutdown, or by its owner): never reopened behind the owner's back.
    if ((this.#inode !== null || this.file === ':memory:') && !this.#conn.sqlite.open) return { ok: false, reason: 'database connection is closed' };
    if (this.file === ':memory:') return { ok: true };
    let st: fs.BigIntStats;
    try {
      st = fs.statSync(this.file, { bigint: true });
    } catch (err) {
      // The connection would keep working on the unlinked inode and anything written would be
      // lost with it: let it go now (its WAL is checkpointed into that inode, which is still the
      // right file if it was only moved away), so a file put back later opens without a stale WAL.
      this.#abandon();
      return this.#fail(`database file ${this.file} is not accessible: ${describe(err)}`);
    }
    if (this.#inode !== null && st.ino !== this.#inode) this.#abandon();
    // Owner write bit as well as access(): root passes access(W_OK) on a read-only file.
    let writable = (Number(st.mode) & 0o200) !== 0;
    if (writable) {
      try {
        fs.accessSync(this.file, fs.constants.R_OK | fs.constants.W_OK);
      } catch {
        writable = false;
      }
    }
    if (!writable) return this.#fail(`database file ${this.file} is read-only`);
    // The worker's answer decides; whatever the file did meanwhile, the answer is checked against it (#swapIn).
    if (this.#validation !== null) return this.#validatingStatus();

    const fingerprint = fingerprintOf(st);
    const now = this.#now();
    // (A connection abandoned to a replaced file is never healthy, even if a file with its fingerprint came back.)
    if (this.#down === null && !this.#suspect && fingerprint === this.#fingerprint && this.#conn.sqlite.open) return this.#lockStatus(now);
    if (this.#down === null && !this.#suspect && this.#inode === st.ino && this.#continue()) return this.#lockStatus(now);

    if (now - this.#lastAttempt < this.#retryMs && (this.#down !== null || this.#suspect)) {
      return { ok: false, reason: this.#down ?? 'database unavailable (recent failure)' };
    }
    this.#lastAttempt = now;

    if (fingerprint === this.#fingerprint && this.#down === null && this.#inode !== null) {
      // Same file, a request failed on it (lock, I/O): probe the current connection.
      const probed = this.probe();
      if (probed.ok) this.#suspect = false;
      return probed;
    }
    return this.#validate();
  }

  #validatingStatus(): DatabaseStatus {
    return { ok: false, reason: this.#down ?? `database file ${this.file} changed; validating it before use` };
  }

  /**
   * The same file changed under a healthy connection: continue on a fresh connection (never the old one's
   * page cache, which an in-place overwrite would leave stale) when it proves to be the database loaded.
   * Cheap: one open and one indexed read, no `quick_check` (which reads the whole file).
   */
  #continue(): boolean {
    const continuity = this.#continuity;
    if (continuity === null) return false;
    let next: Connection;
    try {
      next = connect(this.file, { fileMustExist: true });
    } catch {
      return false;
    }
    let same: boolean;
    try {
      next.sqlite.pragma('busy_timeout = 0');
      same = continuity(next.sqlite);
      next.sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    } catch {
      same = false; // not readable as the same database: the full validation below decides
    }
    if (!same) {
      next.sqlite.close();
      return false;
    }
    const previous = this.#conn.sqlite;
    this.#conn = next;
    this.#generation += 1;
    try {
      if (previous.open) previous.close();
    } catch {
      // The previous connection is never used again either way.
    }
    this.#fingerprint = this.#stat();
    return true;
  }

  /**
   * Start validating the file in a worker (#finish takes its answer). Not ok until then: the caller serves
   * what it holds and uses no connection.
   */
  #validate(): DatabaseStatus {
    let worker: Worker;
    try {
      worker = new Worker(this.#validationWorker, { workerData: { file: this.file } });
    } catch (err) {
      this.#logger?.error({ err, database: this.file }, 'cannot start the database validation worker');
      return this.#fail(`database ${this.file} could not be validated: ${describe(err)}`);
    }
    // A validation never keeps the process alive (close() stops it, too).
    worker.unref();
    let resolve!: (swapped: boolean) => void;
    const done = new Promise<boolean>((r) => (resolve = r));
    // A worker that misbehaves (no answer in time, a crash) is logged here: it is not the file's fault.
    const fault = (error: string) => {
      if (this.#validation !== validation) return;
      this.#logger?.error({ database: this.file, cause: error }, 'database validation did not complete; the file is not used until a later check validates it');
      this.#finish(validation, { ok: false, error });
    };
    const timer = setTimeout(() => fault(`the validation worker gave no answer within ${this.#validationTimeoutMs} ms`), this.#validationTimeoutMs);
    timer.unref();
    const validation: Validation = { worker, timer, done, resolve };
    worker.once('message', (answer: ValidationAnswer) => this.#finish(validation, answer));
    worker.once('error', (err) => fault(`the validation worker failed: ${describe(err)}`));
    worker.once('exit', (code) => fault(`the validation worker exited (code ${code}) without an answer`));
    this.#validation = validation;
    this.#healthyThisTurn = false;
    return this.#validatingStatus();
  }

  /** The validation's outcome (the first of answer, crash, exit or time-out; later ones are ignored). */
  #finish(validation: Validation, answer: ValidationAnswer): void {
    if (this.#validation !== validation) return;
    this.#endValidation(validation);
    this.#lastAttempt = this.#now();
    // A file that fails its checks is an outage like any other (the store reports it, with this reason).
    const swapped = answer.ok ? this.#swapIn(answer.stat) : (this.#fail(`database ${this.file} failed validation: ${answer.error}`), false);
    validation.resolve(swapped);
    if (swapped) this.#onReplaced?.();
  }

  /**
   * Open a fresh connection to the file the worker validated and make it the current one. The file at the
   * path must be the one the worker looked at (device, inode, creation time), both before and after
   * opening: a file replaced meanwhile is not what was validated, and is validated anew at the next check.
   * Writes to that file since the worker looked (another process's checkpoint, another replica switching
   * it to WAL as it opens it) are writes to the database validated, as after the swap; requiring the
   * content unchanged too would have replicas sharing the file validate again and again while any writes.
   */
  #swapIn(validated: FileIdentity): boolean {
    const sameFile = (st: fs.BigIntStats | undefined): st is fs.BigIntStats =>
      st !== undefined && st.dev === validated.dev && st.ino === validated.ino && st.birthtimeNs === validated.birthtimeNs;
    if (!sameFile(fs.statSync(this.file, { bigint: true, throwIfNoEntry: false }))) {
      this.#logger?.debug({ database: this.file }, 'database file replaced while it was validated; validating it again');
      return false;
    }
    let next: Connection;
    try {
      next = connect(this.file, { fileMustExist: true });
    } catch (err) {
      this.#fail(`cannot open ${this.file}: ${describe(err)}`);
      return false;
    }
    // The fingerprint is taken after opening, which may write the header (the switch to WAL).
    const opened = fs.statSync(this.file, { bigint: true, throwIfNoEntry: false });
    if (!sameFile(opened)) {
      next.sqlite.close();
      this.#logger?.debug({ database: this.file }, 'database file replaced while it was opened; validating it again');
      return false;
    }
    const previous = this.#conn.sqlite;
    this.#conn = next;
    this.#generation += 1;
    this.#replacements += 1;
    this.#down = null;
    this.#suspect = false;
    this.#fingerprint = fingerprintOf(opened);
    this.#inode = opened.ino;
    // The previous connection is closed only now that a healthy one exists (closing it
    // earlier could checkpoint its WAL into a file that is missing or damaged).
    try {
      if (previous.open) previous.close();
    } catch {
      // Closing a connection to a replaced or damaged file may fail; it is never used again either way.
    }
    this.#logger?.info({ database: this.file }, 'database file replaced, restored or repaired: validated, now in use');
    return true;
  }

  probe(): DatabaseStatus {
    if (this.#validation !== null) return this.#validatingStatus();
    if (this.#down !== null) return { ok: false, reason: this.#down };
    if (!this.#conn.sqlite.open) return { ok: false, reason: 'database connection is closed' };
    const sqlite = this.#conn.sqlite;
    try {
      sqlite.pragma('busy_timeout = 0');
      try {
        sqlite.prepare('select count(*) from merchants').get();
      } finally {
        sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
      return this.#lockStatus(this.#now());
    } catch (err) {
      // Fail fast (no busy waits on the event loop) until a later probe succeeds.
      this.#suspect = true;
      this.#lastAttempt = this.#now();
      return { ok: false, reason: `database query failed: ${describe(err)}` };
    }
  }

  live<T extends object>(build: (db: Db) => T): T {
    let generation = -1;
    let current: T | undefined;
    const resolve = (): T => {
      if (current === undefined || generation !== this.#generation) {
        current = build(this.#conn.db);
        generation = this.#generation;
      }
      return current;
    };
    return new Proxy({} as T, {
      get(_target, prop) {
        const target = resolve();
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  openReader(): Connection | null {
    return this.file === ':memory:' ? null : connect(this.file, { fileMustExist: true });
  }

  /** The validation under way is over: its timer cleared, its worker ended (one that hangs is stopped; one that answered is ending by itself). */
  #endValidation(validation: Validation): void {
    this.#validation = null;
    clearTimeout(validation.timer);
    void validation.worker.terminate();
  }

  close(): void {
    const validation = this.#validation;
    if (validation !== null) {
      this.#endValidation(validation);
      validation.resolve(false);
    }
    if (this.#conn.sqlite.open) this.#conn.sqlite.close();
  }
}

/** Open (creating if needed) and migrate the database at `file` (`:memory:` allowed). */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): DatabaseHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const conn = connect(file);
  try {
    if (options.migrate !== false) migrate(conn.db, { migrationsFolder: MIGRATIONS_DIR });
  } catch (err) {
    conn.sqlite.close();
    throw err;
  }
  return new MonitoredDatabase(file, conn, options);
}
