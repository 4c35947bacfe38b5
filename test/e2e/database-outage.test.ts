/**
 * Contract §6 "Database loss: ride through it", end to end on the built server, both engines, with a short
 * bound (MAX_STALENESS_SECONDS=4): while the database cannot be reached, data requests keep answering 200
 * from the last catalogue, /ready and /health 200, `gateway_catalogue_age_seconds` grows, one warning names
 * the underlying error, and a rule scheduled for that moment still takes effect at its instant; past the
 * bound, 503 SERVICE_UNAVAILABLE with Retry-After and /ready 503; when the database returns the replica
 * catches up by itself (a change made meanwhile included) without a restart.
 *
 * Postgres: the server stopped (connections refused), and frozen (SIGSTOP: nothing answers; requests must
 * not hang). SQLite: the database file moved away and put back (the fault of
 * test/security/db-faults.test.ts that stands for "unreachable").
 *
 * And a restore on SQLite: the file replaced by a backup while serving is validated in the bundle's worker
 * thread (dist/sqlite-validation-worker.mjs beside dist/main.mjs): every request answered meanwhile, then the
 * backup's data.
 *
 * One pass (npm test): it runs on both engines in every pass.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { DATABASE_FILE } from '../../src/storage/index.js';
import { makeTempDir } from '../helpers/app.js';
import { localServicesSkipReason, startPostgres, type LocalService } from '../helpers/local-services.js';
import { admin, signedHttp, startServer, type RunningServer } from '../helpers/ops.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const BOUND_S = 4;
const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Fault {
  env: Record<string, string>;
  /** The exact cause the one warning must name. */
  cause: RegExp;
  cut(): Promise<void>;
  restore(): Promise<void>;
}

async function channels(baseUrl: string, who: DemoMerchantCredentials): Promise<{ status: number; retryAfter: string | null; list?: { code: string; status: string; fee_info: { fee_percentage: number } }[] }> {
  const res = await signedHttp(baseUrl, who, 'GET', '/v1/payments/channel');
  const body = (await res.json()) as { data?: { code: string; status: string; fee_info: { fee_percentage: number } }[]; code?: string };
  if (res.status === 503) expect(body.code).toBe('SERVICE_UNAVAILABLE');
  return { status: res.status, retryAfter: res.headers.get('retry-after'), list: body.data };
}

async function catalogueAge(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const m = /^gateway_catalogue_age_seconds (\S+)$/m.exec(text);
  expect(m, 'gateway_catalogue_age_seconds in /metrics').not.toBeNull();
  return Number(m![1]);
}

async function scenario(dataDir: string, fault: Fault): Promise<void> {
  const masterKey = randomBytes(32).toString('hex');
  const env = { MASTER_KEY: masterKey, MAX_STALENESS_SECONDS: String(BOUND_S), LOG_LEVEL: 'info', ...fault.env };
  const server: RunningServer = await startServer(dataDir, env);
  cleanups.push(() => server.stop('SIGKILL'));
  const merchants = (JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants;
  const who = merchants.find((m) => m.kyc === 'pending')!;
  const before = await channels(server.baseUrl, who);
  expect(before.status).toBe(200);
  const feeBefore = before.list!.find((c) => c.code === 'bni_va')!.fee_info.fee_percentage;
  expect(feeBefore).not.toBe(1.23);

  // A rule scheduled to start during the outage (contract §7: in effect at its instant, no database needed).
  const ruleAt = Date.now() + 2500;
  const scheduled = await admin(dataDir, ['fee', 'set', 'bni_va', '--bands', '*:1.23:0', '--effective-from', new Date(ruleAt).toISOString()], env);
  expect(scheduled.code, scheduled.stderr).toBe(0);
  // The catalogue has the schedule before the database goes (Postgres: propagation; SQLite: the 500 ms watch, or a request).
  await sleep(700);
  expect((await channels(server.baseUrl, who)).status).toBe(200);

  const linesBeforeCut = server.logLines().length;
  await fault.cut();
  // A failed expectation must not leave the database down for the next case.
  try {
    const cutAt = Date.now();
    // Within the bound: served as usual. The bound counts from the last moment the catalogue was known current
    // (at most a poll before the cut), so "as usual" is asserted up to BOUND_S - 1 s after the cut.
    let sawRule = false;
    while (Date.now() - cutAt < (BOUND_S - 1) * 1000) {
      const r = await channels(server.baseUrl, who);
      expect(r.status, `${Date.now() - cutAt} ms after the cut`).toBe(200);
      const fee = r.list!.find((c) => c.code === 'bni_va')!.fee_info.fee_percentage;
      if (Date.now() >= ruleAt + 300) {
        expect(fee).toBe(1.23);
        sawRule = true;
      }
      expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
      await sleep(100);
    }
    expect(sawRule).toBe(true);
    expect(await catalogueAge(server.baseUrl)).toBeGreaterThan(1);

    // Past the bound: 503 with Retry-After (within 1 s of passing it), /ready 503, /health 200.
    let refused;
    for (;;) {
      refused = await channels(server.baseUrl, who);
      if (refused.status !== 200) break;
      expect(Date.now() - cutAt, 'refused within 1 s of passing the bound').toBeLessThan((BOUND_S + 1) * 1000);
      await sleep(50);
    }
    expect(refused.status).toBe(503);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(503);
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);

    // Exactly one warning for the outage (no other warning while it was ridden through), naming the underlying error.
    const untilRefused = server.logLines().slice(linesBeforeCut);
    const firstRefusal = untilRefused.findIndex((l) => l.level === 50);
    const warnings = untilRefused.slice(0, firstRefusal === -1 ? undefined : firstRefusal).filter((l) => l.level === 40);
    expect(warnings, JSON.stringify(warnings)).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toMatch(/^database unreachable/);
    expect(String(warnings[0]!.cause)).toMatch(fault.cause);

    // Back: catches up by itself within 10 s, a change made meanwhile (right after the return) included.
  } finally {
    await fault.restore();
  }
  const changed = await admin(dataDir, ['channel', 'update', 'bni_va', '--status', 'offline'], env);
  expect(changed.code, changed.stderr).toBe(0);
  const back = Date.now();
  for (;;) {
    const r = await channels(server.baseUrl, who);
    if (r.status === 200 && r.list!.find((c) => c.code === 'bni_va')?.status === 'offline') break;
    expect(Date.now() - back, 'caught up within 10 s').toBeLessThan(10_000);
    await sleep(100);
  }
  expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(200);
  expect(await catalogueAge(server.baseUrl)).toBeLessThan(2);
}

const skipPg = localServicesSkipReason('postgres');

describe('a database outage shorter than MAX_STALENESS_SECONDS costs no request; past it 503; back by itself', () => {
  it('SQLite: the database file moved away, then put back', async () => {
    const dataDir = makeTempDir('pgw-outage-sqlite-');
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const file = path.join(dataDir, DATABASE_FILE);
    await scenario(dataDir, {
      // SQLite whatever TEST_DB says: the fault is a file fault.
      env: { DATABASE_URL: '' },
      cause: new RegExp(`${DATABASE_FILE}.*not accessible|ENOENT`),
      cut: () => Promise.resolve(fs.renameSync(file, `${file}.away`)),
      restore: () => Promise.resolve(fs.renameSync(`${file}.away`, file)),
    });
  });

  describe.skipIf(skipPg)('Postgres (one server for both cases)', () => {
    let postgres: LocalService;
    beforeAll(async () => {
      postgres = await startPostgres();
      cleanups.push(() => postgres.stop());
    });

    async function database(name: string): Promise<string> {
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      try {
        await client.query(`create database ${name}`);
      } finally {
        await client.end();
      }
      const url = new URL(postgres.url);
      url.pathname = `/${name}`;
      return url.toString();
    }

    it('the server stopped (connections refused), then started again', async () => {
      const dataDir = makeTempDir('pgw-outage-pg-');
      cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
      await scenario(dataDir, {
        env: { DATABASE_URL: await database('gw_stopped') },
        // Refused, or (a poll that met the shutdown itself) the server's own shutdown error or its reset of the
        // connection; every form names the address and the code.
        cause: new RegExp(`postgres at 127\\.0\\.0\\.1:${postgres.port}: .*(ECONNREFUSED 127\\.0\\.0\\.1:${postgres.port}|ECONNRESET|SQLSTATE 57P0[1-3])`),
        cut: () => postgres.stopServer(),
        restore: () => postgres.startServer(),
      });
    });

    it('the server frozen (SIGSTOP: connections accepted, nothing answers), then resumed: nothing hangs', async () => {
      const dataDir = makeTempDir('pgw-outage-pg-');
      cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
      await scenario(dataDir, {
        env: { DATABASE_URL: await database('gw_frozen') },
        cause: new RegExp(`postgres at 127\\.0\\.0\\.1:${postgres.port}: (no answer within|timeout|Connection terminated)`),
        cut: () => Promise.resolve(postgres.pause()),
        restore: () => Promise.resolve(postgres.resume()),
      });
    });
  });
});

describe('SQLite: a restore while serving is validated off the event loop, in the built worker', () => {
  it("the file replaced by a backup: requests and /ready answered throughout, then the backup's data, no error logged", async () => {
    const dataDir = makeTempDir('pgw-restore-sqlite-');
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const file = path.join(dataDir, DATABASE_FILE);
    const env = { MASTER_KEY: randomBytes(32).toString('hex'), DATABASE_URL: '', LOG_LEVEL: 'info' };
    const server = await startServer(dataDir, env);
    cleanups.push(() => server.stop('SIGKILL'));
    const who = (JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants.find((m) => m.kyc === 'pending')!;
    const statusOf = async () => (await channels(server.baseUrl, who)).list?.find((c) => c.code === 'bni_va')?.status;
    const before = await statusOf();
    expect(before).toBeDefined();
    expect(before).not.toBe('offline');

    const backup = path.join(dataDir, 'backup.db');
    const sqlite = new Database(file);
    cleanups.push(() => void sqlite.close());
    sqlite.prepare('vacuum into ?').run(backup);
    const changed = await admin(dataDir, ['channel', 'update', 'bni_va', '--status', 'offline'], env);
    expect(changed.code, changed.stderr).toBe(0);
    for (let at = Date.now(); (await statusOf()) !== 'offline'; await sleep(50)) expect(Date.now() - at, 'the change visible').toBeLessThan(10_000);
    // The WAL moved into the file first: a WAL left at the path would be read as the restored file's.
    expect(sqlite.pragma('wal_checkpoint(TRUNCATE)', { simple: true })).toBe(0);

    const linesBeforeRestore = server.logLines().length;
    fs.unlinkSync(file);
    fs.copyFileSync(backup, file);
    const restoredAt = Date.now();
    // Warnings and errors since the restore (a validation worker missing from dist/ is logged as an error).
    const problems = () => server.logLines().slice(linesBeforeRestore).filter((l) => Number(l.level) >= 40);
    for (;;) {
      expect(problems()).toEqual([]);
      const r = await channels(server.baseUrl, who);
      expect(r.status, `${Date.now() - restoredAt} ms after the restore`).toBe(200);
      expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(200);
      if (r.list!.find((c) => c.code === 'bni_va')!.status === before) break;
      expect(Date.now() - restoredAt, "the backup's data served within 10 s").toBeLessThan(10_000);
      await sleep(20);
    }
    expect(problems()).toEqual([]);
    expect(server.logLines().slice(linesBeforeRestore).some((l) => String(l.msg).includes('validated, now in use'))).toBe(true);
  });
});
