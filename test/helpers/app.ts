/**
 * In-process test harness: a fresh migrated SQLite database in a temporary
 * DATA_DIR, the real app, and a `signedFetch` that signs like a merchant.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { createApp, type App, type AppOptions } from '../../src/app/app.js';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { bootData, type BootedData } from '../../src/app/boot.js';
import { DATABASE_FILE, openStore, type Store } from '../../src/storage/index.js';
import { Catalog } from '../../src/modules/catalogue/catalog.js';
import { openSqlConnection, type SqlConnection, type SqlTarget } from './sql.js';
import { createTestDatabase, TEST_ENGINE, type TestEngine } from './engine.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';

export interface TestApp {
  app: App;
  data: BootedData;
  dataDir: string;
  /** approved (index 0) and pending (index 1) demo merchants. */
  approved: DemoMerchantCredentials;
  pending: DemoMerchantCredentials;
  /** 'in-process' (yoga.fetch) or 'node' (a real server on a free port serving app.handler, the Node transport). */
  transport: Transport;
  /** The loopback port of the real server ('node' transport), else undefined. */
  port: number | undefined;
  /** Like `fetch`, but the Response is not buffered: its body streams (event streams). */
  streamFetch(target: string, init?: RequestInit): Promise<Response>;
  /** Current fake clock in ms (starts at the real time). */
  clock: { now: number };
  /** Unsigned request through the app. */
  fetch(target: string, init?: RequestInit): Promise<Response>;
  /** Request signed per SVC1 with the given (default: approved) merchant's key. */
  signedFetch(target: string, init?: RequestInit & { as?: DemoMerchantCredentials; timestamp?: string }): Promise<Response>;
  /** The app's database (engine per TEST_DB). */
  store: Store<Catalog>;
  /** Where raw SQL reaches the app's database (its file, or its URL with the password). */
  sqlTarget: SqlTarget;
  /** A connection of its own on the app's database, as an operator's SQL session (opened on first use). */
  sql(): SqlConnection;
  /** Run one SQL statement on the app's database from another connection and wait until the app's catalogue has caught up. */
  execute(statement: string): Promise<void>;
  /** Wait until the catalogue holds every change committed so far. */
  sync(): Promise<void>;
  /** Make the database unusable (SQLite: its file moved away; Postgres: the database dropped) and wait until the app notices. */
  breakDatabase(): Promise<void>;
  close(): Promise<void>;
}

export const BASE = 'http://gateway.test';

/** Rate limits no test suite reaches by accident. */
export const UNREACHABLE_RATE_LIMIT = { keyRatePerSecond: 1e9, keyBurst: 1e9, authFailuresPerMinute: 1e9, merchantShareCapacity: 1e9 };

/**
 * How requests reach the app. `TEST_TRANSPORT=node npm test` runs the whole
 * suite through a real HTTP server and the Node transport (`npm run test:node`).
 */
export type Transport = 'in-process' | 'node';
const DEFAULT_TRANSPORT: Transport = process.env.TEST_TRANSPORT === 'node' ? 'node' : 'in-process';

/**
 * A new temporary directory for a test, inside this run's own directory (PGW_TEST_TMP, made by
 * test/helpers/global-setup.ts), whose teardown fails the run when a test left anything behind there.
 * The test that makes one removes it.
 */
export function makeTempDir(prefix = 'pgw-test-'): string {
  return fs.mkdtempSync(path.join(process.env.PGW_TEST_TMP ?? os.tmpdir(), prefix));
}

export interface TestAppOptions {
  bodyLimitBytes?: number;
  maxSkewSeconds?: number;
  logLines?: string[];
  /** How requests reach the app (default from TEST_TRANSPORT). */
  transport?: Transport;
  /** Any further app options (limits, injected client address, …). */
  app?: Partial<AppOptions>;
  /** Storage engine (default from TEST_DB). */
  engine?: TestEngine;
  /** Serve the database (and demo keys) of this app instead of a new one: replicas in one process. */
  sharedData?: TestApp;
  /** The master key (default: random), e.g. to hand an admin CLI process the same one as MASTER_KEY. */
  masterKey?: Buffer;
}

export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const transport = opts.transport ?? DEFAULT_TRANSPORT;
  const owner = opts.sharedData;
  const dataDir = owner?.dataDir ?? makeTempDir();
  const database = owner ? null : (opts.engine ?? TEST_ENGINE) === 'postgres' ? await createTestDatabase() : null;
  const data = owner?.data ?? (await bootData({ dataDir, masterKey: opts.masterKey ?? randomBytes(32), seedDemoData: true, databaseUrl: database?.url ?? null }, { watch: true }));
  if (!data.seeded) throw new Error('test database was not seeded');
  const clock = { now: Date.now() };
  const app = createApp({
    store: data.store,
    secretBox: data.secretBox,
    logger: opts.logLines ? pino({ level: 'info' }, { write: (line: string) => void opts.logLines!.push(line) }) : pino({ level: 'silent' }),
    maxSkewSeconds: opts.maxSkewSeconds ?? 300,
    bodyLimitBytes: opts.bodyLimitBytes ?? 100 * 1024,
    now: () => clock.now,
    // The fake clock never refills buckets and every in-process request shares one (unknown)
    // address, so suites get limits they cannot reach; test/security/rate-limit.test.ts sets its own.
    rateLimit: UNREACHABLE_RATE_LIMIT,
    ...opts.app,
  });
  const approved = data.seeded.find((m) => m.kyc === 'approved')!;
  const pending = data.seeded.find((m) => m.kyc === 'pending')!;

  let server: Server | undefined;
  let port: number | undefined;
  let fetchApp = (target: string, init?: RequestInit): Promise<Response> => Promise.resolve(app.yoga.fetch(new URL(`${BASE}${target}`), init ?? {}));
  let streamFetch = fetchApp;
  if (transport === 'node') {
    const listening = createServer(app.handler);
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    port = (listening.address() as { port: number }).port;
    streamFetch = (target, init) => fetch(`http://127.0.0.1:${port}${target}`, init);
    fetchApp = async (target, init) => {
      const res = await fetch(`http://127.0.0.1:${port}${target}`, init);
      // A buffered copy, so tests may read it like the in-process Response.
      return new Response(res.status === 204 || res.status === 304 ? null : await res.arrayBuffer(), { status: res.status, headers: res.headers });
    };
  }

  const sync = (): Promise<void> => data.store.sync();
  const sqlTarget: SqlTarget = database ? { engine: 'postgres', url: database.url } : owner ? owner.sqlTarget : { engine: 'sqlite', file: path.join(dataDir, DATABASE_FILE) };
  let connection: SqlConnection | undefined;
  const sql = (): SqlConnection => (connection ??= openSqlConnection(sqlTarget));
  return {
    app,
    data,
    dataDir,
    transport,
    port,
    approved,
    pending,
    clock,
    fetch: fetchApp,
    streamFetch: (target, init) => streamFetch(target, init),
    signedFetch(target, init = {}) {
      const { as = approved, timestamp, ...rest } = init;
      const method = (rest.method ?? 'GET').toUpperCase();
      const body = typeof rest.body === 'string' ? rest.body : rest.body == null ? '' : undefined;
      if (body === undefined) throw new Error('signedFetch signs string bodies only');
      const headers = new Headers(rest.headers);
      const signed = signatureHeaders(as.apiKey, as.apiSecret, {
        method,
        target,
        body,
        timestamp: timestamp ?? String(Math.floor(clock.now / 1000)),
      });
      for (const [k, v] of Object.entries(signed)) if (!headers.has(k)) headers.set(k, v);
      if (body !== '' && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetchApp(target, { ...rest, method, headers });
    },
    store: data.store,
    sqlTarget,
    sql,
    async execute(statement) {
      await sql().exec(statement);
      await sync();
    },
    sync,
    async breakDatabase() {
      await connection?.close();
      connection = undefined;
      if (sqlTarget.engine === 'sqlite') fs.renameSync(sqlTarget.file, `${sqlTarget.file}.away`);
      else await database!.drop();
      for (const deadline = Date.now() + 5000; data.store.check().ok; ) {
        if (Date.now() > deadline) throw new Error('the app did not notice the database loss within 5 s');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      server?.closeAllConnections();
      server?.close();
      await app.close();
      await connection?.close();
      if (owner) return; // the owner closes the shared database
      await data.store.close();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Another server's store on the same data (SQLite: the same file; Postgres: the same database), as a replica opens it. */
export async function openReplicaStore(t: TestApp): Promise<Store<Catalog>> {
  const databaseUrl = t.sqlTarget.engine === 'postgres' ? t.sqlTarget.url : null;
  return (await openStore({ dataDir: t.dataDir, databaseUrl, catalogue: new Catalog(), watch: true })).store;
}

/** POST a GraphQL operation, signed. */
export function gql(t: TestApp, query: string, variables?: Record<string, unknown>, as?: DemoMerchantCredentials): Promise<Response> {
  return t.signedFetch('/graphql', { method: 'POST', body: JSON.stringify({ query, variables }), as });
}
