/**
 * `npm run bench:sessions [-- --seconds 10]`: another merchant beside one merchant's crowd (contract §9, amended
 * 2026-11-25). One project server (the bundle, as `npm start` runs it, default limits) on the demo data.
 * Another merchant's server calls signed `GET /v1/payments/channel` at a steady 25/s (the probe, in this
 * process) while:
 *
 * 1. idle: nothing else runs;
 * 2. crowd: six checkout sessions of one merchant send the heaviest document a session may send (6 work
 *    units: the component's list plus a second full pricing pass) at the documented rate, 20/s after a burst
 *    of 40 each (a load generator process of its own, bench/session-crowd.ts);
 * 3. refused: the same six sessions send the heavy document (15 aliased lists with fees, 50 units),
 *    which a session may not send: every one is refused before it executes;
 * 4. quotes: the same six sessions send the most quote work a session may ask for: the list with
 *    every channel's signed quote, ten signatures a request, 6 units.
 *
 * Reported: the probe's p50/p99 per phase, the loaded/idle p99 factor, the crowd's status counts and the
 * server's CPU per phase. Exits 1 when a loaded p99 is 50 ms or more, or more than 5× the idle p99 of the
 * same run (what "within a small factor" means here), or when the probe saw anything but 200.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootData } from '../src/app/boot.js';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { cpuMs, sleep, startProcess, stopProcess } from './processes.js';
import { HEAVIEST_ALLOWED, HEAVY_DOCUMENT, QUOTE_HEAVY } from './documents.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf('--seconds');
const SECONDS = at === -1 ? 10 : Number(args[at + 1]);
/** `--cpu-prof DIR`: the server writes a V8 CPU profile there (diagnosis of where the probe waited). */
const profAt = args.indexOf('--cpu-prof');
const PROF_DIR = profAt === -1 ? null : path.resolve(args[profAt + 1]!);
const PROBE_PER_SECOND = 25;
const P99_LIMIT_MS = 50;
const IDLE_FACTOR_LIMIT = 5;


interface Creds {
  merchantId: string;
  apiKey: string;
  apiSecret: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;
}

/** The other merchant's signed list at a steady rate for `seconds`: latencies (ms) and statuses. */
async function probe(baseUrl: string, who: Creds, seconds: number): Promise<{ latencies: number[]; statuses: Record<number, number> }> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const inFlight: Promise<void>[] = [];
  const until = Date.now() + seconds * 1000;
  for (let next = Date.now(); Date.now() < until; ) {
    next += 1000 / PROBE_PER_SECOND;
    const headers = signatureHeaders(who.apiKey, who.apiSecret, { method: 'GET', target: '/v1/payments/channel', body: '' });
    const started = performance.now();
    inFlight.push(
      fetch(`${baseUrl}/v1/payments/channel`, { headers, signal: AbortSignal.timeout(10_000) }).then(
        async (res) => {
          await res.arrayBuffer();
          latencies.push(performance.now() - started);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        },
        () => {
          latencies.push(10_000);
          statuses[0] = (statuses[0] ?? 0) + 1;
        },
      ),
    );
    const wait = next - Date.now();
    if (wait > 0) await sleep(wait);
  }
  await Promise.all(inFlight);
  return { latencies: latencies.sort((a, b) => a - b), statuses };
}

function crowd(input: Record<string, unknown>): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/session-crowd.ts'), JSON.stringify(input)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve((JSON.parse(out.trim().split('\n').at(-1)!) as { statuses: Record<string, number> }).statuses) : reject(new Error(`session crowd exited ${code}`))));
  });
}

async function createSession(baseUrl: string, who: Creds, i: number): Promise<string> {
  const target = '/v1/checkout/sessions';
  const body = JSON.stringify({ merchantId: who.merchantId, amount: 150000, currency: 'IDR', expiresInSeconds: 900 + i });
  const res = await fetch(`${baseUrl}${target}`, { method: 'POST', headers: { ...signatureHeaders(who.apiKey, who.apiSecret, { method: 'POST', target, body }), 'content-type': 'application/json' }, body });
  if (res.status !== 201) throw new Error(`session creation answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { clientSecret: string }).clientSecret;
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-sessions-soak-'));
let server: Awaited<ReturnType<typeof startProcess>> | undefined;
try {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const dataDir = path.join(tmp, 'data');
  const data = await bootData({ dataDir, masterKey: null, seedDemoData: true });
  const crowdMerchant = data.seeded!.find((m) => m.kyc === 'approved')!;
  const otherMerchant = data.seeded!.find((m) => m.kyc !== 'approved')!;
  await data.store.close();
  server = await startProcess({
    args: [...(PROF_DIR ? ['--cpu-prof', '--cpu-prof-interval=200', `--cpu-prof-dir=${PROF_DIR}`] : []), 'dist/main.mjs'],
    cwd: ROOT,
    env: { NODE_ENV: 'production', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    logFile: path.join(tmp, 'server.log'),
    label: 'project',
  });
  const baseUrl = `http://127.0.0.1:${server.port}`;
  const secrets = await Promise.all(Array.from({ length: 6 }, (_, i) => createSession(baseUrl, crowdMerchant, i)));
  await probe(baseUrl, otherMerchant, 2); // warm-up, not reported

  const rows: { loopMax: number; phase: string; p50: number; p99: number; max: number; n: number; probeStatuses: string; crowd: string; cpuMsPerSecond: number }[] = [];
  const phase = async (name: string, query: string | null): Promise<void> => {
    await sleep(2500); // every session budget window of the previous phase is over
    const cpuAll = () => server!.pids().reduce((sum, pid) => sum + (cpuMs(pid) || 0), 0);
    // The event loop's longest delay during the phase (prom-client resets its histogram at every scrape): how
    // long the server itself kept a request waiting, as opposed to the machine not scheduling it.
    const loopDelayMaxMs = async (): Promise<number> => {
      const text = await (await fetch(`${baseUrl}/metrics`)).text();
      return 1000 * Number(/^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(text)?.[1] ?? NaN);
    };
    await loopDelayMaxMs();
    const cpu0 = cpuAll();
    const crowdRun = query ? crowd({ baseUrl, secrets, query, variables: { a: 150000 }, ratePerSecond: 20, burst: 40, seconds: SECONDS }) : Promise.resolve({});
    const [probed, crowdStatuses] = await Promise.all([probe(baseUrl, otherMerchant, SECONDS), crowdRun]);
    const cpu = cpuAll() - cpu0;
    const loopMax = await loopDelayMaxMs();
    rows.push({
      loopMax,
      phase: name,
      p50: percentile(probed.latencies, 50),
      p99: percentile(probed.latencies, 99),
      max: probed.latencies.at(-1)!,
      n: probed.latencies.length,
      probeStatuses: JSON.stringify(probed.statuses),
      crowd: JSON.stringify(crowdStatuses),
      cpuMsPerSecond: cpu / SECONDS,
    });
  };
  await phase('idle', null);
  await phase('crowd: 6 sessions, heaviest allowed (6 units)', HEAVIEST_ALLOWED);
  await phase('refused: 6 sessions, the heavy document (50 units)', HEAVY_DOCUMENT);
  await phase('quotes: 6 sessions, a signed quote for every channel (6 units, 10 signatures)', QUOTE_HEAVY);
  await phase('idle again', null);

  const idle = rows[0]!.p99;
  const lines = [
    `# Sessions soak: another merchant's signed GET /v1/payments/channel at ${PROBE_PER_SECOND}/s, ${SECONDS} s per phase`,
    '',
    `${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at the end, Node ${process.version}`,
    '',
    '| phase | probe p50 ms | probe p99 ms | p99 / idle p99 | probe max ms | probe answers | crowd answers (status: count) | server CPU ms/s | server event-loop delay max ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.phase} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${(r.p99 / idle).toFixed(2)} | ${r.max.toFixed(1)} | ${r.probeStatuses} | ${r.crowd} | ${r.cpuMsPerSecond.toFixed(0)} | ${r.loopMax.toFixed(1)} |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const failures = rows.flatMap((r) => [
    ...(r.p99 >= P99_LIMIT_MS ? [`${r.phase}: p99 ${r.p99.toFixed(1)} ms ≥ ${P99_LIMIT_MS} ms`] : []),
    ...(r.p99 > IDLE_FACTOR_LIMIT * Math.max(idle, 1) ? [`${r.phase}: p99 more than ${IDLE_FACTOR_LIMIT}× the idle p99`] : []),
    ...(Object.keys(JSON.parse(r.probeStatuses) as object).some((s) => s !== '200') ? [`${r.phase}: the probe got ${r.probeStatuses}`] : []),
  ]);
  if (failures.length) {
    process.stderr.write(`FAILED:\n${failures.join('\n')}\n`);
    process.exitCode = 1;
  }
} finally {
  if (server) await stopProcess(server.child);
  fs.rmSync(tmp, { recursive: true, force: true });
}
