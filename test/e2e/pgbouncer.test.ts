/**
 * Contract §6 real deployment components, storage side: replicas and the admin CLI through PgBouncer
 * (Debian's package, its DEFAULT settings) in transaction and in session pooling, and replicas reading a
 * read-only hot standby (`pg_basebackup -R`) while the CLI writes to the primary.
 *
 * One Postgres primary, one PgBouncer per pool mode (each on its own database of the primary) and one
 * standby for the whole file. What is checked is what broke before: nothing starts (a refused startup
 * parameter), a leaked session advisory lock (`you don't own a lock`, waiters forever), `SET` leaking into
 * pooled connections, NOTIFY silently lost, `LISTEN` retried in a loop on a standby.
 *
 * One pass (npm test): it runs on Postgres in every pass.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { makeTempDir } from '../helpers/app.js';
import { localServicesSkipReason, startPgBouncer, startPostgres, startStandby, type LocalService } from '../helpers/local-services.js';
import { admin, signedHttp, startServer, type RunningServer } from '../helpers/ops.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const skip = localServicesSkipReason('postgres', 'pgbouncer');
const CONTRACT_PROPAGATION_MS = 1000;
const LISTEN_UNSUPPORTED = /LISTEN\/NOTIFY is not possible here/;

let primary: LocalService;
const services: LocalService[] = [];
const servers: (RunningServer & { dataDir: string })[] = [];
const dirs: string[] = [];
const masterKey = randomBytes(32).toString('hex');

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/** A database of its own on the primary; its URL. */
async function createDatabase(name: string): Promise<string> {
  await query(primary.url, `create database ${name}`);
  const url = new URL(primary.url);
  url.pathname = `/${name}`;
  return url.toString();
}

function through(service: LocalService, databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.port = String(service.port);
  return url.toString();
}

function tempDir(prefix: string): string {
  const d = makeTempDir(prefix);
  dirs.push(d);
  return d;
}

async function replica(env: Record<string, string>): Promise<RunningServer & { dataDir: string }> {
  const dataDir = tempDir('pgw-pgb-');
  const server = { ...(await startServer(dataDir, { MASTER_KEY: masterKey, LOG_LEVEL: 'info', ...env })), dataDir };
  servers.push(server);
  return server;
}

function merchantsSeededIn(dataDirs: string[]): DemoMerchantCredentials[] {
  const seeded = dataDirs.filter((d) => fs.existsSync(path.join(d, 'demo-credentials.json')));
  expect(seeded).toHaveLength(1);
  return (JSON.parse(fs.readFileSync(path.join(seeded[0]!, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants;
}

async function statusOf(baseUrl: string, who: DemoMerchantCredentials, code: string): Promise<string | undefined> {
  const res = await signedHttp(baseUrl, who, 'GET', '/v1/payments/channel');
  if (res.status !== 200) return undefined;
  const body = (await res.json()) as { data: { code: string; status: string }[] };
  return body.data.find((c) => c.code === code)?.status;
}

/** Elapsed ms until every server shows `status` for `code`; throws past `limitMs`. */
async function untilAll(list: RunningServer[], who: DemoMerchantCredentials, code: string, status: string, limitMs: number): Promise<number> {
  const start = performance.now();
  for (;;) {
    const seen = await Promise.all(list.map((s) => statusOf(s.baseUrl, who, code)));
    if (seen.every((s) => s === status)) return performance.now() - start;
    if (performance.now() - start > limitMs) throw new Error(`not on every replica within ${limitMs} ms: ${seen.join(', ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function count(server: RunningServer, pattern: RegExp): number {
  return server.logLines().filter((l) => pattern.test(String(l.msg))).length;
}

describe.skipIf(skip)('PgBouncer (default settings) and a hot standby between the service and Postgres', () => {
  beforeAll(async () => {
    primary = await startPostgres();
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await Promise.all(services.map((s) => s.stop()));
    await primary?.stop();
    // Each component's temporary directory goes with it.
    for (const s of [...services, primary]) if (s) expect(fs.existsSync(s.dir), s.dir).toBe(false);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  describe.each(['transaction', 'session'] as const)('%s pooling', (poolMode) => {
    it('three replicas start together, the CLI works (several at once), a change reaches every replica within 1 s, no lock or SET is left behind', async () => {
      const bouncer = await startPgBouncer(primary, { poolMode });
      services.push(bouncer);
      const direct = await createDatabase(`gw_${poolMode}`);
      const url = through(bouncer, direct);
      const env = { DATABASE_URL: url };

      const started = await Promise.all([replica(env), replica(env), replica(env)]);
      const merchants = merchantsSeededIn(started.map((s) => s.dataDir));
      const pending = merchants.find((m) => m.kyc === 'pending')!;
      for (const s of started) expect(await statusOf(s.baseUrl, pending, 'bni_va')).toBe('active');

      // Several CLI processes at once through the pooler (the boot lock is taken by each).
      const cliDir = tempDir('pgw-pgb-cli-');
      const runs = await Promise.all([0, 1, 2, 3].map(() => admin(cliDir, ['channel', 'list'], { ...env, MASTER_KEY: masterKey })));
      for (const r of runs) expect(r.code, r.stderr).toBe(0);

      expect((await admin(cliDir, ['channel', 'update', 'bni_va', '--status', 'offline'], { ...env, MASTER_KEY: masterKey })).code).toBe(0);
      const ms = await untilAll(started, pending, 'bni_va', 'offline', CONTRACT_PROPAGATION_MS);
      console.info(`PgBouncer ${poolMode} pooling: a CLI change on every replica after ${ms.toFixed(0)} ms`);

      // No advisory lock is left held (the boot lock is transaction-level) and no session setting leaked.
      expect(await query(direct, "select * from pg_locks where locktype = 'advisory'")).toEqual([]);
      for (let i = 0; i < 5; i++) expect((await query<{ statement_timeout: string }>(url, 'show statement_timeout'))[0]?.statement_timeout).toBe('0');
      expect(primary.log()).not.toMatch(/you don't own a lock/);
      expect(bouncer.log()).not.toMatch(/unsupported startup parameter/);

      // Transaction pooling: LISTEN "succeeds" but nothing arrives; said once per replica, never retried. Session pooling: it works.
      await new Promise((r) => setTimeout(r, 2500));
      for (const s of started) expect(count(s, LISTEN_UNSUPPORTED)).toBe(poolMode === 'transaction' ? 1 : 0);
    });
  });

  it('replicas on a read-only hot standby (MIGRATE_ON_START=false) serve while the CLI writes to the primary; LISTEN refused once, not retried', async () => {
    const direct = await createDatabase('gw_standby');
    const cliDir = tempDir('pgw-standby-cli-');
    // The migration step (and the demo seed) on the primary, then a standby with that data.
    const migrated = await admin(cliDir, ['migrate'], { DATABASE_URL: direct, MASTER_KEY: masterKey });
    expect(migrated.code, migrated.stderr).toBe(0);
    const standby = await startStandby(primary);
    services.push(standby);
    const merchants = (JSON.parse(fs.readFileSync(path.join(cliDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants;
    const pending = merchants.find((m) => m.kyc === 'pending')!;

    const env = { DATABASE_URL: through(standby, direct), MIGRATE_ON_START: 'false' };
    const started = await Promise.all([replica(env), replica(env)]);
    for (const s of started) expect(await statusOf(s.baseUrl, pending, 'bni_va')).toBe('active');

    expect((await admin(cliDir, ['channel', 'update', 'bni_va', '--status', 'maintenance'], { DATABASE_URL: direct, MASTER_KEY: masterKey })).code).toBe(0);
    // Within 1 s of the standby replaying the commit: replay here is near-immediate, so 1 s from the commit plus a margin for replay.
    const ms = await untilAll(started, pending, 'bni_va', 'maintenance', CONTRACT_PROPAGATION_MS + 500);
    console.info(`hot standby: a change committed on the primary on every replica after ${ms.toFixed(0)} ms`);

    await new Promise((r) => setTimeout(r, 2000));
    for (const s of started) expect(count(s, LISTEN_UNSUPPORTED)).toBe(1);
    // Never retried: one refused LISTEN per replica in the standby's own log.
    expect(standby.log().match(/cannot execute LISTEN during recovery/g)?.length ?? 0).toBeLessThanOrEqual(started.length);
    for (const s of started) expect((await fetch(`${s.baseUrl}/ready`)).status).toBe(200);
  });
});
