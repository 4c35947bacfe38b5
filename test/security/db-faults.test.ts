/**
 * Fault injection on the database file while the service runs:
 * deleted, read-only, locked by another process, corrupted. Every fault
 * (once noticed; a changed file, once its validation off the event loop has failed):
 * 503 SERVICE_UNAVAILABLE on both surfaces (problem+json on REST), /ready
 * not ready, the process keeps serving, and it recovers by itself once the
 * file is repaired — with the data written before the fault intact.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { generateKey } from '../../src/modules/auth/keys.js';
import { DATABASE_FILE } from '../../src/storage/index.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';

// Many sequential requests: generous on a shared, loaded machine (no timing is asserted).
vi.setConfig({ testTimeout: 60_000 });

// Faults of the SQLite file itself, so always on SQLite (TEST_DB=postgres too); Postgres outages are tested in
// test/integration/pg-store.test.ts and end to end in test/e2e/replicas.test.ts.

let t: TestApp;
let dbFile: string;
let newKey: DemoMerchantCredentials;

beforeEach(async () => {
  t = await createTestApp({ engine: 'sqlite', app: { rateLimit: { keyRatePerSecond: 1e6, keyBurst: 1e6, authFailuresPerMinute: 1e6 } } });
  dbFile = path.join(t.dataDir, DATABASE_FILE);
  // Data written through the running service's connection just before the fault (it sits in the WAL).
  const key = generateKey('test');
  await t.store.admin.insertKey({
    id: key.apiKey,
    merchantId: t.approved.merchantId,
    mode: 'test',
    secretCiphertext: t.data.secretBox.encrypt(key.apiKey, key.apiSecret),
  });
  newKey = { ...t.approved, ...key };
  expect((await gql(t, '{ paymentChannels { code } }', undefined, newKey)).status).toBe(200);
});
afterEach(async () => {
  if (fs.existsSync(dbFile)) fs.chmodSync(dbFile, 0o644);
  await t.close();
});

async function expectUnavailable(): Promise<void> {
  // The promise of src/storage/sqlite/database.ts check(): a fault is seen by every request from the next event-loop
  // turn on. In-process requests (yoga.fetch) involve no I/O, so the test moves to the next turn itself;
  // over HTTP (TEST_TRANSPORT=node) every request arrives in a later turn anyway.
  await new Promise((resolve) => setImmediate(resolve));
  const graphql = await gql(t, '{ paymentChannels { code } }');
  expect(graphql.status).toBe(503);
  const body = (await graphql.json()) as { errors: { extensions: { code: string } }[] };
  expect(body.errors[0]!.extensions.code).toBe('SERVICE_UNAVAILABLE');

  const rest = await t.signedFetch('/v1/payments/calculate', {
    method: 'POST',
    body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId }),
  });
  expect(rest.status).toBe(503);
  expect(rest.headers.get('content-type')).toContain('application/problem+json');
  const problem = (await rest.json()) as Record<string, unknown>;
  expect(problem).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  expect(JSON.stringify(problem)).not.toMatch(/SQLITE|sqlite|at .*\.ts/);

  expect((await t.fetch('/ready')).status).toBe(503);
  // The process is up: liveness still answers.
  expect((await t.fetch('/health')).status).toBe(200);
}

/** Poll until the service answers normally again (it must heal without a restart). */
async function expectRecovered(): Promise<void> {
  const deadline = Date.now() + 10_000;
  let status = 0;
  while (Date.now() < deadline) {
    status = (await gql(t, '{ paymentChannels { code } }')).status;
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(status).toBe(200);
  expect((await t.fetch('/ready')).status).toBe(200);
  // The key written before the fault still works: nothing was lost.
  const res = await gql(t, '{ paymentChannels { code } }', undefined, newKey);
  expect(res.status).toBe(200);
  const rest = await t.signedFetch('/v1/payments/calculate', {
    method: 'POST',
    body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId, chargeFeeToCustomer: true }),
    as: newKey,
  });
  expect(await rest.json()).toMatchObject({ fee: 1050, totalAmount: 151050 });
}

async function eventually(condition: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('database faults while running', () => {
  it('file deleted (moved away), then put back', async () => {
    fs.renameSync(dbFile, `${dbFile}.away`);
    await expectUnavailable();
    await expectUnavailable(); // repeated requests stay 503 (nothing recreated an empty database)
    expect(fs.existsSync(dbFile)).toBe(false);
    fs.renameSync(`${dbFile}.away`, dbFile);
    await expectRecovered();
  });

  it('file deleted (unlinked), then restored from a backup', async () => {
    const backup = path.join(t.dataDir, 'backup.db');
    await t.sql().exec(`VACUUM INTO '${backup}'`);
    fs.unlinkSync(dbFile);
    await expectUnavailable();
    fs.copyFileSync(backup, dbFile);
    await expectRecovered();
  });

  it('file made read-only, then writable again', async () => {
    fs.chmodSync(dbFile, 0o444);
    await expectUnavailable();
    fs.chmodSync(dbFile, 0o644);
    await expectRecovered();
  });

  it('file corrupted in place, then repaired', async () => {
    // Pages still in the WAL are served from it; after a checkpoint the main file holds everything.
    await t.sql().exec('pragma wal_checkpoint(TRUNCATE)');
    // Every byte of the main file overwritten in place (same inode and size), then written back.
    const original = fs.readFileSync(dbFile);
    const fd = fs.openSync(dbFile, 'r+');
    fs.writeSync(fd, randomBytes(original.length), 0, original.length, 0);
    // The changed file is validated in a worker thread; until it answers, the catalogue is served as it is.
    await eventually(async () => (await gql(t, '{ paymentChannels { code } }')).status === 503);
    await expectUnavailable();
    fs.writeSync(fd, original, 0, original.length, 0);
    fs.closeSync(fd);
    await expectRecovered();
  });

  it('file locked by another process, then released', async () => {
    let holder: ChildProcess | undefined;
    try {
      // Another process holds the database's write lock (a stuck batch job, a backup tool).
      holder = spawn(
        process.execPath,
        [
          '-e',
          `const db = new (require('better-sqlite3'))(process.argv[1]);
           db.exec('begin exclusive');
           db.prepare("update merchants set name = name where id = ''").run();
           process.stdout.write('locked\\n');
           process.stdin.on('end', () => { db.exec('commit'); db.close(); process.exit(0); });
           process.stdin.resume();`,
          dbFile,
        ],
        { stdio: ['pipe', 'pipe', 'inherit'] },
      );
      await new Promise<void>((resolve, reject) => {
        holder!.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
        holder!.on('exit', (code) => reject(new Error(`lock holder exited ${code}`)));
      });
      // Detected once held longer than the grace period (short write transactions never count).
      await eventually(async () => (await gql(t, '{ paymentChannels { code } }')).status === 503);
      await expectUnavailable();
      const exited = new Promise((r) => holder!.on('exit', r));
      holder.stdin!.end();
      await exited;
      await expectRecovered();
    } finally {
      if (holder && holder.exitCode === null) holder.kill();
    }
  });
});
