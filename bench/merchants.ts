/**
 * `npm run bench:merchants [-- --merchants 1000,10000,100000] [-- --engine sqlite|postgres|both] [-- --quick] [-- --suffix NAME]`
 *
 * Contract §15 on one replica: a data set of N merchants (each with a key, the 12 demo channels, about 10 %
 * with a fee override or a merchant fee rule) written with batched SQL, then the replica started as
 * `npm start` starts it (the bundle, NODE_ENV=production, the start script's node flags). Measured per engine and size:
 * - boot: from spawn to `/ready` 200; RSS at boot, steady (after 5 s) and peak (VmHWM);
 * - one merchant's change, a channel change for all, k merchants changed in one SQL UPDATE (1,000 and
 *   10,000), and 50 writes in a row from another process each followed by a SQLite checkpoint (the CLI's
 *   pattern), and (SQLite) the file restored from a backup (a full reload): time until a signed request shows the change, the server's CPU, its longest event-loop pause
 *   (`nodejs_eventloop_lag_max_seconds`, perf_hooks' monitorEventLoopDelay, reset by each scrape), the probe's
 *   slowest request (a signed request every 5 ms for a random merchant throughout), and full reloads
 *   (`gateway_catalogue_reloads`).
 *
 * Prints a table; saves bench/results/<date>-merchants.{md,json}.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import pg from 'pg';
import { bootData } from '../src/app/boot.js';
import { generateKey } from '../src/modules/auth/keys.js';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { DATABASE_FILE } from '../src/storage/index.js';
import { missingLocalServices, startPostgres, type LocalService } from '../scripts/lib/local-services.js';
import { BENCH_LIMITS, cpuMs, npmStartArgs, sleep, startProcess, stopProcess, type ServerProcess } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
};
const QUICK = argv.includes('--quick');
const SIZES = (opt('merchants') ?? (QUICK ? '1000' : '1000,10000,100000')).split(',').map(Number);
const ENGINES = (opt('engine') ?? 'both') === 'both' ? (['sqlite', 'postgres'] as const) : ([opt('engine')] as ('sqlite' | 'postgres')[]);
const MASTER_KEY = 'ab'.repeat(32);
const SAMPLE = 200;
/** `--node-options "…"`: V8/Node flags for the replica (e.g. a young-generation bound), reported with the results. */
const NODE_FLAGS = opt('node-options') ?? '';
/** `--suffix NAME`: results go to bench/results/<date>-merchants…-NAME.{md,json} (earlier runs of the day are kept). */
const SUFFIX = opt('suffix');
/** `--keep`: leave the data sets and server logs in the temp directory (printed), for a closer look. */
const KEEP = argv.includes('--keep');

interface Creds {
  merchantId: string;
  apiKey: string;
  apiSecret: string;
}

/** Writes SQL to the data set's database, as another process (the CLI, an operator) would. */
interface Writer {
  exec(sql: string, params?: unknown[]): Promise<void>;
  rows<T>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * A SQLite writer in a worker thread: its synchronous statements (and checkpoints) must not hold this
 * process's event loop, or the probe would time the bench instead of the server.
 */
function sqliteWriter(dataDir: string, checkpoint = false): Writer {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const Database = require(workerData.module);
     const db = new Database(workerData.file);
     db.pragma('busy_timeout = 5000');
     parentPort.on('message', ({ id, sql, params, all, close }) => {
       if (close) { db.close(); parentPort.postMessage({ id }); return; }
       try {
         const st = db.prepare(sql);
         const out = all ? st.all(...params) : (st.run(...params), null);
         if (workerData.checkpoint && !all) db.pragma('wal_checkpoint(PASSIVE)');
         parentPort.postMessage({ id, out });
       } catch (err) { parentPort.postMessage({ id, error: String(err) }); }
     });`,
    { eval: true, workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file: path.join(dataDir, DATABASE_FILE), checkpoint } },
  );
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  worker.on('message', (m: { id: number; out?: unknown; error?: string }) => {
    const w = waiting.get(m.id)!;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(m.error));
    else w.resolve(m.out);
  });
  const call = (msg: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...msg });
    });
  const q = (sql: string) => sql.replace(/\$\d+/g, '?');
  return {
    exec: async (sql, params = []) => void (await call({ sql: q(sql), params })),
    rows: async <T>(sql: string, params: unknown[] = []) => (await call({ sql: q(sql), params, all: true })) as T[],
    close: async () => {
      await call({ close: true });
      await worker.terminate();
    },
  };
}

async function pgWriter(url: string): Promise<Writer> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    exec: async (sql, params = []) => void (await client.query(sql, params)),
    rows: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[],
    close: () => client.end(),
  };
}

/**
 * N merchants with one key each, every demo channel enabled, 5 % with a fee override on one channel and
 * 5 % with a merchant fee rule; a CATEGORY rule for `micro` on qris (what the k-merchant phase moves to).
 */
async function build(engine: 'sqlite' | 'postgres', dataDir: string, url: string | null, n: number): Promise<{ creds: Creds[]; ms: number }> {
  const started = Date.now();
  const data = await bootData({ dataDir, masterKey: Buffer.from(MASTER_KEY, 'hex'), seedDemoData: true, databaseUrl: url }, { watch: false });
  const box = data.secretBox;
  await data.store.close();
  const creds: Creds[] = [];
  const every = Math.max(1, Math.floor(n / SAMPLE));
  const now = new Date().toISOString();
  const rows = { merchants: [] as string[][], keys: [] as string[][], enable: [] as (string | null)[][], rules: [] as string[][] };
  const w: Writer = engine === 'sqlite' ? sqliteWriter(dataDir) : await pgWriter(url!);
  const channels = (await w.rows<{ id: string; code: string }>('select id, code from channels order by sort_order')).map((c) => c);
  const qris = channels.find((c) => c.code === 'qris')!.id;
  const flush = async () => {
    if (engine === 'sqlite') {
      const db = new Database(path.join(dataDir, DATABASE_FILE));
      const im = db.prepare("insert into merchants (id, name, kyc_status, category) values (?, ?, 'approved', 'regular')");
      const ik = db.prepare("insert into api_keys (id, merchant_id, mode, secret_ciphertext) values (?, ?, 'test', ?)");
      const ie = db.prepare('insert into merchant_channels (merchant_id, channel_id, fee_percentage) values (?, ?, ?)');
      const ir = db.prepare("insert into fee_rules (id, channel_id, scope, merchant_id, bands, effective_from) values (?, ?, 'MERCHANT', ?, ?, ?)");
      db.transaction(() => {
        for (const r of rows.merchants) im.run(r[0], r[1]);
        for (const r of rows.keys) ik.run(...r);
        for (const r of rows.enable) ie.run(...r);
        for (const r of rows.rules) ir.run(...r);
      })();
      db.close();
    } else {
      const cols = <T>(list: T[][], i: number) => list.map((r) => r[i]);
      await w.exec('begin');
      await w.exec("insert into merchants (id, name, kyc_status, category) select a, b, 'approved', 'regular' from unnest($1::text[], $2::text[]) as t(a, b)", [cols(rows.merchants, 0), cols(rows.merchants, 1)]);
      await w.exec("insert into api_keys (id, merchant_id, mode, secret_ciphertext) select a, b, 'test', c from unnest($1::text[], $2::text[], $3::text[]) as t(a, b, c)", [cols(rows.keys, 0), cols(rows.keys, 1), cols(rows.keys, 2)]);
      await w.exec('insert into merchant_channels (merchant_id, channel_id, fee_percentage) select a, b, c from unnest($1::text[], $2::text[], $3::text[]) as t(a, b, c)', [cols(rows.enable, 0), cols(rows.enable, 1), cols(rows.enable, 2)]);
      await w.exec("insert into fee_rules (id, channel_id, scope, merchant_id, bands, effective_from) select a, b, 'MERCHANT', c, d, e from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) as t(a, b, c, d, e)", [
        cols(rows.rules, 0),
        cols(rows.rules, 1),
        cols(rows.rules, 2),
        cols(rows.rules, 3),
        cols(rows.rules, 4),
      ]);
      await w.exec('commit');
    }
    rows.merchants = [];
    rows.keys = [];
    rows.enable = [];
    rows.rules = [];
  };
  if (engine === 'postgres') for (const t of ['merchants', 'api_keys', 'merchant_channels', 'fee_rules']) await w.exec(`alter table ${t} disable trigger user`);
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const key = generateKey('test');
    rows.merchants.push([id, `Bench Merchant ${i}`]);
    rows.keys.push([key.apiKey, id, box.encrypt(key.apiKey, key.apiSecret)]);
    for (const [j, c] of channels.entries()) rows.enable.push([id, c.id, i % 20 === 1 && j === 1 ? '1.1' : null]);
    if (i % 20 === 2) rows.rules.push([randomUUID(), qris, id, '[{"upTo":null,"percentage":"0.5","fixed":"0"}]', now]);
    if (i % every === 0 && creds.length < SAMPLE) creds.push({ merchantId: id, apiKey: key.apiKey, apiSecret: key.apiSecret });
    if (rows.merchants.length >= 5000) await flush();
  }
  await flush();
  if (engine === 'postgres') for (const t of ['merchants', 'api_keys', 'merchant_channels', 'fee_rules']) await w.exec(`alter table ${t} enable trigger user`);
  await w.exec("insert into fee_rules (id, channel_id, scope, category, bands, effective_from) values ($1, $2, 'CATEGORY', 'micro', '[{\"upTo\":null,\"percentage\":\"0.3\",\"fixed\":\"0\"}]', $3)", [randomUUID(), qris, now]);
  if (engine === 'postgres') await w.exec('analyze');
  await w.close();
  return { creds, ms: Date.now() - started };
}

/** VmRSS / VmHWM of a process, MB. */
function memory(pid: number): { rss: number; peak: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

class Probe {
  readonly latencies: { at: number; ms: number }[] = [];
  #running = true;
  readonly #done: Promise<void>;
  constructor(
    private readonly base: string,
    private readonly creds: Creds[],
  ) {
    this.#done = this.#loop();
  }
  async #loop(): Promise<void> {
    while (this.#running) {
      const c = this.creds[Math.floor(Math.random() * this.creds.length)]!;
      const t = performance.now();
      try {
        await get(this.base, c);
      } catch {
        // counted as slow: the latency below includes the failure's time
      }
      this.latencies.push({ at: Date.now(), ms: performance.now() - t });
      await sleep(5);
    }
  }
  slowest(from: number, to: number): number {
    return Math.max(0, ...this.latencies.filter((l) => l.at >= from && l.at <= to).map((l) => l.ms));
  }
  p99(from: number, to: number): number {
    const list = this.latencies
      .filter((l) => l.at >= from && l.at <= to)
      .map((l) => l.ms)
      .sort((a, b) => a - b);
    return list[Math.floor(list.length * 0.99)] ?? 0;
  }
  stop(): Promise<void> {
    this.#running = false;
    return this.#done;
  }
}

async function get(base: string, c: Creds): Promise<{ code: string; fee_info: { fee_percentage: number } }[]> {
  const target = '/v1/payments/channel';
  const res = await fetch(base + target, { headers: signatureHeaders(c.apiKey, c.apiSecret, { method: 'GET', target, body: Buffer.alloc(0) }) });
  if (res.status !== 200) throw new Error(`GET ${target}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { code: string; fee_info: { fee_percentage: number } }[] }).data;
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

interface Phase {
  phase: string;
  visibleMs: number;
  cpuMs: number;
  maxPauseMs: number;
  slowestProbeMs: number;
  reloads: number;
}

/** Run `change`, then wait until `visible()` holds; measure the server meanwhile. */
async function phase(server: ServerProcess, base: string, probe: Probe, name: string, change: () => Promise<void>, visible: () => Promise<boolean>): Promise<Phase> {
  await metric(base, 'nodejs_eventloop_lag_max_seconds'); // resets the histogram
  const reloadsBefore = await metric(base, 'gateway_catalogue_reloads');
  const cpu0 = cpuMs(server.child.pid!);
  const from = Date.now();
  await change();
  let visibleMs = NaN;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (await visible()) {
      visibleMs = Date.now() - from;
      break;
    }
    await sleep(10);
  }
  await sleep(300); // the rest of the catch-up (slices after the first visible one) counts too
  const cpu = cpuMs(server.child.pid!) - cpu0;
  const pause = (await metric(base, 'nodejs_eventloop_lag_max_seconds')) * 1000;
  return { phase: name, visibleMs, cpuMs: cpu, maxPauseMs: pause, slowestProbeMs: probe.slowest(from, Date.now()), reloads: (await metric(base, 'gateway_catalogue_reloads')) - reloadsBefore };
}

interface Result {
  engine: string;
  merchants: number;
  buildMs: number;
  bootMs: number;
  rssBootMb: number;
  rssSteadyMb: number;
  rssPeakMb: number;
  idleP99Ms: number;
  /** Median time to read one merchant's rows from another connection (four indexed reads). */
  coldReadMs: number;
  phases: Phase[];
}

async function run(engine: 'sqlite' | 'postgres', n: number, pgService: LocalService | null, tmp: string): Promise<Result> {
  const dataDir = fs.mkdtempSync(path.join(tmp, `${engine}-${n}-`));
  let url: string | null = null;
  if (pgService) {
    const db = `bench_${n}_${Date.now() % 100000}`;
    const admin = new pg.Client({ connectionString: pgService.url });
    await admin.connect();
    await admin.query(`create database ${db}`);
    await admin.end();
    url = pgService.url.replace(/\/[^/]+$/, `/${db}`);
  }
  const { creds, ms: buildMs } = await build(engine, dataDir, url, n);
  const started = Date.now();
  const server = await startProcess({
    args: npmStartArgs(ROOT),
    cwd: ROOT,
    env: { ...(NODE_FLAGS ? { NODE_OPTIONS: NODE_FLAGS } : {}), NODE_ENV: 'production', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', MASTER_KEY, LOG_LEVEL: 'warn', ...BENCH_LIMITS, ...(url ? { DATABASE_URL: url } : {}) },
    logFile: path.join(tmp, `${engine}-${n}.log`),
    label: `${engine} ${n}`,
    // Reported as the boot time; a start slower than this is a failed result of its own.
    timeoutMs: 120_000,
  });
  const base = `http://127.0.0.1:${server.port}`;
  try {
    while ((await fetch(`${base}/ready`).catch(() => null))?.status !== 200) await sleep(20);
    const bootMs = Date.now() - started;
    const rssBootMb = memory(server.child.pid!).rss;
    const probe = new Probe(base, creds);
    await sleep(5000);
    const rssSteadyMb = memory(server.child.pid!).rss;
    const idleP99Ms = probe.p99(Date.now() - 4000, Date.now());
    const w: Writer = engine === 'sqlite' ? sqliteWriter(dataDir) : await pgWriter(url!);
    const phases: Phase[] = [];
    const one = creds[0]!;
    const feeOf = async (c: Creds, code: string) => (await get(base, c)).find((x) => x.code === code)?.fee_info.fee_percentage;
    const nowText = () => new Date().toISOString();
    // What the event loop does without any change (the probe, timers, collections): the floor of every pause below.
    phases.push(await phase(server, base, probe, 'nothing changed (1 s of the probe)', async () => void (await sleep(1000)), () => Promise.resolve(true)));
    phases.push(
      await phase(server, base, probe, 'one merchant (override dated now)', () => w.exec("update merchant_channels set fee_percentage = '2.2', fee_set_at = $1 where merchant_id = $2 and channel_id = (select id from channels where code = 'ovo')", [nowText(), one.merchantId]), async () => (await feeOf(one, 'ovo')) === 2.2),
    );
    phases.push(await phase(server, base, probe, 'a channel for all', () => w.exec("update channels set fee_percentage = '1.7', fee_set_at = $1 where code = 'dana'", [nowText()]), async () => (await feeOf(creds[creds.length - 1]!, 'dana')) === 1.7));
    for (const k of [1000, 10000].filter((k) => k <= n)) {
      // The sampled merchants are spread over the whole set: the k first ids (by id) hold some of them.
      const ids = (await w.rows<{ id: string }>('select id from merchants order by id limit $1', [k])).map((r) => r.id);
      const inSet = new Set(ids);
      const watched = creds.filter((c) => inSet.has(c.merchantId)).slice(-5);
      const last = ids[ids.length - 1]!;
      phases.push(
        await phase(
          server,
          base,
          probe,
          `${k} merchants, one SQL UPDATE`,
          () => w.exec("update merchants set category = 'micro' where id <= $1", [last]),
          async () => {
            for (const c of watched) if ((await feeOf(c, 'qris')) !== 0.3) return false;
            return watched.length > 0;
          },
        ),
      );
    }
    if (engine === 'sqlite') {
      const cw = sqliteWriter(dataDir, true);
      const target = creds[1]!;
      phases.push(
        await phase(
          server,
          base,
          probe,
          '50 CLI writes, each checkpointed',
          async () => {
            for (let i = 0; i < 50; i++) await cw.exec('update merchants set name = $1 where id = $2', [`Renamed ${i}`, creds[2 + (i % 100)]!.merchantId]);
            await cw.exec("update merchant_channels set fee_percentage = '3.3' where merchant_id = $1 and channel_id = (select id from channels where code = 'ovo')", [target.merchantId]);
          },
          async () => (await feeOf(target, 'ovo')) === 3.3,
        ),
      );
      await cw.close();
      // The database restored from a backup while serving: a full reload, read a page per turn beside the live catalogue.
      // Seen through the API (a /metrics scrape would reset the event-loop delay the phase reports).
      const file = path.join(dataDir, DATABASE_FILE);
      const backup = path.join(dataDir, 'backup.db');
      await w.exec(`vacuum into '${backup}'`);
      const backedUp = await feeOf(target, 'ovo');
      phases.push(
        await phase(
          server,
          base,
          probe,
          'database restored from a backup (full reload)',
          async () => {
            // A change after the backup, seen and moved into the file: the restored file lacks the row applied last.
            await w.exec("update merchant_channels set fee_percentage = '4.4' where merchant_id = $1 and channel_id = (select id from channels where code = 'ovo')", [target.merchantId]);
            while ((await feeOf(target, 'ovo')) !== 4.4) await sleep(10);
            await w.rows('pragma wal_checkpoint(TRUNCATE)');
            await fs.promises.rm(file);
            await fs.promises.copyFile(backup, file);
          },
          async () => (await feeOf(target, 'ovo')) === backedUp,
        ),
      );
    }
    // A cold merchant's rows, as a working-set catalogue would read them on a first request (docs/ARCHITECTURE.md).
    const cold: number[] = [];
    for (const c of creds.slice(0, 50)) {
      const t0 = performance.now();
      await w.rows('select * from merchants where id = $1', [c.merchantId]);
      await w.rows('select * from api_keys where merchant_id = $1', [c.merchantId]);
      await w.rows('select * from merchant_channels where merchant_id = $1', [c.merchantId]);
      await w.rows("select * from fee_rules where merchant_id = $1 and scope = 'MERCHANT'", [c.merchantId]);
      cold.push(performance.now() - t0);
    }
    const coldReadMs = cold.sort((a, b) => a - b)[Math.floor(cold.length / 2)]!;
    await w.close();
    await probe.stop();
    const rssPeakMb = memory(server.child.pid!).peak;
    return { engine, merchants: n, buildMs, bootMs, rssBootMb, rssSteadyMb, rssPeakMb, idleP99Ms, coldReadMs, phases };
  } finally {
    await stopProcess(server.child);
    if (!KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');

function table(results: Result[]): string {
  const out = ['| engine | merchants | build | boot | RSS boot / steady / peak (MB) | idle p99 | cold merchant read |', '|---|---:|---:|---:|---:|---:|---:|'];
  for (const r of results)
    out.push(`| ${r.engine} | ${r.merchants.toLocaleString('en')} | ${(r.buildMs / 1000).toFixed(1)} s | ${(r.bootMs / 1000).toFixed(2)} s | ${f0(r.rssBootMb)} / ${f0(r.rssSteadyMb)} / ${f0(r.rssPeakMb)} | ${r.idleP99Ms.toFixed(1)} ms | ${r.coldReadMs.toFixed(2)} ms |`);
  out.push('', '| engine | merchants | change | visible | server CPU | max event-loop pause | slowest probe | full reloads |', '|---|---:|---|---:|---:|---:|---:|---:|');
  for (const r of results) for (const p of r.phases) out.push(`| ${r.engine} | ${r.merchants.toLocaleString('en')} | ${p.phase} | ${f0(p.visibleMs)} ms | ${f0(p.cpuMs)} ms | ${f0(p.maxPauseMs)} ms | ${f0(p.slowestProbeMs)} ms | ${p.reloads} |`);
  return out.join('\n');
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-merchants-'));
  const results: Result[] = [];
  const failures: string[] = [];
  let pgService: LocalService | null = null;
  try {
    for (const engine of ENGINES) {
      if (engine === 'postgres') {
        const missing = missingLocalServices(['postgres']);
        if (missing.length > 0) {
          console.error(`skipping Postgres: ${missing.join('; ')}`);
          continue;
        }
        pgService = await startPostgres();
      }
      for (const n of SIZES) {
        try {
          const r = await run(engine, n, pgService, tmp);
          results.push(r);
          console.log(table([r]));
        } catch (err) {
          // A replica that does not start (or a phase that fails) is a result too; the other sizes still run.
          failures.push(`${engine} ${n}: ${(err as Error).message.split('\n')[0]}`);
          console.error(failures[failures.length - 1]);
        }
        save(results, failures);
      }
      await pgService?.stop();
      pgService = null;
    }
  } finally {
    await pgService?.stop();
    if (KEEP) console.log(`kept: ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
  // The catalogue's heap per merchant, measured apart from any server (bench/catalogue-footprint.ts).
  const footprint = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/catalogue-footprint.ts', String(Math.max(...SIZES))], { cwd: ROOT, encoding: 'utf8' }).trim();
  save(results, failures, footprint);
  console.log(`\n${table(results)}\n${failures.join('\n')}\n${footprint}`);
}

/** Write what was measured so far to bench/results/<date>-merchants….{md,json} (after every size: a later failure loses nothing). */
function save(results: Result[], failures: string[], footprint = ''): void {
  const date = new Date().toISOString().slice(0, 10);
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const stem = path.join(ROOT, 'bench/results', `${date}-merchants${QUICK ? '-quick' : ''}${ENGINES.length === 1 ? `-${ENGINES[0]}` : ''}${NODE_FLAGS ? '-flags' : ''}${SUFFIX ? `-${SUFFIX}` : ''}`);
  const notes = [failures.length ? `Failed: ${failures.join('; ')}` : '', footprint ? `Catalogue heap (bench/catalogue-footprint.ts): ${footprint}` : ''].filter(Boolean).join('\n\n');
  fs.writeFileSync(
    `${stem}.md`,
    `# bench:merchants ${new Date().toISOString()}\n\nMachine: ${os.cpus().length} cores, load average ${load}. Replica: \`node ${npmStartArgs(ROOT).join(' ')}\`${NODE_FLAGS ? `, NODE_OPTIONS \`${NODE_FLAGS}\`` : ''}.\n\n${table(results)}\n\n${notes}\n`,
  );
  fs.writeFileSync(`${stem}.json`, JSON.stringify({ at: new Date().toISOString(), load, startArgs: npmStartArgs(ROOT), nodeFlags: NODE_FLAGS, results, failures, footprint }, null, 2));
}

await main();
