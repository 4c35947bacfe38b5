/**
 * `npm run soak [-- --duration 300 --concurrency 32]`: soak test (issue 4 §6).
 *
 * Starts the real server (`tsx src/main.ts`, temp DATA_DIR, PORT=0), then
 * drives `concurrency` keep-alive clients on loopback through every route
 * with a mix of valid and invalid SVC1-signed requests, each with the one
 * status it must get. Reports requests, unexpected statuses (must be 0),
 * latency percentiles and the server's RSS sampled over the run (growth
 * must level off). Exit code 1 when any status was unexpected.
 *
 * Rate limits are raised for the run (all clients share one address and
 * two keys); the limits themselves are covered by test/security.
 * Not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { DEMO_CHANNELS, type DemoMerchantCredentials } from '../src/modules/admin/demo-seed.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '32' },
    'sample-every': { type: 'string', default: '5' },
  },
});
const DURATION_S = Number(values.duration);
const CONCURRENCY = Number(values.concurrency);
const SAMPLE_S = Number(values['sample-every']);
if (!(DURATION_S > 0) || !(CONCURRENCY > 0) || !(SAMPLE_S > 0)) {
  process.stderr.write('usage: npm run soak -- [--duration SECONDS] [--concurrency N] [--sample-every SECONDS]\n');
  process.exit(2);
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** One kind of request and the status the contract demands for it. */
interface Scenario {
  name: string;
  expect: number;
  build(): { method: string; target: string; headers: Record<string, string>; body?: string };
}

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function startServer(dataDir: string): Promise<{ baseUrl: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      AUTH_FAILURES_PER_MINUTE: '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (d: Buffer) => {
      // One pino line per request keeps coming; the pipe is drained for the whole run.
      if (seen !== null) {
        seen += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(seen);
        if (m) {
          resolve(m[1]!);
          seen = '';
        }
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited early (${code})`)));
  });
  return {
    baseUrl,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
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

interface Stats {
  total: number;
  unexpected: number;
  samples: string[];
  byScenario: Map<string, { n: number; bad: number }>;
  latencies: number[];
  errors: number;
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

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-soak-'));
  const server = await startServer(dataDir);
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] };
  const approved = creds.merchants.find((m) => m.kyc === 'approved')!;
  const pending = creds.merchants.find((m) => m.kyc === 'pending')!;
  const all = scenarios(approved, pending);
  const base = new URL(server.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const stats: Stats = { total: 0, unexpected: 0, samples: [], byScenario: new Map(), latencies: [], errors: 0 };

  process.stdout.write(`soak: ${server.baseUrl}, ${CONCURRENCY} clients, ${DURATION_S} s, ${all.length} request kinds, host ${os.cpus().length} CPUs (shared)\n`);

  // Warm-up (JIT, caches) before the "before" memory figure.
  for (const s of all) await send(agent, base, s.build());
  const rss: { t: number; rss: number }[] = [{ t: 0, rss: rssOf(server.pid) }];
  const started = performance.now();
  const deadline = started + DURATION_S * 1000;
  const sampler = setInterval(() => rss.push({ t: Math.round((performance.now() - started) / 1000), rss: rssOf(server.pid) }), SAMPLE_S * 1000);

  async function client(id: number): Promise<void> {
    let i = id;
    while (performance.now() < deadline) {
      const scenario = all[i++ % all.length]!;
      const t0 = performance.now();
      let status: number;
      try {
        status = await send(agent, base, scenario.build());
      } catch (err) {
        stats.errors++;
        status = -1;
        if (stats.samples.length < 20) stats.samples.push(`${scenario.name}: ${(err as Error).message}`);
      }
      stats.latencies.push(performance.now() - t0);
      stats.total++;
      const row = stats.byScenario.get(scenario.name) ?? { n: 0, bad: 0 };
      row.n++;
      if (status !== scenario.expect) {
        row.bad++;
        stats.unexpected++;
        if (stats.samples.length < 20) stats.samples.push(`${scenario.name}: expected ${scenario.expect}, got ${status}`);
      }
      stats.byScenario.set(scenario.name, row);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => client(i)));
  clearInterval(sampler);
  const elapsed = (performance.now() - started) / 1000;
  rss.push({ t: Math.round(elapsed), rss: rssOf(server.pid) });
  agent.destroy();

  const sorted = stats.latencies.sort((a, b) => a - b);
  const half = rss.filter((s) => s.t >= elapsed / 2);
  const firstHalfPeak = Math.max(...rss.filter((s) => s.t < elapsed / 2).map((s) => s.rss));
  const secondHalfPeak = Math.max(...half.map((s) => s.rss));
  const lines = [
    '',
    `requests:            ${stats.total} in ${elapsed.toFixed(1)} s (${(stats.total / elapsed).toFixed(0)} req/s)`,
    `unexpected statuses: ${stats.unexpected}${stats.errors ? ` (${stats.errors} transport errors)` : ''}`,
    ...stats.samples.map((s) => `  ${s}`),
    `latency:             p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms, max ${(sorted.at(-1) ?? 0).toFixed(2)} ms`,
    `server RSS:          before ${mb(rss[0]!.rss)}, after ${mb(rss.at(-1)!.rss)}; peak first half ${mb(firstHalfPeak)}, second half ${mb(secondHalfPeak)}`,
    `RSS samples (s:MB):  ${rss.map((s) => `${s.t}:${(s.rss / 1024 / 1024).toFixed(0)}`).join(' ')}`,
    'per kind (n / unexpected):',
    ...[...stats.byScenario].map(([name, r]) => `  ${name.padEnd(22)} ${String(r.n).padStart(8)} / ${r.bad}`),
    '',
  ];
  process.stdout.write(lines.join('\n'));
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(stats.unexpected === 0 && stats.errors === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`soak failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
