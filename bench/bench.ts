/**
 * `npm run bench [-- --quick] [-- --growth] [-- --workers] [-- --all]`
 *
 * --quick: short rounds and one small growth size, under a minute; writes
 * bench/results-quick.{md,json} so it never overwrites a full run.
 *
 * One run, one machine: seeds a temporary DATA_DIR with the real demo data,
 * starts the project server (NODE_ENV=production, `npm start`'s entry) and
 * the baselines (raw node:http with a fixed body, plain Yoga, Apollo Server,
 * Mercurius + graphql-jit) as separate child processes over that same SQLite
 * file and schema, and drives each with autocannon from this process.
 *
 * Every request to every server is signed per SVC1 with a fresh timestamp in
 * autocannon's `setupRequest` hook (the baselines ignore the headers; signing
 * them too keeps the load generator's cost identical for all targets). A run
 * with any non-2xx answer or socket error is reported as invalid, so a
 * signing bug cannot masquerade as speed.
 *
 * Results: a table on stdout, bench/results.md and bench/results.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { bootData } from '../src/app/boot.js';
import { seedGrowth } from './growth.js';
import { missingLocalServices, startPostgres } from '../scripts/lib/local-services.js';
import { GQL_CALC, GQL_CHANNELS, gqlCalcFor, gqlCalcQuotedFor, type AmountType } from './documents.js';
import { BENCH_LIMITS, cpuMs, rssMb, sleep, startProcess, stopProcess, type ServerProcess } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const GROWTH = args.has('--growth') || args.has('--all');
const WORKERS = args.has('--workers') || args.has('--all');
const CONNECTIONS = 50;
/** `--servers=project,mercurius` limits the main table (for development runs). */
const ONLY = ((process.argv.find((a) => a.startsWith('--servers='))?.slice(10) ?? (QUICK ? 'raw-mem,yoga-floor-hooks,project,mercurius-mem' : 'raw-mem,yoga-floor,yoga-floor-hooks,project,mercurius-mem,raw,mercurius,yoga,apollo')).split(',') as ServerName[]);
const TIMING = QUICK ? { warmupS: 0.5, roundS: 0.8, rounds: 2 } : { warmupS: 3, roundS: 8, rounds: 3 };

interface Creds {
  merchantId: string;
  apiKey: string;
  apiSecret: string;
  kyc: string;
}

/** One request shape of a scenario. */
interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /**
   * A different body for each request (then `body` is only the first one): defeats every answer cache, so
   * the cell measures parse/validate/execute/serialise on each request, not a cache hit.
   */
  bodyFor?: (i: number, scalar: AmountType) => string;
  /** Which servers can answer it (REST routes exist on the project only; raw answers its fixed body). */
  servers: ServerName[];
}

type ServerName = 'raw' | 'raw-mem' | 'project' | 'yoga' | 'apollo' | 'mercurius' | 'mercurius-mem' | 'yoga-floor' | 'yoga-floor-hooks';

const amountTypeOf = (server: string): AmountType => (server === 'mercurius-mem' ? 'Float' : 'Decimal');

function scenarios(merchantId: string): Scenario[] {
  return [
    { name: 'raw fixed body', method: 'GET', path: '/v1/payments/channel', servers: ['raw'] },
    // raw-mem writes the project's exact REST bytes: the same request, the physical limit of the same answer.
    { name: 'REST channel list', method: 'GET', path: '/v1/payments/channel', servers: ['project', 'raw-mem', 'yoga-floor', 'yoga-floor-hooks'] },
    {
      name: 'REST calculate',
      method: 'POST',
      path: '/v1/payments/calculate',
      body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId, chargeFeeToCustomer: true }),
      servers: ['project'],
    },
    { name: 'GraphQL channels', method: 'POST', path: '/graphql', body: GQL_CHANNELS, servers: ['project', 'mercurius-mem', 'mercurius', 'yoga', 'apollo'] },
    { name: 'GraphQL calculateFee', method: 'POST', path: '/graphql', body: GQL_CALC, servers: ['project', 'mercurius-mem', 'mercurius', 'yoga', 'apollo'] },
    { name: 'GraphQL calc, uncached', method: 'POST', path: '/graphql', body: gqlCalcFor(0), bodyFor: gqlCalcFor, servers: ['project', 'mercurius-mem', 'mercurius', 'yoga', 'apollo'] },
    // Contract §11: the same calculation with its fee quote selected (one Ed25519 signature per request); its CPU
    // µs/req beside the row above is what signing costs. Only the project signs quotes.
    { name: 'calculateFee with quote', method: 'POST', path: '/graphql', body: gqlCalcQuotedFor(0), bodyFor: gqlCalcQuotedFor, servers: ['project'] },
  ];
}

/** How the comparison is made; written into every results file so a reader never has to guess. */
const METHOD = [
  '**Method.** One run, one machine. Every server is its own child process, started and measured one at a time;',
  'autocannon (50 connections, in this bench process) is the load generator. Peers, serving from memory: **raw-mem**',
  '= `node:http` writing the exact bytes of the project\'s own `GET /v1/payments/channel` answer (captured from the',
  'project at the start of the run); **mercurius-mem** = Fastify + Mercurius + graphql-jit, Float fields, no auth, the',
  'channels parsed from that same REST answer and held in memory, a plain-number fee resolver. The project runs as',
  '`npm start` does (bundle, `NODE_ENV=production`), rate limits raised through RATE_LIMIT_PER_SECOND/RATE_LIMIT_BURST,',
  'everything else on: SVC1 signature, request log line, metrics, ETag, abuse limits, database health. Every request to',
  'every server is SVC1-signed with a fresh timestamp (the peers ignore the headers). "calc, uncached" sends a new',
  'amount, hence a new body and signature, on every request. CPU µs/req = server user+system time / answered',
  'requests (/proc); peak RSS = VmRSS sampled every 100 ms. **yoga-floor** (reference, not a target peer) = Yoga\'s',
  'server adapter answering those same REST bytes from an `onRequest` hook through the project\'s Node transport, no',
  'other work (**yoga-floor-hooks**: behind 15 no-op plugins): the least the one-pipeline design can cost, so the',
  'project\'s distance from it is the work of its own hooks. **Yoga ceiling** = yoga-floor-hooks\' req/s over the peer\'s:',
  'what a Yoga-based design with the project\'s ≈ 15 plugins could reach if its own work cost nothing (an',
  'overestimate for GraphQL, which also reads a POST body and runs an operation); a target above it is out of reach',
  'of any such design in that run. Earlier peers (raw fixed body, mercurius / yoga / apollo',
  'over the project\'s own resolvers) stay in "All cells".',
].join('\n');

/** A named server child process (bench/processes.ts: output to a file, so the load generator never drains pipes). */
interface Running extends ServerProcess {
  name: string;
}

/** `npm start`'s entry: the bundle scripts/build.mjs writes (built at the start of every bench run). */
const PROJECT_ENTRY = 'dist/main.mjs';

const SERVER_ENTRY: Record<Exclude<ServerName, 'project'>, string> = {
  raw: 'bench/servers/raw.ts',
  'raw-mem': 'bench/servers/raw-memory.ts',
  'mercurius-mem': 'bench/servers/mercurius-memory.ts',
  yoga: 'bench/servers/yoga.ts',
  apollo: 'bench/servers/apollo.ts',
  mercurius: 'bench/servers/mercurius.ts',
  'yoga-floor': 'bench/servers/yoga-floor.ts',
  'yoga-floor-hooks': 'bench/servers/yoga-floor.ts',
};

async function startServer(name: ServerName, dataDir: string, tmp: string, extraEnv: Record<string, string> = {}): Promise<Running> {
  // The project runs as `npm start` runs it: the bundle (built once per bench run, see main), plain node.
  const started = await startProcess({
    args: name === 'project' ? [PROJECT_ENTRY] : ['--import', 'tsx', SERVER_ENTRY[name]],
    cwd: ROOT,
    env: { NODE_ENV: 'production', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...BENCH_LIMITS, ...extraEnv },
    logFile: path.join(tmp, `${name}-${Date.now()}.log`),
    label: name,
  });
  return { name, ...started };
}

const stopServer = (s: Running): Promise<void> => stopProcess(s.child);

interface RoundResult {
  total: number;
  /** Server CPU time (user+system, all its processes) spent per answered request, µs. */
  cpuUsPerReq?: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

function runAutocannon(port: number, sc: Scenario, credsIn: Creds | Creds[], seconds: number, amountType: AmountType): Promise<RoundResult> {
  // Several keys: round-robin over them (many merchants in the growth runs).
  const keys = Array.isArray(credsIn) ? credsIn : [credsIn];
  let turn = 0;
  let sent = 0;
  const baseHeaders: Record<string, string> = sc.body ? { 'content-type': 'application/json' } : {};
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          {
            method: sc.method,
            path: sc.path,
            body: sc.body,
            // Re-signed for every request: fresh timestamp, real HMAC over method, target, timestamp, key, body hash.
            setupRequest: (req: autocannon.Request) => {
              const creds = keys[turn++ % keys.length]!;
              const body = sc.bodyFor ? sc.bodyFor(sent++, amountType) : (sc.body ?? '');
              return {
                ...req,
                body: sc.body === undefined ? undefined : body,
                headers: {
                  ...baseHeaders,
                  ...signatureHeaders(creds.apiKey, creds.apiSecret, { method: sc.method, target: sc.path, body }),
                },
              };
            },
          },
        ],
      },
      (err: Error | null, r: autocannon.Result) => {
        if (err) return reject(err);
        resolve({ total: r.requests.total, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts });
      },
    );
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** One measured cell of the table. */
export interface Measurement {
  server: string;
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  /** Median server CPU µs per request: robust to other load on the machine, unlike req/s. */
  cpuUsPerReq: number;
  peakRssMb: number;
  rounds: number[];
  valid: boolean;
  note?: string;
  loadavg: [number, number, number];
}

async function measure(s: Running, sc: Scenario, creds: Creds | Creds[], label = s.name): Promise<Measurement> {
  const warm = await runAutocannon(s.port, sc, creds, TIMING.warmupS, amountTypeOf(s.name));
  const rounds: RoundResult[] = [];
  const serverCpu = () => s.pids().reduce((sum, pid) => sum + cpuMs(pid), 0);
  // Peak RSS under load: the largest sum of VmRSS over the server's processes, sampled every 100 ms
  // (VmHWM would report the start-up peak of the TypeScript loader instead).
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, s.pids().reduce((sum, pid) => sum + rssMb(pid), 0));
  }, 100);
  for (let i = 0; i < TIMING.rounds; i++) {
    const before = serverCpu();
    const r = await runAutocannon(s.port, sc, creds, TIMING.roundS, amountTypeOf(s.name));
    r.cpuUsPerReq = ((serverCpu() - before) * 1000) / Math.max(1, r.total);
    rounds.push(r);
  }
  clearInterval(sampler);
  const bad = [warm, ...rounds].reduce((n, r) => n + r.non2xx + r.errors, 0);
  const m: Measurement = {
    server: label,
    scenario: sc.name,
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    cpuUsPerReq: median(rounds.map((r) => r.cpuUsPerReq ?? NaN)),
    peakRssMb: peak,
    rounds: rounds.map((r) => Math.round(r.rps)),
    valid: bad === 0,
    note: bad ? `${bad} non-2xx/errors` : undefined,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100) as [number, number, number],
  };
  process.stderr.write(
    `  ${label.padEnd(22)} ${sc.name.padEnd(22)} ${Math.round(m.rps).toString().padStart(7)} req/s  p50 ${m.p50} ms  p99 ${m.p99} ms  cpu ${m.cpuUsPerReq.toFixed(0)} µs/req  rss ${m.peakRssMb.toFixed(0)} MB${m.valid ? '' : `  INVALID (${m.note})`}\n`,
  );
  return m;
}

/**
 * The project's own REST channel-list answer, exact bytes, for the in-memory peers (REST_ANSWER_FILE): one
 * signed request to a freshly started project server over the bench's data.
 */
async function captureRestAnswer(dataDir: string, tmp: string, approved: Creds): Promise<string> {
  const s = await startServer('project', dataDir, tmp);
  try {
    const target = '/v1/payments/channel';
    const res = await fetch(`http://127.0.0.1:${s.port}${target}`, { headers: signatureHeaders(approved.apiKey, approved.apiSecret, { method: 'GET', target, body: '' }) });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`capturing the REST answer: ${res.status} ${bytes.toString('utf8').slice(0, 500)}`);
    const file = path.join(tmp, 'rest-answer.json');
    fs.writeFileSync(file, bytes);
    return file;
  } finally {
    await stopServer(s);
  }
}

async function seedDataDir(tmp: string, name: string): Promise<{ dataDir: string; approved: Creds }> {
  const dataDir = path.join(tmp, name);
  const data = await bootData({ dataDir, masterKey: null, seedDemoData: true });
  const approved = data.seeded!.find((m) => m.kyc === 'approved')!;
  await data.store.close();
  return { dataDir, approved };
}

function fmt(n: number, digits = 0): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

/** Ratio columns of the main table: each row's req/s over the named peer's in the same scenario (raw: any scenario). */
const RATIO_PEERS: { server: ServerName; title: string; anyScenario?: boolean }[] = [
  { server: 'raw-mem', title: 'vs raw node:http (mem)', anyScenario: true },
  { server: 'mercurius-mem', title: 'vs mercurius+jit (mem)' },
  { server: 'mercurius', title: 'vs mercurius+jit (project resolvers)' },
  { server: 'yoga', title: 'vs yoga' },
  { server: 'apollo', title: 'vs apollo' },
];

function mainTable(ms: Measurement[]): string {
  const peers = RATIO_PEERS.filter((p) => ms.some((m) => m.server === p.server));
  const rows = ms.map((m) => {
    const ratios = peers.map((p) => {
      const peer = ms.find((x) => x.server === p.server && (p.anyScenario ? x.scenario === 'REST channel list' : x.scenario === m.scenario));
      return peer && m.server !== p.server ? `${fmt(m.rps / peer.rps, 2)}×` : '';
    });
    return `| ${m.server} | ${m.scenario} | ${fmt(m.rps)} | ${fmt(m.p50)} | ${fmt(m.p99)} | ${fmt(m.cpuUsPerReq)} | ${fmt(m.peakRssMb)} | ${ratios.join(' | ')} | ${m.valid ? 'ok' : `INVALID: ${m.note}`} |`;
  });
  return [
    `| server | scenario | req/s | p50 ms | p99 ms | server CPU µs/req | peak RSS MB | ${peers.map((p) => p.title).join(' | ')} | check |`,
    `|---|---|---:|---:|---:|---:|---:|${peers.map(() => '---:|').join('')}---|`,
    ...rows,
  ].join('\n');
}

/** The performance targets (docs/PERFORMANCE.md), per engine, against the in-memory peers of the same run. */
const TARGETS: { scenario: string; peer: ServerName; min: number }[] = [
  { scenario: 'REST channel list', peer: 'raw-mem', min: 0.7 },
  { scenario: 'GraphQL channels', peer: 'mercurius-mem', min: 1.5 },
  { scenario: 'GraphQL calc, uncached', peer: 'mercurius-mem', min: 1.0 },
];

/**
 * The target table: throughput ratio, CPU per request of both, p99 (≤ 10 ms or ≤ the peer's), RSS, validity.
 *
 * "Yoga ceiling" is yoga-floor-hooks' throughput over the peer's, in the same run: Yoga's adapter behind 15
 * no-op plugins answering fixed bytes to a bodyless GET, doing nothing else. No design that keeps Yoga's
 * adapter as the one pipeline with the project's ≈ 15 plugins can beat it, and for the GraphQL scenarios it is
 * an overestimate (they also read and parse a POST body and execute or look up an operation). A target above
 * its ceiling cannot be met by any Yoga-based design on this machine, however cheap its own hooks.
 */
function targetTable(ms: Measurement[]): string {
  const rows: string[] = [];
  const floor = ms.find((x) => x.server === 'yoga-floor-hooks' && x.scenario === 'REST channel list');
  for (const engine of ['project', 'project on Postgres']) {
    for (const t of TARGETS) {
      const m = ms.find((x) => x.server === engine && x.scenario === t.scenario);
      const peer = ms.find((x) => x.server === t.peer && x.scenario === t.scenario);
      if (!m || !peer) continue;
      const ratio = m.rps / peer.rps;
      const ceiling = floor ? `${fmt(floor.rps / peer.rps, 2)}×${floor.rps / peer.rps < t.min ? ' (below target)' : ''}` : '–';
      const p99ok = m.p99 <= 10 || m.p99 <= peer.p99;
      const met = ratio >= t.min && p99ok && m.peakRssMb < 200 && m.valid && peer.valid;
      rows.push(
        `| ${engine === 'project' ? 'SQLite' : 'Postgres'} | ${t.scenario} | ${t.peer} | ${fmt(ratio, 2)}× (≥ ${t.min}×) | ${ceiling} | ${fmt(m.cpuUsPerReq)} vs ${fmt(peer.cpuUsPerReq)} | ${fmt(m.p99)} vs ${fmt(peer.p99)}${p99ok ? '' : ' ✗'} | ${fmt(m.peakRssMb)} | ${m.valid ? 'ok' : 'INVALID'} | ${met ? '**met**' : 'missed'} |`,
      );
    }
  }
  return [
    '| engine | scenario | peer | req/s ratio (target) | Yoga ceiling: yoga-floor-hooks vs peer | CPU µs/req project vs peer | p99 ms project vs peer | project peak RSS MB | non-2xx | target |',
    '|---|---|---|---:|---:|---:|---:|---:|---|---|',
    ...rows,
  ].join('\n');
}

function simpleTable(ms: Measurement[], firstCol: string): string {
  return [
    `| ${firstCol} | scenario | req/s | p50 ms | p99 ms | server CPU µs/req | peak RSS MB | check |`,
    '|---|---|---:|---:|---:|---:|---:|---|',
    ...ms.map((m) => `| ${m.server} | ${m.scenario} | ${fmt(m.rps)} | ${fmt(m.p50)} | ${fmt(m.p99)} | ${fmt(m.cpuUsPerReq)} | ${fmt(m.peakRssMb)} | ${m.valid ? 'ok' : `INVALID: ${m.note}`} |`),
  ].join('\n');
}

/**
 * The project again on Postgres (contract §6, one replica): a throwaway server from Debian's
 * package, the project seeding its own data there. Requests are served from the in-memory catalogue on both
 * engines, so the request path costs should match SQLite's. Skipped, with the reason, without the package.
 */
async function measureOnPostgres(scs: Scenario[], tmp: string, running: Running[]): Promise<Measurement[]> {
  const missing = missingLocalServices(['postgres']);
  if (missing.length > 0) {
    process.stderr.write(`bench: project on Postgres skipped (${missing.join('; ')})\n`);
    return [];
  }
  const postgres = await startPostgres();
  const dataDir = path.join(tmp, 'postgres');
  const out: Measurement[] = [];
  try {
    const s = await startServer('project', dataDir, tmp, { DATABASE_URL: postgres.url });
    running.push(s);
    try {
      const creds = (JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: Creds[] }).merchants;
      const approved = creds.find((m) => m.kyc === 'approved')!;
      // --quick keeps the three target cells (under a minute in all); full runs measure every project scenario.
      const names = QUICK ? ['REST channel list', 'GraphQL channels', 'GraphQL calc, uncached'] : scs.filter((x) => x.servers.includes('project')).map((x) => x.name);
      for (const sc of scs.filter((x) => names.includes(x.name))) out.push(await measure(s, sc, approved, 'project on Postgres'));
    } finally {
      await stopServer(s);
      running.splice(running.indexOf(s), 1);
    }
  } finally {
    await postgres.stop();
  }
  return out;
}

async function main(): Promise<void> {
  const started = Date.now();
  // The project is measured as `npm start` runs it: freshly built bundle, plain node.
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-bench-'));
  const running: Running[] = [];
  const cleanup = async () => {
    await Promise.all(running.map(stopServer));
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  const loadBefore = os.loadavg();
  try {
    const { dataDir, approved } = await seedDataDir(tmp, 'main');
    const scs = scenarios(approved.merchantId);
    const results: Measurement[] = [];
    // The in-memory peers serve the project's own REST answer (the comparison method): captured before any peer starts.
    process.env.REST_ANSWER_FILE = await captureRestAnswer(dataDir, tmp, approved);
    process.stderr.write(`bench: ${QUICK ? 'quick' : 'full'} mode, ${CONNECTIONS} connections, warm-up ${TIMING.warmupS}s + ${TIMING.rounds}×${TIMING.roundS}s per cell\n`);
    // One server at a time: the two cores are shared by the server and the load generator only.
    for (const name of ONLY) {
      // The floor with the project's number of hooks: the same server, 15 no-op plugins before the answering one.
      const s = await startServer(name, dataDir, tmp, name === 'yoga-floor-hooks' ? { FLOOR_HOOKS: '15' } : {});
      running.push(s);
      // --quick measures only the target scenarios (and only the in-memory peers), to stay under a minute.
      for (const sc of scs.filter((x) => x.servers.includes(name) && (!QUICK || TARGETS.some((t) => t.scenario === x.name)))) results.push(await measure(s, sc, approved));
      await stopServer(s);
      running.splice(running.indexOf(s), 1);
      if (name === 'project' && !QUICK) {
        // The same server with its answer cache off (ANSWER_CACHE_ENTRIES=0): repeated bodies execute too, so
        // the cached cells above can be told apart from execution cost. (Full runs only: --quick stays under a minute.)
        const off = await startServer('project', dataDir, tmp, { ANSWER_CACHE_ENTRIES: '0' });
        running.push(off);
        for (const sc of scs.filter((x) => ['REST calculate', 'GraphQL channels', 'GraphQL calculateFee'].includes(x.name))) {
          results.push(await measure(off, sc, approved, 'project, no answer cache'));
        }
        await stopServer(off);
        running.splice(running.indexOf(off), 1);
      }
      if (name === 'project') results.push(...(await measureOnPostgres(scs, tmp, running)));
    }

    const growth: Measurement[] = [];
    if (GROWTH || QUICK) {
      const sizes = QUICK
        ? [{ channels: 1000, merchants: 1000 }]
        : [
            // The demo data is 12 channels and 2 merchants; sizes include it.
            { channels: 12, merchants: 2 },
            { channels: 1000, merchants: 2 },
            { channels: 10000, merchants: 2 },
            { channels: 12, merchants: 1000 },
            { channels: 12, merchants: 100000 },
          ];
      for (const size of sizes) {
        const label = `${size.channels} ch / ${size.merchants} merch`;
        const seeded = await seedDataDir(tmp, `growth-${size.channels}-${size.merchants}`);
        const t0 = Date.now();
        const extra = seedGrowth(seeded.dataDir, size);
        process.stderr.write(`growth ${label}: seeded in ${Date.now() - t0} ms\n`);
        const s = await startServer('project', seeded.dataDir, tmp);
        running.push(s);
        for (const sc of scenarios(seeded.approved.merchantId).filter((x) => x.name === 'REST channel list' || x.name === 'GraphQL calculateFee')) {
          // Many merchants: sign with a rotating sample of their keys (cold per-key state included).
          const signers = sc.name === 'GraphQL calculateFee' && extra.length ? extra : seeded.approved;
          growth.push(await measure(s, sc, signers, label));
        }
        await stopServer(s);
        running.splice(running.indexOf(s), 1);
      }
    }

    const scaling: Measurement[] = [];
    if (WORKERS) {
      for (const n of [1, 2]) {
        const s = await startServer('project', dataDir, tmp, { WORKERS: String(n) });
        running.push(s);
        await sleep(n > 1 ? 1500 : 0); // let every worker come up
        for (const sc of scs.filter((x) => x.name === 'REST channel list' || x.name === 'GraphQL channels')) {
          scaling.push(await measure(s, sc, approved, `WORKERS=${n}`));
        }
        await stopServer(s);
        running.splice(running.indexOf(s), 1);
      }
    }

    const machine = {
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memGb: Math.round(os.totalmem() / 2 ** 30),
      platform: `${os.platform()} ${os.release()}`,
      loadavgBefore: loadBefore.map((x) => Math.round(x * 100) / 100),
      loadavgAfter: os.loadavg().map((x) => Math.round(x * 100) / 100),
    };
    const command = `npm run bench${QUICK ? ' -- --quick' : args.size ? ` -- ${[...args].join(' ')}` : ''}`;
    const md = [
      `# Benchmark results`,
      '',
      `Command: \`${command}\` — ${new Date().toISOString()}, ${Math.round((Date.now() - started) / 1000)} s.`,
      `Machine: ${machine.cpuModel}, ${machine.cpus} cores, ${machine.memGb} GB, ${machine.platform}, Node ${machine.node}.`,
      `Load average before/after: ${machine.loadavgBefore.join(' ')} / ${machine.loadavgAfter.join(' ')} (other work on the machine shares its cores).`,
      `autocannon: ${CONNECTIONS} connections, warm-up ${TIMING.warmupS} s, median of ${TIMING.rounds} rounds × ${TIMING.roundS} s; every request SVC1-signed with a fresh timestamp.`,
      '',
      '## Targets: the project with everything on vs the in-memory peers, same run',
      '',
      targetTable(results),
      '',
      METHOD,
      '',
      '## All cells',
      '',
      mainTable(results),
      growth.length ? `\n## Cost growth (project server)\n\n${simpleTable(growth, 'data size')}` : '',
      scaling.length ? `\n## Multi-core (project server, node:cluster)\n\n${simpleTable(scaling, 'workers')}` : '',
      '',
    ].join('\n');
    process.stdout.write(`\n${md}\n`);
    const outName = QUICK ? 'results-quick' : 'results';
    fs.writeFileSync(path.join(ROOT, 'bench', `${outName}.md`), md);
    fs.writeFileSync(path.join(ROOT, 'bench', `${outName}.json`), `${JSON.stringify({ command, date: new Date().toISOString(), machine, connections: CONNECTIONS, timing: TIMING, results, growth, scaling }, null, 2)}\n`);
  } finally {
    await cleanup();
  }
}

await main();
