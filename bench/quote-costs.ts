/**
 * `npx tsx bench/quote-costs.ts [--requests 3000]`: what quote work costs against the work unit (contract §9 "budgets spend what a request costs, where a plain list or calculation costs 1"), measured as
 * the other units were: server CPU per request of the bundle (`npm start`, demo data, limits raised), read
 * from /proc over many requests of one document, a few at a time, each request's body distinct where the
 * answer cache could otherwise answer it.
 *
 * Documents: a plain list (the unit), a calculation, a calculation with its quote (one signature), a list
 * priced per channel, the same with each channel's quote (one signature per channel), one verification, and
 * 15 aliased verifications (the hostile probe's document). Printed: µs of server CPU per request, and per request over the
 * list's (units). src/graphql/operation-cost.ts takes its quote units from this table (README "Limits").
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootData } from '../src/app/boot.js';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { BENCH_LIMITS, cpuMs, startProcess, stopProcess } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const at = args.indexOf('--requests');
const REQUESTS = at === -1 ? 3000 : Number(args[at + 1]);
const CONCURRENCY = 4;

const LIST = '{ paymentChannels { code name status feeInfo { feePercentage feeValue } } }';
const CALC = 'query C($a: Decimal!) { calculateFee(input: { amount: $a, currency: "IDR", method: "QRIS" }) { fee totalAmount } }';
const CALC_QUOTED = 'query C($a: Decimal!) { calculateFee(input: { amount: $a, currency: "IDR", method: "QRIS" }) { fee totalAmount quote { token expiresAt } } }';
const LIST_FEES = 'query F($a: Decimal!) { paymentChannels { code fee(amount: $a) { totalAmount } } }';
const LIST_FEES_QUOTED = 'query F($a: Decimal!) { paymentChannels { code fee(amount: $a) { totalAmount quote { token } } } }';
const VERIFY = 'query V($t: String!) { verifyQuote(token: $t) { quoteId totalAmount } }';
const VERIFY_15 = `query V($t: String!) { ${Array.from({ length: 15 }, (_, i) => `v${i}: verifyQuote(token: $t) { quoteId totalAmount }`).join(' ')} }`;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-quote-costs-'));
let server: Awaited<ReturnType<typeof startProcess>> | undefined;
try {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const data = await bootData({ dataDir: tmp, masterKey: null, seedDemoData: true });
  const creds = data.seeded!.find((m) => m.kyc === 'approved')!;
  await data.store.close();
  server = await startProcess({
    args: ['dist/main.mjs'],
    cwd: ROOT,
    env: { NODE_ENV: 'production', DATA_DIR: tmp, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...BENCH_LIMITS },
    logFile: path.join(tmp, 'server.log'),
    label: 'project',
  });
  const baseUrl = `http://127.0.0.1:${server.port}`;

  const post = async (query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const body = JSON.stringify({ query, variables });
    const res = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...signatureHeaders(creds.apiKey, creds.apiSecret, { method: 'POST', target: '/graphql', body }), 'content-type': 'application/json' },
      body,
    });
    const json = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    // Per-channel errors (a channel in maintenance has no fee) are answers; anything else is not.
    if (res.status !== 200 || !json.data) throw new Error(`${query.slice(0, 40)}… answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
    return json.data;
  };
  const token = ((await post(CALC_QUOTED, { a: 150000 })).calculateFee as { quote: { token: string } }).quote.token;

  /** Server CPU µs per request of `query`, the i-th request's variables from `variablesOf` (distinct bodies). */
  const measure = async (query: string, variablesOf: (i: number) => Record<string, unknown>): Promise<number> => {
    let i = 0;
    const run = async (count: number) => {
      const worker = async () => {
        while (i < count) await post(query, variablesOf(i++));
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    };
    await run(Math.min(300, REQUESTS)); // warm-up: compiled documents, JIT
    i = 0;
    const cpu0 = server!.pids().reduce((s, pid) => s + cpuMs(pid), 0);
    await run(REQUESTS);
    const cpu = server!.pids().reduce((s, pid) => s + cpuMs(pid), 0) - cpu0;
    return (cpu * 1000) / REQUESTS;
  };
  const amount = (i: number) => ({ a: 150000 + (i % 5_000_000) });
  // Channels that cannot price 150,000 (maintenance, offline) sign nothing: the signatures one list makes.
  const signatures = ((await post(LIST_FEES_QUOTED, { a: 150000 })).paymentChannels as { fee: { quote: unknown } | null }[]).filter((c) => c.fee?.quote).length;
  const rows: [string, number][] = [
    ['list (the unit)', await measure(LIST, (i) => ({ n: i }))],
    ['calculateFee', await measure(CALC, amount)],
    ['calculateFee + quote (1 signature)', await measure(CALC_QUOTED, amount)],
    ['list + fee per channel', await measure(LIST_FEES, amount)],
    [`list + fee + quote per channel (${signatures} signatures)`, await measure(LIST_FEES_QUOTED, amount)],
    ['verifyQuote', await measure(VERIFY, (i) => ({ t: token, n: i }))],
    ['15 × verifyQuote (aliases)', await measure(VERIFY_15, (i) => ({ t: token, n: i }))],
  ];
  const unit = rows[0]![1];
  const lines = [
    `# Quote work against the work unit: server CPU per request, ${REQUESTS} requests per document, ${CONCURRENCY} at a time`,
    '',
    `${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}, Node ${process.version}`,
    '',
    '| document | server CPU µs / request | ÷ list |',
    '|---|---:|---:|',
    ...rows.map(([name, us]) => `| ${name} | ${us.toFixed(0)} | ${(us / unit).toFixed(2)} |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  if (server) await stopProcess(server.child);
  fs.rmSync(tmp, { recursive: true, force: true });
}
