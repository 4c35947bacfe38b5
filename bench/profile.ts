/**
 * `npm run bench:profile -- [scenario]`: CPU profile of the project server
 * (node --cpu-prof) under 50 signed connections for 8 s, then the top
 * self-time functions. Scenario: rest-list | rest-calc | gql-channels | gql-calc |
 * gql-calc-uncached (a distinct amount variable per request: no answer cache) | session-list (a checkout
 * session's channel list, the component's document, past its budget: 429) | session-heavy (a session's
 * document past the cost ceiling: 403).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { bootData } from '../src/app/boot.js';
import { account, type CpuProfile } from './account.js';
import { GQL_CALC, GQL_CHANNELS, GQL_HEAVIEST_ALLOWED, HEAVY_DOCUMENT, gqlCalcFor } from './documents.js';
import { BENCH_LIMITS, startProcess, stopProcess } from './processes.js';


const ROOT = fileURLToPath(new URL('..', import.meta.url));
const scenario = process.argv[2] ?? 'gql-channels';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-prof-'));
const data = await bootData({ dataDir: tmp, masterKey: null, seedDemoData: true });
const creds = data.seeded!.find((m) => m.kyc === 'approved')!;
await data.store.close();

let sent = 0;
const SESSION_LIST = JSON.stringify({ query: 'query L($a: Decimal!) { paymentChannels(filter: { amount: $a, currency: "IDR" }) { code name status fee(amount: $a) { totalAmount } } }', variables: { a: 150000 } });
const SESSION_HEAVY = JSON.stringify({ query: HEAVY_DOCUMENT, variables: { a: 150000 } });
const req: Record<string, { method: 'GET' | 'POST'; path: string; body?: string; bodyFor?: () => string; session?: boolean }> = {
  // The heaviest document a session may send (bench/sessions-soak.ts), signed so that every request executes.
  'gql-heaviest': { method: 'POST', path: '/graphql', body: GQL_HEAVIEST_ALLOWED },
  'session-list': { method: 'POST', path: '/graphql', body: SESSION_LIST, session: true },
  'session-heavy': { method: 'POST', path: '/graphql', body: SESSION_HEAVY, session: true },
  'rest-list': { method: 'GET', path: '/v1/payments/channel' },
  'rest-calc': { method: 'POST', path: '/v1/payments/calculate', body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: creds.merchantId, chargeFeeToCustomer: true }) },
  'gql-channels': { method: 'POST', path: '/graphql', body: GQL_CHANNELS },
  'gql-calc': { method: 'POST', path: '/graphql', body: GQL_CALC },
  'gql-calc-uncached': { method: 'POST', path: '/graphql', body: '', bodyFor: () => gqlCalcFor(sent++) },
};
const r = req[scenario];
if (!r) throw new Error(`unknown scenario ${scenario}; one of ${Object.keys(req).join(', ')}`);
const profDir = path.join(ROOT, 'bench', 'profiles', `${scenario}-${Date.now()}`);
fs.mkdirSync(profDir, { recursive: true });
// As `npm start` runs it: build the bundle, then plain node.
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
// 100 µs sampling (default 1 ms): enough samples per cost centre for a per-request account.
const { child, port } = await startProcess({
  args: ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profDir}`, 'dist/main.mjs'],
  cwd: ROOT,
  env: { NODE_ENV: 'production', DATA_DIR: tmp, PORT: '0', HOST: '127.0.0.1', ...BENCH_LIMITS },
  logFile: path.join(tmp, 'server.log'),
  label: 'project server',
});
/** A checkout session's client secret, created by a signed call as a merchant's server does. */
async function sessionSecret(): Promise<string> {
  const target = '/v1/checkout/sessions';
  const body = JSON.stringify({ merchantId: creds.merchantId, amount: 150000, currency: 'IDR' });
  const res = await fetch(`http://127.0.0.1:${port}${target}`, { method: 'POST', headers: { ...signatureHeaders(creds.apiKey, creds.apiSecret, { method: 'POST', target, body }), 'content-type': 'application/json' }, body });
  if (res.status !== 201) throw new Error(`session creation answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { clientSecret: string }).clientSecret;
}
const bearer = r.session ? `Bearer ${await sessionSecret()}` : null;
const result = await autocannon({
  url: `http://127.0.0.1:${port}`,
  connections: 50,
  duration: 8,
  requests: [
    {
      method: r.method,
      path: r.path,
      body: r.body,
      setupRequest: (q: autocannon.Request) => {
        const body = r.bodyFor ? r.bodyFor() : (r.body ?? '');
        if (bearer) return { ...q, body, headers: { 'content-type': 'application/json', authorization: bearer } };
        return {
          ...q,
          ...(r.body === undefined ? {} : { body }),
          headers: { ...(r.body === undefined ? {} : { 'content-type': 'application/json' }), ...signatureHeaders(creds.apiKey, creds.apiSecret, { method: r.method, target: r.path, body }) },
        };
      },
    },
  ],
});
process.stderr.write(`${scenario}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, non2xx ${result.non2xx}\n`);
// SIGTERM: the server exits normally, which is when V8 writes the profile.
await stopProcess(child);
// tsx's loader thread writes its own profile; the main thread's is the biggest one.
const file = fs
  .readdirSync(profDir)
  .map((f) => path.join(profDir, f))
  .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!;
process.stderr.write(`profile: ${path.relative(ROOT, file)}\n`);
const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
const counts = new Map<number, number>();
for (const s of prof.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const byFn = new Map<string, number>();
for (const n of prof.nodes) {
  const c = counts.get(n.id) ?? 0;
  if (!c) continue;
  const where = n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/wt\d+\//, '');
  const k = `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber + 1}`;
  byFn.set(k, (byFn.get(k) ?? 0) + c);
}
const total = prof.samples.length;
const top = [...byFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30);
process.stdout.write(`top self time (${total} samples):\n${top.map(([k, c]) => `${((100 * c) / total).toFixed(1).padStart(5)} %  ${k}`).join('\n')}\n`);
// The account charges each sample to its innermost known cost centre (bench/account.ts); start-up and idle left out.
const requests = result.requests.total;
const rows = account(prof, requests, path.join(ROOT, 'dist', 'main.mjs'));
const sum = rows.reduce((a, r) => a + r.usPerRequest, 0);
process.stdout.write(
  `\nper-request CPU account (${requests} requests, ${sum.toFixed(0)} µs/request sampled):\n${rows.filter((r) => r.usPerRequest >= 0.5).map((r) => `${r.usPerRequest.toFixed(1).padStart(7)} µs  ${(100 * r.share).toFixed(1).padStart(5)} %  ${r.centre}`).join('\n')}\n`,
);
fs.rmSync(tmp, { recursive: true, force: true });
