/**
 * Secrets at rest: no API secret appears in plaintext anywhere in the
 * database files (main file, WAL, shared memory), neither while the server
 * is writing (WAL not yet checkpointed) nor after the connection closed.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SecretBox, SecretDecryptionError } from '../../src/modules/auth/secret-box.js';
import { bootData } from '../../src/app/boot.js';
import { DATABASE_FILE } from '../../src/storage/index.js';
import { AdminService } from '../../src/modules/admin/service.js';
import { makeTempDir } from '../helpers/app.js';
import { openSqlConnection } from '../helpers/sql.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** Every file SQLite keeps for the database. */
function databaseFiles(dataDir: string): string[] {
  return fs.readdirSync(dataDir).filter((f) => f.startsWith(DATABASE_FILE)).map((f) => path.join(dataDir, f));
}

/** Plaintext forms a secret could leak in: the whole string and its random part, as UTF-8 and UTF-16. */
function needles(secret: string): Buffer[] {
  const random = secret.replace(/^sk_(test|live)_/, '');
  return [secret, random].flatMap((s) => [Buffer.from(s, 'utf8'), Buffer.from(s, 'utf16le')]);
}

function leaks(files: string[], secrets: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    for (const secret of secrets) if (needles(secret).some((n) => bytes.includes(n))) found.push(`${path.basename(file)}: ${secret}`);
  }
  return found;
}

describe('API secrets at rest', () => {
  it('never appear in plaintext in the SQLite database, WAL or shm files', async () => {
    const dataDir = makeTempDir('pgw-secrets-');
    dirs.push(dataDir);
    const data = await bootData({ dataDir, masterKey: randomBytes(32), seedDemoData: true });
    const service = new AdminService(data.store.admin, data.secretBox);
    const secrets = data.seeded!.map((m) => m.apiSecret);
    const merchant = await service.createMerchant({ name: 'Scan Shop', kycStatus: 'approved' });
    for (let i = 0; i < 20; i++) secrets.push((await service.createKey(merchant.id, i % 2 ? 'live' : 'test')).apiSecret);

    // While open: the new rows are in the WAL.
    const open = databaseFiles(dataDir);
    expect(open.map((f) => path.basename(f))).toContain(`${DATABASE_FILE}-wal`);
    expect(fs.statSync(path.join(dataDir, `${DATABASE_FILE}-wal`)).size).toBeGreaterThan(0);
    expect(leaks(open, secrets)).toEqual([]);

    // The scan can find a secret when one is there (guards against a scan that cannot fail).
    // From a connection of its own, as an operator's sqlite3 session would.
    const sqlite = openSqlConnection({ engine: 'sqlite', file: path.join(dataDir, DATABASE_FILE) });
    await sqlite.exec('create table canary (v text)');
    await sqlite.exec(`insert into canary values ('${secrets[3]}')`);
    expect(leaks(databaseFiles(dataDir), [secrets[3]!])).not.toEqual([]);
    await sqlite.exec('drop table canary');
    await sqlite.exec('pragma wal_checkpoint(TRUNCATE)');
    await sqlite.exec('vacuum');

    // What is stored decrypts to the secret with the master key and the key id as associated data.
    const rows = await sqlite.all<{ id: string; c: string }>('select id, secret_ciphertext as c from api_keys');
    await sqlite.close();
    expect(rows).toHaveLength(23); // three demo merchants + 20
    const decrypted = rows.map((r) => data.secretBox.decrypt(r.id, r.c));
    expect(new Set(decrypted)).toEqual(new Set(secrets));
    expect(() => data.secretBox.decrypt(rows[1]!.id, rows[0]!.c)).toThrow(SecretDecryptionError);
    expect(() => new SecretBox(randomBytes(32)).decrypt(rows[0]!.id, rows[0]!.c)).toThrow(SecretDecryptionError);
    // A fresh nonce per secret: no two ciphertexts share their first 12 bytes.
    expect(new Set(rows.map((r) => Buffer.from(r.c, 'base64').subarray(0, 12).toString('hex'))).size).toBe(rows.length);

    // After close (checkpointed into the main file).
    await data.store.close();
    expect(leaks(databaseFiles(dataDir), secrets)).toEqual([]);
  });
});
