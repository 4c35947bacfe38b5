/**
 * The Postgres store (src/storage/postgres/store.ts) against a real Postgres: two
 * stores on one database stand for two replicas. Changes committed through
 * one reach the other's catalogue within the contract's 1 s (LISTEN/NOTIFY),
 * also when the notification is lost (poll catch-up), and never skip a
 * change committed late by a concurrent writer (sequence order = commit
 * order). Replicas booting together migrate and seed exactly once.
 * Runs whenever a test Postgres is available (test/helpers/global-setup.ts).
 *
 * One pass (npm test): it runs on Postgres in every pass.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { bootData, type BootedData } from '../../src/app/boot.js';
import { AdminService } from '../../src/modules/admin/service.js';
import { makeTempDir } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engine.js';

const CONTRACT_PROPAGATION_MS = 1000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function replica(url: string, masterKey: Buffer): Promise<BootedData> {
  const dataDir = makeTempDir('pgw-pg-');
  // Removed even when the start is refused (the wrong-master-key case).
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const data = await bootData({ dataDir, masterKey, seedDemoData: true, databaseUrl: url });
  cleanups.push(() => data.store.close());
  return data;
}

/** Elapsed ms until `done()` holds (polled every 5 ms), or throws after `limitMs`. */
async function within(limitMs: number, done: () => boolean): Promise<number> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - start;
}

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('Postgres store: replicas on one database', () => {
  it('a revocation, a status change and a fee change made through one replica reach the other within 1 s', async () => {
    const db = await database();
    const key = randomBytes(32);
    const a = await replica(db.url, key);
    const b = await replica(db.url, key);
    const approved = a.seeded!.find((m) => m.kyc === 'approved')!;
    expect(b.store.catalog.findActiveKey(approved.apiKey)).toBeDefined();

    const admin = new AdminService(a.store.admin, a.secretBox);
    await admin.revokeKey(approved.apiKey);
    await within(CONTRACT_PROPAGATION_MS, () => b.store.catalog.findActiveKey(approved.apiKey) === undefined);

    await admin.updateChannel('ovo', { status: 'maintenance', feePercentage: '1.9' });
    await within(CONTRACT_PROPAGATION_MS, () => b.store.catalog.findForMerchant(approved.merchantId, 'ovo')?.status === 'maintenance');
    expect(b.store.catalog.findForMerchant(approved.merchantId, 'ovo')?.feeInfo.feePercentage).toBe('1.9');
  });

  it('a lost notification (listener connection killed) is caught up by the poll within 1 s', async () => {
    const db = await database();
    const key = randomBytes(32);
    const a = await replica(db.url, key);
    const b = await replica(db.url, key);
    const merchant = a.seeded![0]!.merchantId;
    await sql(db.url, `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'payment-gateway-listen' and datname = current_database()`);
    await sql(db.url, `update channels set name = 'OVO Lost' where code = 'ovo'`);
    await within(CONTRACT_PROPAGATION_MS, () => b.store.catalog.findForMerchant(merchant, 'ovo')?.name === 'OVO Lost');
  });

  it('a change committed late by a concurrent writer is never skipped (sequence order is commit order)', async () => {
    const db = await database();
    const a = await replica(db.url, randomBytes(32));
    const merchant = a.seeded![0]!.merchantId;
    const slow = new pg.Client({ connectionString: db.url });
    await slow.connect();
    cleanups.push(() => slow.end());
    // The slow transaction logs its change first but commits last.
    await slow.query('begin');
    await slow.query(`update channels set name = 'Slow' where code = 'ovo'`);
    const fast = sql(db.url, `update channels set name = 'Fast' where code = 'bca_va'`);
    await new Promise((r) => setTimeout(r, 300));
    await slow.query('commit');
    await fast;
    await a.store.sync();
    await within(CONTRACT_PROPAGATION_MS, () => a.store.catalog.findForMerchant(merchant, 'bca_va')?.name === 'Fast');
    expect(a.store.catalog.findForMerchant(merchant, 'ovo')?.name).toBe('Slow');
  });

  it('replicas starting at the same moment migrate and seed exactly once', async () => {
    const db = await database();
    const key = randomBytes(32);
    const started = await Promise.all([replica(db.url, key), replica(db.url, key), replica(db.url, key)]);
    expect(started.filter((d) => d.seeded !== null)).toHaveLength(1);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const seeded = started.find((d) => d.seeded)!.seeded!;
      const { rows } = await client.query('select count(*)::int as n from merchants');
      expect(rows[0].n).toBe(seeded.length);
    } finally {
      await client.end();
    }
    for (const d of started) expect(d.store.catalog.stats().merchants).toBe(started.find((x) => x.seeded)!.seeded!.length);
  });

  it('a replica with another master key refuses to start, naming the problem', async () => {
    const db = await database();
    await replica(db.url, randomBytes(32));
    await expect(replica(db.url, randomBytes(32))).rejects.toThrow(/does not decrypt the stored API secrets.*same MASTER_KEY/);
  });
});
