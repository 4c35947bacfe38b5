/**
 * `npm run bench:streams` (never part of `npm test`): contract §8b on one replica.
 *
 * Runs the real server as `npm start` runs it (the bundle dist/main.mjs, built first; default SQLite, then
 * DATABASE_URL Postgres, then WORKERS=2) and a floor server (bench/servers/stream-floor.ts: plain node:http
 * writing one pre-serialised event to every stream) in one run. The pages are held by load-generating child
 * processes (bench/streams/load.ts, at most PAGES_PER_CHILD each: a process may hold 20,000 descriptors here).
 *
 * For each case it reports:
 * - opening: pages opened per second (checkout session verified, first event delivered), and the CPU per page
 *   opened of the server and of the load-generating children (on 2 shared cores they compete: the server's
 *   CPU per open is what bounds the rate of a replica with a core to itself);
 * - from the commit (a direct write to the database by this process, as the admin CLI or another replica
 *   would, seen by the server only through its change feed) to each page's event: p50, p99, slowest;
 * - server memory per open stream (resident set after opening minus before, over the pages);
 * - server CPU for the one change (all its processes, /proc), and the floor's for the same pages.
 *
 * Cases: "component" (each page runs the checkout component's own subscription with its own amount) and
 * "code status" (`{ code status }`, one amount for every page).
 *
 * Usage: npm run bench:streams -- [--pages 15000] [--only sqlite,postgres,workers2] [--cases component,codeStatus] [--open-concurrency 64] [--cpu-prof DIR] [--node-flags "FLAGS"]
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { missingLocalServices, startPostgres } from '../scripts/lib/local-services.js';
import { BENCH_LIMITS, cpuMs, rssMb, sleep, startProcess, stopProcess, type ServerProcess } from './processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const PAGES = Number(arg('pages') ?? 15_000);
const ONLY = (arg('only') ?? 'sqlite,postgres,workers2').split(',');
const CASES = (arg('cases') ?? 'component,codeStatus').split(',');
const PAGES_PER_CHILD = 5_000;
/** Opens in flight per load-generating child (`--open-concurrency N`). */
const OPEN_CONCURRENCY = Number(arg('open-concurrency') ?? 64);
/** `--node-flags "FLAGS"`: extra flags of the project server's `node` (diagnosis, e.g. V8 heap sizes). */
const NODE_FLAGS = (arg('node-flags') ?? '').split(' ').filter(Boolean);
/** `--cpu-prof DIR`: the project server writes a V8 CPU profile there (diagnosis). */
const PROF_DIR = arg('cpu-prof') ? path.resolve(arg('cpu-prof')!) : null;
/** How long the pages wait for the change's event (a loaded shared machine is slow; a page missing it is reported). */
const CHANGE_TIMEOUT_MS = 60_000;
/**
 * Changes timed per case (`--changes N`, default 3). One change's CPU and latency move by up to 50 % from one
 * to the next on this shared machine (the floor's too), so each row gives the median of N changes, the
 * slowest page of all of them, and every change's CPU.
 */
const CHANGES = Number(arg('changes') ?? 3);

/** The checkout component's own subscription (src/client/checkout/payment-checkout.ts). */
const COMPONENT = `subscription Channels($amount: Decimal!) {
  paymentChannelsChanged { code name imageUrl status availability { selectable reasons } fee(amount: $amount) { amount totalAmount customerFee merchantFee currency } }
}`;
const CODE_STATUS = 'subscription { paymentChannelsChanged { code status } }';

interface Creds {
  merchantId: string;
  apiKey: string;
  apiSecret: string;
  kyc: string;
}

interface Row {
  server: string;
  case: string;
  pages: number;
  openPerSecond: number;
  /** Server CPU per page opened (all its processes), µs: what bounds the opening rate of a replica with a core to itself. */
  openCpuUs: number;
  /** The load-generating children's CPU per page opened, µs (they share the machine's 2 cores with the server). */
  clientCpuUs: number;
  /** Medians over the changes. */
  p50: number;
  p99: number;
  slowest: number;
  /** The slowest page of all the changes. */
  slowestOfAll: number;
  missing: number;
  kbPerStream: number;
  /** Median over the changes, and each change's. */
  cpuMs: number;
  cpuEach: number[];
  eventBytes: number;
  failures: number;
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
const cpuOf = (s: ServerProcess): number => s.pids().reduce((sum, pid) => sum + cpuMs(pid), 0);
const rssOf = (s: ServerProcess): number => s.pids().reduce((sum, pid) => sum + rssMb(pid), 0);

/** Children holding the pages. */
class Pages {
  readonly children: ChildProcess[] = [];
  static async start(count: number): Promise<Pages> {
    const p = new Pages();
    for (let i = 0; i < Math.ceil(count / PAGES_PER_CHILD); i++) {
      const child = fork(path.join(ROOT, 'bench/streams/load.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      await new Promise<void>((resolve) => child.once('message', () => resolve()));
      p.children.push(child);
    }
    return p;
  }
  #ask<T>(child: ChildProcess, message: unknown, type: string): Promise<T> {
    return new Promise((resolve) => {
      const on = (m: { type: string }) => {
        if (m.type !== type) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
      child.send(message as never);
    });
  }
  /** Open every request (spread over the children); the time each page's first event arrived. */
  async open(port: number, requests: { headers: Record<string, string>; body: string }[]): Promise<{ first: number[]; failures: number; clientCpuMs: number }> {
    const shares = this.children.map((_, i) => requests.filter((__, j) => j % this.children.length === i));
    const answers = await Promise.all(this.children.map((c, i) => this.#ask<{ first: number[]; failures: number; cpuMs: number }>(c, { type: 'open', port, path: '/graphql', requests: shares[i], concurrency: OPEN_CONCURRENCY }, 'opened')));
    return { first: answers.flatMap((a) => a.first), failures: answers.reduce((s, a) => s + a.failures, 0), clientCpuMs: answers.reduce((s, a) => s + a.cpuMs, 0) };
  }
  arm(): Promise<{ times: number[]; bytes: number; missing: number }[]> {
    return Promise.all(this.children.map((c) => this.#ask<{ times: number[]; bytes: number; missing: number }>(c, { type: 'arm', timeoutMs: CHANGE_TIMEOUT_MS }, 'arrived')));
  }
  async close(): Promise<void> {
    await Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((resolve) => {
            c.once('exit', () => resolve());
            c.send({ type: 'close' });
            setTimeout(() => c.kill('SIGKILL'), 5000).unref();
          }),
      ),
    );
  }
}

async function createSessions(port: number, creds: Creds, amounts: number[]): Promise<string[]> {
  const secrets: string[] = new Array(amounts.length);
  let next = 0;
  const worker = async () => {
    while (next < amounts.length) {
      const i = next++;
      const body = JSON.stringify({ merchantId: creds.merchantId, amount: amounts[i], currency: 'IDR', expiresInSeconds: 3600, reference: `page-${i}` });
      const target = '/v1/checkout/sessions';
      const res = await fetch(`http://127.0.0.1:${port}${target}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...signatureHeaders(creds.apiKey, creds.apiSecret, { method: 'POST', target, body }) } });
      if (res.status !== 201) throw new Error(`session creation: ${res.status} ${await res.text()}`);
      secrets[i] = ((await res.json()) as { clientSecret: string }).clientSecret;
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return secrets;
}

/** One change as the pages saw it: each page's event time (epoch ms), the event's size, pages that missed it. */
type Arrived = { times: number[]; bytes: number; missing: number }[];
interface Change {
  arrived: Arrived;
  t0: number;
  cpuMs: number;
}

/** Time `CHANGES` changes, one after the other: each committed, then every page's event and the server's CPU. */
async function timeChanges(pages: Pages, cpu: () => number, commit: () => Promise<void>): Promise<Change[]> {
  const out: Change[] = [];
  for (let n = 0; n < CHANGES; n++) {
    if (n > 0) await sleep(1500);
    const cpu0 = cpu();
    const armed = pages.arm();
    await sleep(100);
    const t0 = performance.timeOrigin + performance.now();
    await commit();
    const arrived = await armed;
    out.push({ arrived, t0, cpuMs: cpu() - cpu0 });
  }
  return out;
}

/** One measured run of the project: open the pages, commit the changes, time every page's events. */
async function runProject(label: string, server: ServerProcess, creds: Creds, commit: () => Promise<void>, kase: string): Promise<Row> {
  const amounts = Array.from({ length: PAGES }, (_, i) => (kase === 'component' ? 10_000 + i * 7 : 150_000));
  const secrets = await createSessions(server.port, creds, amounts);
  const requests = secrets.map((secret, i) => ({
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(kase === 'component' ? { query: COMPONENT, variables: { amount: amounts[i] } } : { query: CODE_STATUS }),
  }));
  const pages = await Pages.start(PAGES);
  try {
    await sleep(500);
    const rssBefore = rssOf(server);
    const openCpu0 = cpuOf(server);
    const openStart = performance.timeOrigin + performance.now();
    const opened = await pages.open(server.port, requests);
    const lastFirst = Math.max(...opened.first);
    const openPerSecond = opened.first.length / ((lastFirst - openStart) / 1000);
    const openCpu = { server: cpuOf(server) - openCpu0, clients: opened.clientCpuMs };
    await sleep(2000);
    const rssAfter = rssOf(server);
    const changes = await timeChanges(pages, () => cpuOf(server), commit);
    return summarise(label, kase, opened, openPerSecond, openCpu, changes, (rssAfter - rssBefore) * 1024);
  } finally {
    await pages.close();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? NaN;

function summarise(label: string, kase: string, opened: { first: number[]; failures: number }, openPerSecond: number, openCpu: { server: number; clients: number }, changes: Change[], rssDeltaKb: number): Row {
  const perPage = (ms: number) => Math.round((ms * 1000) / Math.max(1, opened.first.length));
  const each = changes.map((c) => {
    const lat = c.arrived.flatMap((a) => a.times.map((t) => t - c.t0)).sort((a, b) => a - b);
    return { p50: pct(lat, 50), p99: pct(lat, 99), slowest: lat.at(-1) ?? NaN, missing: c.arrived.reduce((s, a) => s + a.missing, 0) };
  });
  return {
    server: label,
    case: kase,
    pages: opened.first.length,
    openPerSecond: Math.round(openPerSecond),
    openCpuUs: perPage(openCpu.server),
    clientCpuUs: perPage(openCpu.clients),
    p50: Math.round(median(each.map((e) => e.p50))),
    p99: Math.round(median(each.map((e) => e.p99))),
    slowest: Math.round(median(each.map((e) => e.slowest))),
    slowestOfAll: Math.round(Math.max(...each.map((e) => e.slowest))),
    missing: Math.max(...each.map((e) => e.missing)),
    kbPerStream: Math.round((rssDeltaKb / Math.max(1, opened.first.length)) * 10) / 10,
    cpuMs: median(changes.map((c) => c.cpuMs)),
    cpuEach: changes.map((c) => c.cpuMs),
    eventBytes: changes.flatMap((c) => c.arrived).find((a) => a.bytes > 0)?.bytes ?? 0,
    failures: opened.failures,
  };
}

async function runFloor(tmp: string, kase: string, eventBytes: number): Promise<Row> {
  const server = await startProcess({ args: ['--import', 'tsx', 'bench/servers/stream-floor.ts'], cwd: ROOT, env: { FLOOR_EVENT_BYTES: String(eventBytes) }, logFile: path.join(tmp, `floor-${kase}.log`), label: 'floor' });
  const pages = await Pages.start(PAGES);
  try {
    await sleep(500);
    const rssBefore = rssOf(server);
    const openCpu0 = cpuOf(server);
    const openStart = performance.timeOrigin + performance.now();
    const opened = await pages.open(server.port, Array.from({ length: PAGES }, () => ({ headers: { 'content-type': 'application/json' }, body: '{}' })));
    const openPerSecond = opened.first.length / ((Math.max(...opened.first) - openStart) / 1000);
    const openCpu = { server: cpuOf(server) - openCpu0, clients: opened.clientCpuMs };
    await sleep(2000);
    const rssAfter = rssOf(server);
    const changes = await timeChanges(pages, () => cpuOf(server), async () => void (await fetch(`http://127.0.0.1:${server.port}/change`, { method: 'POST' })));
    return summarise('floor (node:http, one pre-serialised event)', kase, opened, openPerSecond, openCpu, changes, (rssAfter - rssBefore) * 1024);
  } finally {
    await pages.close();
    await stopProcess(server.child);
  }
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-bench-streams-'));
  const rows: Row[] = [];
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(', ');
  const loadBefore = load();
  try {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    const configs: { name: string; env: Record<string, string>; postgres?: boolean }[] = [];
    if (ONLY.includes('sqlite')) configs.push({ name: 'project, SQLite', env: {} });
    if (ONLY.includes('postgres')) {
      const missing = missingLocalServices(['postgres']);
      if (missing.length) process.stderr.write(`bench:streams: Postgres skipped (${missing.join('; ')})\n`);
      else configs.push({ name: 'project, Postgres', env: {}, postgres: true });
    }
    if (ONLY.includes('workers2')) configs.push({ name: 'project, SQLite, WORKERS=2', env: { WORKERS: '2' } });
    const eventBytes: Record<string, number> = {};
    for (const config of configs) {
      const postgres = config.postgres ? await startPostgres() : undefined;
      // A fresh database per configuration: its first change is a real one. Toggled per change: a
      // configuration's cases share its database, and a change that changes nothing sends nothing.
      let toggles = 0;
      try {
        for (const kase of CASES) {
          // One data directory per server configuration: its master key must match its database (Postgres outlives a case).
          const dataDir = path.join(tmp, config.name.replace(/\W+/g, '-'));
          const env: Record<string, string> = {
            NODE_ENV: 'production',
            DATA_DIR: dataDir,
            PORT: '0',
            HOST: '127.0.0.1',
            ...BENCH_LIMITS,
            MAX_OPEN_STREAMS: String(PAGES + 100),
            ...config.env,
            ...(postgres ? { DATABASE_URL: postgres.url } : {}),
          };
          const server = await startProcess({ args: [...NODE_FLAGS, ...(PROF_DIR ? ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${PROF_DIR}`] : []), 'dist/main.mjs'], cwd: ROOT, env, logFile: path.join(tmp, `${config.name.replace(/\W+/g, '-')}-${kase}.log`), label: config.name });
          let sql: { exec(s: string): Promise<void>; close(): Promise<void> } | undefined;
          try {
            const creds = (JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: Creds[] }).merchants.find((m) => m.kyc === 'approved')!;
            if (postgres) {
              const pool = new pg.Pool({ connectionString: postgres.url, max: 1 });
              sql = { exec: async (s) => void (await pool.query(s)), close: () => pool.end() };
            } else {
              const db = new Database(path.join(dataDir, 'gateway.db'));
              db.pragma('busy_timeout = 5000');
              sql = { exec: (s) => Promise.resolve(void db.exec(s)), close: () => Promise.resolve(void db.close()) };
            }
            const commit = () => sql!.exec(`update channels set status = '${++toggles % 2 ? 'maintenance' : 'active'}' where code = 'qris'`);
            const row = await runProject(config.name, server, creds, commit, kase);
            rows.push(row);
            eventBytes[kase] = row.eventBytes;
            process.stderr.write(`${JSON.stringify(row)}\n`);
          } finally {
            await sql?.close();
            await stopProcess(server.child);
          }
        }
      } finally {
        await postgres?.stop();
      }
    }
    for (const kase of CASES) {
      const row = await runFloor(tmp, kase, eventBytes[kase] ?? 3000);
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const loadAfter = load();
  const lines = [
    `bench:streams — ${new Date().toISOString()}, ${PAGES} pages, ${CHANGES} changes per case (medians; slowest of all), ${os.cpus().length} CPUs, load average before ${loadBefore}, after ${loadAfter}`,
    '',
    '| server | case | pages | opened per s | server CPU per open, µs | clients\' CPU per open, µs | p50 ms | p99 ms | slowest ms | slowest of all, ms | missed | KB per stream | server CPU for a change, ms (each) | event bytes |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.server} | ${r.case === 'component' ? 'component, own amount' : '{ code status }, one amount'} | ${r.pages}${r.failures ? ` (${r.failures} failed)` : ''} | ${r.openPerSecond} | ${r.openCpuUs} | ${r.clientCpuUs} | ${r.p50} | ${r.p99} | ${r.slowest} | ${r.slowestOfAll} | ${r.missing} | ${r.kbPerStream} | ${r.cpuMs} (${r.cpuEach.join(', ')}) | ${r.eventBytes} |`),
  ];
  const text = lines.join('\n') + '\n';
  process.stdout.write(text);
  fs.writeFileSync(path.join(ROOT, 'bench/results-streams.md'), text);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
