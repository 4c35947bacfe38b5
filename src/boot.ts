/**
 * Start-up of the data directory: create it, open and migrate the
 * database, load the master key and prove it decrypts stored secrets, seed
 * demo data into an empty database. Every failure is a {@link BootError}
 * with a message an operator can act on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadOrCreateMasterKey, MASTER_KEY_FILE, SecretBox, SecretDecryptionError } from './auth/secret-box.js';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/client.js';
import { isEmpty, seedDemoData, type DemoMerchantCredentials } from './db/seed.js';
import { MerchantRepository } from './repositories/merchants.js';

export class BootError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BootError';
  }
}

/** Everything the server needs from DATA_DIR. */
export interface BootedData {
  database: DatabaseHandle;
  secretBox: SecretBox;
  masterKeySource: string;
  /** Set only on the start that seeded the demo data. */
  seeded: DemoMerchantCredentials[] | null;
  credentialsFile: string;
}

export const DATABASE_FILE = 'gateway.db';
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

export function bootData(config: Pick<Config, 'dataDir' | 'masterKey' | 'seedDemoData'>): BootedData {
  const { dataDir } = config;
  try {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.accessSync(dataDir, fs.constants.W_OK | fs.constants.R_OK);
  } catch (err) {
    throw new BootError(`DATA_DIR ${dataDir} cannot be created or is not writable: ${describe(err)}`, { cause: err });
  }
  probeWritable(dataDir);

  let database: DatabaseHandle;
  try {
    database = openDatabase(path.join(dataDir, DATABASE_FILE));
  } catch (err) {
    throw new BootError(`cannot open or migrate the database in ${dataDir}: ${describe(err)}`, { cause: err });
  }

  try {
    const sample = new MerchantRepository(database.db).anyKey();
    // Generating a fresh master.key next to existing ciphertexts would only hide the real problem (a lost key file).
    if (sample && !config.masterKey && !fs.existsSync(path.join(dataDir, MASTER_KEY_FILE))) {
      throw new BootError(
        `the database in ${dataDir} holds encrypted API secrets but no master key is configured: ${path.join(dataDir, MASTER_KEY_FILE)} is missing and MASTER_KEY is not set. Restore the key file or set MASTER_KEY; a new key cannot decrypt the stored secrets.`,
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
          throw new BootError(`the master key from ${master.source} does not decrypt the stored API secrets (${err.message}).`, { cause: err });
        }
        throw err;
      }
    }

    const credentialsFile = path.join(dataDir, CREDENTIALS_FILE);
    let seeded: DemoMerchantCredentials[] | null = null;
    if (config.seedDemoData && isEmpty(database.db)) {
      seeded = seedDemoData(database.db, secretBox);
      fs.writeFileSync(credentialsFile, `${JSON.stringify({ merchants: seeded }, null, 2)}\n`, { mode: 0o600 });
    }
    return { database, secretBox, masterKeySource: master.source, seeded, credentialsFile };
  } catch (err) {
    database.close();
    throw err;
  }
}
