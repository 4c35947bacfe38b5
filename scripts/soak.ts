/**
 * `npm run soak [-- --short] [-- --duration 60 --concurrency 16]`: can the server's memory keep growing?
 *
 * Starts the real server (`src/main.ts` through tsx, temp DATA_DIR, PORT=0) with `--expose-gc` and an IPC
 * channel that only this script opens (SOAK_HEAP_PROBE=1, src/app/heap-probe.ts): on request the server runs a
 * full GC and reports its heap, so garbage is never mistaken for a leak (RSS is not a measure of either).
 *
 * 1. Per request kind, alone: REST list, REST calculate (a new amount each time), GraphQL with variables,
 *    GraphQL with the values written into the query text (a new document each time), bad signatures,
 *    malformed bodies, event-stream opens and closes, and requests spread over many keys. Each kind first
 *    sends enough requests to fill every cache it can reach (more than Yoga's 1,024 documents), then the
 *    measured requests in chunks, with the heap after a forced GC after each chunk. The slope of those
 *    readings (bytes per request) is the kind's growth; a kind whose heap grows by more than GROWTH_LIMIT
 *    over its measured requests "keeps growing" and fails the soak. Requests are counted, not timed: the
 *    verdict is about memory, never speed.
 * 2. Memory per key (keys created with the admin CLI's own service on the same DATA_DIR), per open event
 *    stream, and for full caches; request-log bytes per line. Printed for docs/OPERATIONS.md.
 * 3. The mixed run of every route with valid and invalid requests for `--duration` seconds: every status
 *    must be the one the contract demands.
 *
 * Exit code 1 when a kind keeps growing or any status was unexpected. `--short` (CI, .ci/run) is the same
 * with fewer requests per kind and a 5 s mixed run, about 80 s in all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { bootData } from '../src/app/boot.js';
import { loadConfig } from '../src/shared/config.js';
import { DEMO_CHANNELS, type DemoMerchantCredentials } from '../src/modules/admin/demo-seed.js';
import { AdminService } from '../src/modules/admin/service.js';

const { values } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    duration: { type: 'string' },
    concurrency: { type: 'string', default: '16' },
  },
});
const SHORT = values.short === true;
const DURATION_S = Number(values.duration ?? (SHORT ? 5 : 60));
const CONCURRENCY = Number(values.concurrency);
if (!(DURATION_S > 0) || !(CONCURRENCY > 0)) {
  process.stderr.write('usage: npm run soak -- [--short] [--duration SECONDS] [--concurrency N]\n');
  process.exit(2);
}
/** Requests per kind that fill its caches (Yoga's parse/validation caches hold 1,024 documents). */
const FILL = SHORT ? 5_000 : 25_000;
/**
 * Measured requests per kind, in MEASURE_CHUNKS chunks with a heap reading after each. The reading taken
 * right after the fill is shown but not fitted: it often stood 1–3 MB above the next ones (inline documents,
 * event streams), which would pull the slope down. Single readings scatter by ~1 MB; eight of them keep one
 * outlier from deciding the slope.
 */
const MEASURED = SHORT ? 10_000 : 60_000;
const MEASURE_CHUNKS = 8;
/**
 * A kind "keeps growing" when its heap after GC rose by more than this over its measured requests (the
 * least-squares slope × the measured count). Full fixed-size caches only replace entries. What does move is
 * bounded: the answer cache's doorkeeper holds up to 20,000 fingerprints of bodies asked once and is emptied
 * when full, so readings land anywhere on its sawtooth (steps of ~1 MB seen), plus ~0.5 MB of V8's own
 * bookkeeping. graphql-jit 0.8.7 left ~0.5 KB per inline-literal document: 5 MB per 10,000.
 */
const GROWTH_LIMIT = 2.5 * 2 ** 20;
/** Keys created for the many-keys kind (and to spread event streams, at most SUBSCRIPTIONS_PER_KEY each). */
const KEYS = SHORT ? 200 : 1_000;
/** Event streams held open at once to measure their memory. */
const OPEN_STREAMS = SHORT ? 200 : 1_000;

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** One kind of request and the status the contract demands for it. */
interface Scenario {
  name: string;
  expect: number;
  build(): { method: string; target: string; headers: Record<string, string>; body?: string };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MB`;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

interface SoakServer {
  baseUrl: string;
  /** Heap used after a full GC in the server. */
  heap(): Promise<number>;
  /** Request-log volume so far: bytes and lines the server wrote to stdout. */
  log: { bytes: number; lines: number };
  stop(): Promise<void>;
}

async function startServer(dataDir: string): Promise<SoakServer> {
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      SOAK_HEAP_PROBE: '1',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      AUTH_FAILURES_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const log = { bytes: 0, lines: 0 };
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let seen: string | null = '';
    child.stdout!.on('data', (d: Buffer) => {
      // One pino line per request keeps coming; the pipe is drained (and measured) for the whole run.
      log.bytes += d.length;
      for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) log.lines++;
      if (seen !== null) {
        seen += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(seen) ?? /"baseUrl":"(http:\/\/[^"]+)"[^\n]*"msg":"listening"/.exec(seen);
        if (m) {
          resolve(m[1]!);
          seen = null;
        }
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited early (${code})`)));
  });
  let nextId = 0;
  const waiting = new Map<number, (heapUsed: number) => void>();
  child.on('message', (m: { type?: string; id?: number; heapUsed?: number }) => {
    if (m.type === 'heap' && m.id !== undefined) waiting.get(m.id)?.(m.heapUsed!);
  });
  return {
    baseUrl,
    log,
    heap: () =>
      new Promise<number>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => reject(new Error('the server did not answer the heap probe (is src/app/heap-probe.ts installed?)')), 30_000);
        waiting.set(id, (h) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(h);
        });
        child.send({ type: 'heap', id });
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function scenarios(approved: DemoMerchantCredentials, pending: DemoMerchantCredentials): Scenario[] {
  const now = () => String(Math.floor(Date.now() / 1000));
  const signed = (method: string, target: string, body = '', who = approved, extra: Record<string, string> = {}) => ({
    method,
    target,
    body,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...signatureHeaders(who.apiKey, who.apiSecret, { method, target, body, timestamp: now() }), ...extra },
  });
  const calc = (input: Record<string, unknown>, who = approved) =>
    signed('POST', '/v1/payments/calculate', JSON.stringify({ currency: 'IDR', merchantId: who.merchantId, ...input }), who);
  const gql = (query: string, variables?: unknown) => signed('POST', '/graphql', JSON.stringify({ query, variables }));
  const active = DEMO_CHANNELS.filter((c) => c.status === 'active' && !c.requiresKyc);
  const down = DEMO_CHANNELS.filter((c) => c.status !== 'active');
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;
  const amountFor = (c: (typeof DEMO_CHANNELS)[number]) => Number(c.minAmount) + Math.floor(Math.random() * (Number(c.maxAmount) - Number(c.minAmount)));

  return [
    { name: 'REST list', expect: 200, build: () => signed('GET', '/v1/payments/channel') },
    { name: 'REST list (pending)', expect: 200, build: () => signed('GET', '/v1/payments/channel', '', pending) },
    { name: 'REST calculate', expect: 200, build: () => { const c = pick(active); return calc({ amount: amountFor(c), method: c.code.toUpperCase() }); } },
    { name: 'REST calculate QRIS', expect: 200, build: () => calc({ amount: 150000, method: 'QRIS', chargeFeeToCustomer: true }) },
    { name: 'REST out of range', expect: 422, build: () => calc({ amount: 1, method: pick(active).code }) },
    { name: 'REST unknown channel', expect: 404, build: () => calc({ amount: 50000, method: 'bitcoin' }) },
    { name: 'REST channel down', expect: 409, build: () => calc({ amount: 50000, method: pick(down).code }) },
    { name: 'REST KYC required', expect: 403, build: () => calc({ amount: 50000, method: 'qris' }, pending) },
    { name: 'REST other merchant', expect: 403, build: () => signed('POST', '/v1/payments/calculate', JSON.stringify({ amount: 50000, currency: 'IDR', method: 'ovo', merchantId: pending.merchantId })) },
    { name: 'REST bad JSON', expect: 400, build: () => signed('POST', '/v1/payments/calculate', '{"amount":') },
    { name: 'REST wrong type', expect: 400, build: () => calc({ amount: '150000', method: 'ovo' }) },
    { name: 'REST media type', expect: 415, build: () => signed('POST', '/v1/payments/calculate', 'amount=1', approved, { 'content-type': 'text/plain' }) },
    { name: 'REST method', expect: 405, build: () => signed('GET', '/v1/payments/calculate') },
    { name: 'REST too large', expect: 413, build: () => signed('POST', '/v1/payments/calculate', JSON.stringify({ pad: 'x'.repeat(110 * 1024) })) },
    { name: 'GraphQL list', expect: 200, build: () => gql('{ paymentChannels { code status feeInfo { feePercentage feeValue } } }') },
    { name: 'GraphQL calculate', expect: 200, build: () => { const c = pick(active); return gql('query($i: CalculateFeeInput!) { calculateFee(input: $i) { fee totalAmount getBalance } }', { i: { amount: amountFor(c), currency: 'IDR', method: c.code } }); } },
    { name: 'GraphQL GET', expect: 200, build: () => signed('GET', `/graphql?query=${encodeURIComponent('{ paymentChannels { code } }')}`) },
    { name: 'GraphQL syntax error', expect: 400, build: () => gql('{ paymentChannels { ') },
    { name: 'GraphQL unknown field', expect: 400, build: () => gql('{ paymentChannel { code } }') },
    { name: 'GraphQL alias limit', expect: 400, build: () => gql(`{ ${Array.from({ length: 20 }, (_, i) => `a${i}: paymentChannels { code }`).join(' ')} }`) },
    { name: 'GraphQL domain error', expect: 200, build: () => gql('{ calculateFee(input: { amount: 1, currency: "IDR", method: "ovo" }) { fee } }') },
    { name: 'bad signature', expect: 401, build: () => { const r = signed('GET', '/v1/payments/channel'); r.headers['X-SERVICE-Signature'] = '0'.repeat(64); return r; } },
    { name: 'expired timestamp', expect: 401, build: () => ({ method: 'GET', target: '/v1/payments/channel', headers: signatureHeaders(approved.apiKey, approved.apiSecret, { method: 'GET', target: '/v1/payments/channel', timestamp: String(Math.floor(Date.now() / 1000) - 3600) }) }) },
    { name: 'no headers', expect: 401, build: () => ({ method: 'POST', target: '/graphql', headers: { 'content-type': 'application/json' }, body: '{"query":"{ paymentChannels { code } }"}' }) },
    { name: 'unknown key', expect: 401, build: () => signed('GET', '/v1/payments/channel', '', { ...approved, apiKey: 'pk_test_unknown' }) },
    { name: 'health', expect: 200, build: () => ({ method: 'GET', target: '/health', headers: {} }) },
    { name: 'ready', expect: 200, build: () => ({ method: 'GET', target: '/ready', headers: {} }) },
    { name: 'image', expect: 200, build: () => ({ method: 'GET', target: `/images/channels/${pick(DEMO_CHANNELS).code}.svg`, headers: {} }) },
    { name: 'unknown route', expect: 404, build: () => ({ method: 'GET', target: '/v2/nothing', headers: {} }) },
  ];
}

function send(agent: http.Agent, base: URL, r: ReturnType<Scenario['build']>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method: r.method, path: r.target, headers: r.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(r.body || undefined);
  });
}

type Built = ReturnType<Scenario['build']>;

/** One request kind of the isolated runs: the n-th request, and the status it must get. */
interface Kind {
  name: string;
  expect: number;
  build(n: number): Built;
  /** Event streams: opened, read until the first event, closed. */
  stream?: boolean;
}

/** Open an event stream, wait for its first event, close it; resolves with the status. */
function openStream(agent: http.Agent, base: URL, r: Built, keepOpen = false): Promise<{ status: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: base.port, method: r.method, path: r.target, headers: r.headers, agent }, (res) => {
      const close = () => res.destroy();
      if (res.statusCode !== 200) {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, close }));
        return;
      }
      res.on('data', (chunk: Buffer) => {
        if (!chunk.toString().includes('data:')) return;
        res.removeAllListeners('data');
        if (!keepOpen) close();
        resolve({ status: 200, close });
      });
      res.on('error', () => undefined);
    });
    req.on('error', reject);
    req.end(r.body || undefined);
  });
}

/** Send `count` requests of a kind, numbered from `from`, CONCURRENCY at a time; returns the unexpected statuses. */
async function drive(agent: http.Agent, base: URL, kind: Kind, from: number, count: number, bad: string[]): Promise<void> {
  let next = from;
  const end = from + count;
  const worker = async () => {
    while (next < end) {
      const n = next++;
      const r = kind.build(n);
      let status: number;
      try {
        status = kind.stream ? (await openStream(agent, base, r)).status : await send(agent, base, r);
      } catch (err) {
        status = -1;
        if (bad.length < 10) bad.push(`${kind.name}: ${(err as Error).message}`);
      }
      if (status !== kind.expect && status !== -1 && bad.length < 10) bad.push(`${kind.name} #${n}: expected ${kind.expect}, got ${status}`);
    }
  };
  await Promise.all(Array.from({ length: kind.stream ? Math.min(CONCURRENCY, 8) : CONCURRENCY }, worker));
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const num = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

interface SoakKey {
  apiKey: string;
  apiSecret: string;
  merchantId: string;
}

/** Keys made by the admin CLI's own service (the code `npm run admin -- key create` runs) on the server's DATA_DIR. */
async function createKeys(dataDir: string, merchantId: string, count: number): Promise<SoakKey[]> {
  const saved = process.env.DATA_DIR;
  process.env.DATA_DIR = dataDir;
  const data = await bootData(loadConfig(), { watch: false });
  process.env.DATA_DIR = saved;
  try {
    const admin = new AdminService(data.store.admin, data.secretBox, { actor: 'soak' });
    const keys: SoakKey[] = [];
    for (let i = 0; i < count; i++) {
      const k = await admin.createKey(merchantId, 'test');
      keys.push({ apiKey: k.apiKey, apiSecret: k.apiSecret, merchantId });
    }
    return keys;
  } finally {
    await data.store.close();
  }
}

function kinds(approved: DemoMerchantCredentials, keys: SoakKey[]): Kind[] {
  const now = () => String(Math.floor(Date.now() / 1000));
  const signed = (method: string, target: string, body = '', who: SoakKey = approved, extra: Record<string, string> = {}): Built => ({
    method,
    target,
    body,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...signatureHeaders(who.apiKey, who.apiSecret, { method, target, body, timestamp: now() }), ...extra },
  });
  // QRIS takes 1,000 – 10,000,000: every n gives a distinct amount (a distinct body, a distinct document).
  const amount = (n: number) => 10_000 + n;
  const gql = (query: string, variables?: unknown, who: SoakKey = approved) => signed('POST', '/graphql', JSON.stringify({ query, variables }), who);
  return [
    { name: 'REST list', expect: 200, build: () => signed('GET', '/v1/payments/channel') },
    {
      name: 'REST calculate',
      expect: 200,
      build: (n) => signed('POST', '/v1/payments/calculate', JSON.stringify({ amount: amount(n), currency: 'IDR', method: 'QRIS', merchantId: approved.merchantId })),
    },
    {
      name: 'GraphQL variables',
      expect: 200,
      build: (n) => gql('query($i: CalculateFeeInput!) { calculateFee(input: $i) { amount fee } }', { i: { amount: amount(n), currency: 'IDR', method: 'QRIS' } }),
    },
    {
      name: 'GraphQL inline literals',
      expect: 200,
      build: (n) => gql(`{ calculateFee(input: {amount: ${amount(n)}, currency: "IDR", method: "QRIS"}) { amount fee } }`),
    },
    {
      name: 'bad signature',
      expect: 401,
      build: (n) => {
        const r = signed('GET', `/v1/payments/channel?n=${n}`);
        r.headers['X-SERVICE-Signature'] = '0'.repeat(64);
        return r;
      },
    },
    {
      // Alternately REST bad JSON and a GraphQL syntax error, each text distinct (Yoga caches parse errors too).
      name: 'malformed bodies',
      expect: 400,
      build: (n) => (n % 2 ? signed('POST', '/v1/payments/calculate', `{"amount":${n},`) : gql(`{ calculateFee(input: {amount: ${n} `)),
    },
    {
      name: 'event stream open/close',
      expect: 200,
      stream: true,
      build: (n) => {
        const r = gql('subscription { paymentChannelsChanged { code status } }', undefined, keys[n % keys.length]);
        r.headers.accept = 'text/event-stream';
        return r;
      },
    },
    { name: 'many keys', expect: 200, build: (n) => signed('GET', '/v1/payments/channel', '', keys[n % keys.length]) },
  ];
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-soak-'));
  const server = await startServer(dataDir);
  let failed: boolean;
  try {
    const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] };
    const approved = creds.merchants.find((m) => m.kyc === 'approved')!;
    const pending = creds.merchants.find((m) => m.kyc === 'pending')!;
    const base = new URL(server.baseUrl);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const out = (line: string) => process.stdout.write(`${line}\n`);
    out(`soak${SHORT ? ' --short' : ''}: ${server.baseUrl}, ${CONCURRENCY} clients; per kind ${FILL} requests to fill the caches, then ${MEASURED} measured; host ${os.cpus().length} CPUs`);

    // Memory per key: the heap with KEYS more keys, each used once (key material, rate budget).
    const idle = await server.heap();
    const keys = await createKeys(dataDir, approved.merchantId, KEYS);
    const bad: string[] = [];
    await drive(agent, base, { name: 'each key once', expect: 200, build: (n) => kinds(approved, keys).at(-1)!.build(n) }, 0, KEYS, bad);
    const withKeys = await server.heap();
    out(`memory per key:      ${kb((withKeys - idle) / KEYS)} (${KEYS} keys created and used once: ${mb(idle)} → ${mb(withKeys)})`);

    const list = kinds(approved, keys);
    const results: { name: string; growth: number; perRequest: number; readings: number[] }[] = [];
    for (const kind of list) {
      await drive(agent, base, kind, 0, FILL, bad);
      const readings = [await server.heap()];
      const chunk = Math.ceil(MEASURED / MEASURE_CHUNKS);
      for (let c = 0; c < MEASURE_CHUNKS; c++) {
        await drive(agent, base, kind, FILL + c * chunk, chunk, bad);
        readings.push(await server.heap());
      }
      const perRequest = slope(readings.slice(1).map((y, i) => ({ x: i * chunk, y })));
      const growth = perRequest * MEASURED;
      results.push({ name: kind.name, growth, perRequest, readings });
      out(`  ${kind.name.padEnd(24)} heap after GC ${readings.map((r) => (r / 2 ** 20).toFixed(1)).join(' → ')} MB; slope ${perRequest.toFixed(1)} B/request = ${mb(growth)} per ${MEASURED}${growth > GROWTH_LIMIT ? '  KEEPS GROWING' : ''}`);
    }
    const full = await server.heap();
    out(`caches full:         ${mb(full)} (${mb(full - withKeys)} above the idle server with its keys)`);

    // Memory per open event stream: OPEN_STREAMS held open at once, spread over the keys.
    const streamKind = list.find((k) => k.stream)!;
    const before = await server.heap();
    const open = await Promise.all(Array.from({ length: OPEN_STREAMS }, (_, i) => openStream(new http.Agent({ keepAlive: false }), base, streamKind.build(i), true)));
    const withStreams = await server.heap();
    for (const s of open) s.close();
    await new Promise((r) => setTimeout(r, 500));
    const closed = await server.heap();
    const refused = open.filter((s) => s.status !== 200).length;
    out(`memory per stream:   ${kb((withStreams - before) / OPEN_STREAMS)} (${OPEN_STREAMS} open: ${mb(before)} → ${mb(withStreams)}; all closed: ${mb(closed)})${refused ? `; ${refused} refused` : ''}`);
    if (refused) bad.push(`${refused} of ${OPEN_STREAMS} streams refused`);

    // The mixed run: every route, valid and invalid, each with the one status the contract demands.
    const mixed = await mixedRun(base, agent, approved, pending);
    const afterMixed = await server.heap();
    out(`mixed run:           ${mixed.total} requests in ${DURATION_S} s, ${mixed.unexpected} unexpected statuses; heap after GC ${mb(afterMixed)}`);
    for (const sample of mixed.samples) out(`  ${sample}`);
    out(`request log:         ${server.log.lines} lines, ${server.log.bytes} bytes, ${(server.log.bytes / server.log.lines).toFixed(0)} bytes per line (${((server.log.bytes / server.log.lines) * 1e6 / 2 ** 20).toFixed(0)} MB per million requests)`);
    agent.destroy();

    const growing = results.filter((r) => r.growth > GROWTH_LIMIT);
    for (const r of growing) out(`FAIL: ${r.name} keeps growing: ${mb(r.growth)} over ${MEASURED} requests after the caches were full (limit ${mb(GROWTH_LIMIT)})`);
    for (const b of bad) out(`FAIL: ${b}`);
    failed = growing.length > 0 || bad.length > 0 || mixed.unexpected > 0;
    out(failed ? 'soak: FAILED' : 'soak: passed (no kind keeps growing, every status as expected)');
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

async function mixedRun(base: URL, agent: http.Agent, approved: DemoMerchantCredentials, pending: DemoMerchantCredentials) {
  const all = scenarios(approved, pending);
  const stats = { total: 0, unexpected: 0, samples: [] as string[] };
  const deadline = performance.now() + DURATION_S * 1000;
  const client = async (id: number) => {
    for (let i = id; performance.now() < deadline; i++) {
      const scenario = all[i % all.length]!;
      let status: number;
      try {
        status = await send(agent, base, scenario.build());
      } catch (err) {
        status = -1;
        if (stats.samples.length < 20) stats.samples.push(`${scenario.name}: ${(err as Error).message}`);
      }
      stats.total++;
      if (status !== scenario.expect) {
        stats.unexpected++;
        if (stats.samples.length < 20) stats.samples.push(`${scenario.name}: expected ${scenario.expect}, got ${status}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => client(i)));
  return stats;
}

main().catch((err: unknown) => {
  process.stderr.write(`soak failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
