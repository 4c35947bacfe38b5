/**
 * Start-up of the data: create DATA_DIR, open and migrate the database
 * (SQLite in DATA_DIR, or Postgres from DATABASE_URL), load the master key
 * and prove it decrypts stored secrets, seed demo data into an empty
 * database. Every failure is a {@link BootError}
 * with a message an operator can act on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadOrCreateMasterKey, MASTER_KEY_FILE, SecretBox, SecretDecryptionError } from '../modules/auth/secret-box.js';
import type { Config } from '../shared/config.js';
import type { Logger } from 'pino';
import type { Tracer } from '@opentelemetry/api';
import { seedDemoData, type DemoMerchantCredentials } from '../modules/admin/demo-seed.js';
import { Catalog } from '../modules/catalogue/catalog.js';
import { NoDatabaseError, openStore, StorageOpenError, type AdminRepository, type Store } from '../storage/index.js';
import { generateQuoteKey } from '../modules/quotes/keys.js';

export class BootError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BootError';
  }
}

/** {@link BootOptions.mustExist} and no database there: nothing was created. */
export class MissingDatabaseError extends BootError {
  constructor(message: string) {
    super(message);
    this.name = 'MissingDatabaseError';
  }
}

/** Everything the server needs from DATA_DIR. */
export interface BootedData {
  /** The database and the in-memory catalogue it keeps current (either engine). */
  store: Store<Catalog>;
  secretBox: SecretBox;
  masterKeySource: string;
  /** Set only on the start that seeded the demo data. */
  seeded: DemoMerchantCredentials[] | null;
  credentialsFile: string;
}

export const CREDENTIALS_FILE = 'demo-credentials.json';

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Bytes the start-up write probe needs free in DATA_DIR (room for the database to grow a little). */
export const WRITE_PROBE_BYTES = 256 * 1024;

/**
 * Prove DATA_DIR takes writes by writing (and syncing) a probe file:
 * `access()` says nothing about a full disk, and nothing at all for root.
 */
function probeWritable(dataDir: string): void {
  const probe = path.join(dataDir, `.write-probe-${process.pid}`);
  try {
    const fd = fs.openSync(probe, 'w', 0o600);
    try {
      const zeros = Buffer.alloc(WRITE_PROBE_BYTES);
      // writeSync may write less than asked on a nearly full disk; the next write then fails.
      for (let done = 0; done < zeros.length; ) done += fs.writeSync(fd, zeros, done, zeros.length - done);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const full = code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG';
    throw new BootError(
      full
        ? `DATA_DIR ${dataDir} is full: cannot write ${WRITE_PROBE_BYTES} bytes (${describe(err)}). Free some space or point DATA_DIR elsewhere.`
        : `DATA_DIR ${dataDir} is not writable (${describe(err)}). Fix its permissions or point DATA_DIR elsewhere.`,
      { cause: err },
    );
  } finally {
    fs.rmSync(probe, { force: true });
  }
}

/** Options of {@link bootData}. */
export interface BootOptions {
  logger?: Logger;
  /** Keep the catalogue current (servers; default). False for one-shot tools such as the admin CLI. */
  watch?: boolean;
  /** Contract §13: the store's catch-up and database spans; absent = tracing off. */
  tracer?: Tracer;
  /**
   * Act only on a database that exists (the admin CLI's commands other than `init` and `migrate`): without
   * one, throw {@link MissingDatabaseError} and create nothing (no DATA_DIR, no database, no master key).
   */
  mustExist?: boolean;
}

/**
 * Prove the master key decrypts stored secrets and seed an empty database (`repo` null: no database to
 * look at yet, only the master key is loaded).
 * On Postgres this runs under the boot lock, so of several replicas starting
 * together exactly one seeds and the others then find the data (and refuse
 * to start if their master key cannot decrypt it).
 */
async function prepareData(
  repo: AdminRepository | null,
  config: Pick<Config, 'dataDir' | 'masterKey' | 'seedDemoData'> & { mayWrite?: boolean },
): Promise<Pick<BootedData, 'secretBox' | 'masterKeySource' | 'seeded' | 'credentialsFile'>> {
  const { dataDir } = config;
  const sample = repo ? await repo.anyKey() : undefined;
  // Generating a fresh master.key next to existing ciphertexts would only hide the real problem (a lost key file).
  if (sample && !config.masterKey && !fs.existsSync(path.join(dataDir, MASTER_KEY_FILE))) {
    throw new BootError(
      `the database holds encrypted API secrets but no master key is configured: ${path.join(dataDir, MASTER_KEY_FILE)} is missing and MASTER_KEY is not set. Restore the key file or set MASTER_KEY (every replica must use the same one); a new key cannot decrypt the stored secrets.`,
    );
  }
  let master;
  try {
    master = loadOrCreateMasterKey(dataDir, config.masterKey);
  } catch (err) {
    throw new BootError(`cannot load or create the master key: ${describe(err)}`, { cause: err });
  }
  const secretBox = new SecretBox(master.key);

  // A wrong master key must stop the start, not produce signatures that never match.
  if (sample) {
    try {
      secretBox.decrypt(sample.id, sample.secretCiphertext);
    } catch (err) {
      if (err instanceof SecretDecryptionError) {
        throw new BootError(
          `the master key from ${master.source} does not decrypt the stored API secrets (${err.message}). Every replica and the admin CLI must use the same MASTER_KEY.`,
          { cause: err },
        );
      }
      throw err;
    }
  }

  // Contract §11: the first fee quote signing key, created once. On Postgres this runs under the boot lock; on
  // either engine the one-signing-key index makes a second insert do nothing, so replicas starting together
  // (or a cluster's workers on one SQLite file) end with exactly one key.
  if (repo && (config.mayWrite ?? true) && !(await repo.listQuoteKeys()).some((k) => k.state === 'signing')) {
    await repo.insertSigningQuoteKey(await generateQuoteKey(secretBox));
  }

  const credentialsFile = path.join(dataDir, CREDENTIALS_FILE);
  let seeded: DemoMerchantCredentials[] | null = null;
  if (repo && config.seedDemoData && (await repo.isEmpty())) {
    seeded = await seedDemoData(repo, secretBox);
    fs.writeFileSync(credentialsFile, `${JSON.stringify({ merchants: seeded }, null, 2)}\n`, { mode: 0o600 });
  }
  return { secretBox, masterKeySource: master.source, seeded, credentialsFile };
}

/**
 * Create DATA_DIR and its master key file (unless MASTER_KEY is set) without opening the database: what
 * node:cluster's primary does once when MIGRATE_ON_START=false (its workers prove the key against the data).
 */
export function prepareMasterKey(config: Pick<Config, 'dataDir' | 'masterKey'>): void {
  try {
    fs.mkdirSync(config.dataDir, { recursive: true });
    loadOrCreateMasterKey(config.dataDir, config.masterKey);
  } catch (err) {
    throw new BootError(`cannot load or create the master key in ${config.dataDir}: ${describe(err)}`, { cause: err });
  }
}

/** The master key without a database to prove it against (the schema is not there yet, so no secret is stored). */
function prepareWithoutDatabase(config: Pick<Config, 'dataDir' | 'masterKey'>): Promise<Pick<BootedData, 'secretBox' | 'masterKeySource' | 'seeded' | 'credentialsFile'>> {
  return prepareData(null, { ...config, seedDemoData: false });
}

/**
 * Open the database (Postgres when `databaseUrl` is set, else SQLite in
 * DATA_DIR), migrate it, prove the master key and seed demo data into an
 * empty database. DATA_DIR is needed on both engines (master.key unless
 * MASTER_KEY is set, demo-credentials.json).
 */
export async function bootData(
  config: Pick<Config, 'dataDir' | 'masterKey' | 'seedDemoData'> &
    Partial<Pick<Config, 'maxStalenessSeconds' | 'migrateOnStart' | 'changeLogRetentionSeconds' | 'caches'>> & { databaseUrl?: string | null },
  options: BootOptions = {},
): Promise<BootedData> {
  const migrateOnStart = config.migrateOnStart ?? true;
  const { dataDir } = config;
  const mustExist = options.mustExist ?? false;
  if (mustExist && !config.databaseUrl && !fs.existsSync(dataDir)) throw new MissingDatabaseError(`there is no database in ${dataDir} (the directory does not exist)`);
  // On Postgres DATA_DIR only holds master.key: an acting command does not create it either.
  if (!mustExist || fs.existsSync(dataDir)) {
    try {
      fs.mkdirSync(dataDir, { recursive: true });
      fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.R_OK);
    } catch (err) {
      throw new BootError(`DATA_DIR ${dataDir} cannot be created or is not writable: ${describe(err)}`, { cause: err });
    }
    probeWritable(dataDir);
  }

  try {
    const { store, prepared } = await openStore({
      dataDir,
      databaseUrl: config.databaseUrl,
      catalogue: new Catalog({ listCacheEntries: config.caches?.catalogueLists }),
      logger: options.logger,
      changeLogRetentionSeconds: config.changeLogRetentionSeconds,
      watch: options.watch,
      tracer: options.tracer,
      maxStalenessSeconds: config.maxStalenessSeconds,
      migrateOnStart,
      mustExist,
      // MIGRATE_ON_START=false never seeds (a seed is a write the migration step owns).
      prepare: (admin) => prepareData(admin, { ...config, seedDemoData: config.seedDemoData && migrateOnStart, mayWrite: migrateOnStart }),
    });
    // Undefined only while a server waits for `npm run migrate` (MIGRATE_ON_START=false): there is nothing stored
    // to check the master key against yet; the store runs the same checks once the schema is there.
    return { store, ...(prepared ?? (await prepareWithoutDatabase(config))) };
  } catch (err) {
    if (err instanceof NoDatabaseError) throw new MissingDatabaseError(err.message);
    if (err instanceof StorageOpenError) throw new BootError(err.message, { cause: err.cause });
    throw err;
  }
}
