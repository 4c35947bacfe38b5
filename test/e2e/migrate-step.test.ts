/**
 * Contract §6 "Migrations as their own step": with MIGRATE_ON_START=false a replica never writes DDL or
 * seeds. On an empty database (Postgres, and SQLite in DATA_DIR) it starts, stays not ready (/ready 503, data requests 503) with one
 * clear log line per 10 s, and starts serving by itself once `npm run migrate` has run. The admin CLI fails
 * fast with a clear message while the database is down.
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
import { admin, childEnv, run, signedHttp, startServer, type RunningServer } from '../helpers/ops.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const skip = localServicesSkipReason('postgres');
let postgres: LocalService;
const dirs: string[] = [];
const servers: RunningServer[] = [];
const masterKey = randomBytes(32).toString('hex');

async function pgTables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ name: string }>("select table_schema || '.' || table_name as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')")).rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

describe.skipIf(skip)('MIGRATE_ON_START=false, then npm run migrate', () => {
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await postgres?.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  async function waitsThenServes(engineEnv: Record<string, string>, tables: (dataDir: string) => Promise<string[]>): Promise<void> {
    const dataDir = makeTempDir('pgw-migrate-');
    dirs.push(dataDir);
    const env = { ...engineEnv, MASTER_KEY: masterKey, MIGRATE_ON_START: 'false' };
    const server = await startServer(dataDir, { ...env, LOG_LEVEL: 'info' });
    servers.push(server);

    expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(503);
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
    const data = await fetch(`${server.baseUrl}/v1/payments/channel`);
    expect(data.status).toBe(503);
    await new Promise((r) => setTimeout(r, 1500));
    const waiting = server.logLines().filter((l) => /MIGRATE_ON_START=false/.test(String(l.msg)));
    // One line per 10 s, not one per look.
    expect(waiting).toHaveLength(1);
    expect(String(waiting[0]!.msg)).toMatch(/npm run migrate/);
    expect(await tables(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'demo-credentials.json'))).toBe(false);

    const migrated = await run('npm', ['run', '--silent', 'migrate'], childEnv({ DATA_DIR: dataDir, ...env }));
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/schema/);

    const start = Date.now();
    while ((await fetch(`${server.baseUrl}/ready`)).status !== 200) {
      expect(Date.now() - start, 'ready within 5 s of the migration').toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 100));
    }
    const merchants = (JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants;
    // The migration has exited: schema and demo data are committed, and a ready server's catalogue is current
    // (contract §6), even one that loaded between the migration's schema and its data (SQLite writes them in
    // separate transactions). So the very first signed request after readiness is served, with no grace.
    expect((await signedHttp(server.baseUrl, merchants[0]!, 'GET', '/v1/payments/channel')).status, 'the first signed request after readiness').toBe(200);

    // Run again: nothing pending, nothing changes.
    const again = await admin(dataDir, ['migrate'], env);
    expect(again.code, again.stderr).toBe(0);
  }

  it('Postgres, an empty database: not ready with one log line, no DDL written; after `npm run migrate` it serves by itself', async () => {
    await waitsThenServes({ DATABASE_URL: postgres.url }, () => pgTables(postgres.url));
  });

  it('SQLite, an empty DATA_DIR: the same', async () => {
    await waitsThenServes({ DATABASE_URL: '' }, (dataDir) => {
      const db = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
      try {
        return Promise.resolve((db.prepare("select name from sqlite_master where type in ('table', 'trigger', 'index')").all() as { name: string }[]).map((r) => r.name));
      } finally {
        db.close();
      }
    });
  });

  it('the admin CLI fails fast with a clear message while the database is down', async () => {
    const dataDir = makeTempDir('pgw-migrate-down-');
    dirs.push(dataDir);
    await postgres.stopServer();
    try {
      const start = Date.now();
      const r = await admin(dataDir, ['merchant', 'list'], { DATABASE_URL: postgres.url, MASTER_KEY: masterKey });
      const ms = Date.now() - start;
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`error: cannot open or migrate the Postgres database .*ECONNREFUSED 127\\.0\\.0\\.1:${postgres.port}`));
      expect(ms, 'a few seconds at most').toBeLessThan(5000);
    } finally {
      await postgres.startServer();
    }
  });
});
