/**
 * `npm run bench:instructions -- [--env K=V,…] [--scenario rest-list] [--requests 3000] [--warmup 20000] [--connections 8]`
 *
 * Machine instructions per request of the built server (`npm start`'s bundle and flags), counted by valgrind's
 * callgrind (Debian package `valgrind`; not needed by CI), tracing off against the same build with `--env`
 * (e.g. `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318`). Both servers run at once; each gets `--warmup`
 * signed requests uncounted (its JIT settles), then `--requests` counted ones over `--connections` keep-alive
 * connections. Printed per side: instructions per request on the main thread, on the other threads (V8's
 * platform threads: concurrent marking, sweeping, background compilation; a trace export worker), and in all.
 *
 * Why: CPU time per request on the shared 2-core machine moves by ±5–10 % between runs even side by side,
 * so a 3 % bound cannot be resolved by `bench:ab` without many runs. An instruction count does not depend on
 * the neighbours: two runs of one build agree within about 1–2 % (the young generation is fixed at its
 * `npm start` maximum, `--min-semi-space-size`, so the number of scavenges does not drift between runs).
 *
 * What it does not show: time (cache misses, kernel work, waiting); and under valgrind the server runs some
 * 40× slower while timers keep wall-clock time, so work done per second rather than per request (a trace
 * export every OTEL_BSP_SCHEDULE_DELAY, catalogue catch-up polls, V8's memory reducer) weighs about 40× more
 * per request here than in production. Compare what a change does per request; read per-second work in a
 * `bench:ab` run or a CPU profile.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { bootData } from '../src/app/boot.js';
import { BENCH_LIMITS, npmStartArgs, sleep } from './processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : (args[i + 1] ?? fallback);
};
const requests = Number(option('requests', '3000'));
const warmup = Number(option('warmup', '20000'));
const connections = Number(option('connections', '8'));
const scenario = option('scenario', 'rest-list');
const env: Record<string, string> = Object.fromEntries(
  option('env', '')
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
if (!(requests >= 100) || !(warmup >= 0) || !(connections >= 1) || scenario !== 'rest-list') {
  process.stderr.write('usage: npm run bench:instructions -- [--env K=V,…] [--scenario rest-list] [--requests ≥100] [--warmup N] [--connections N]\n');
  process.exit(2);
}
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  process.stderr.write('bench:instructions needs valgrind (Debian: apt-get install valgrind)\n');
  process.exit(2);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-instructions-'));
const children: ChildProcess[] = [];
// vgdb (what callgrind_control talks through) names its pipes after USER and HOST: the server's HOST is its
// listen address, so the control commands get the same values.
const VG_ENV = { USER: 'bench', LOGNAME: 'bench', HOST: '127.0.0.1' };
const control = (pid: number, ...command: string[]) =>
  execFileSync('callgrind_control', [...command, String(pid)], { env: { ...process.env, ...VG_ENV }, stdio: 'ignore' });

try {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  const dataDir = path.join(tmp, 'data');
  const data = await bootData({ dataDir, masterKey: null, seedDemoData: true });
  const creds = data.seeded!.find((m) => m.kyc === 'approved')!;
  await data.store.close();
  const target = '/v1/payments/channel';
  // npm start's flags; the young generation fixed at its maximum (see the header).
  const flags = npmStartArgs(ROOT).filter((a) => a !== 'dist/main.mjs');
  const semi = flags.find((f) => f.startsWith('--max-semi-space-size='));

  const side = async (name: string, sideEnv: Record<string, string>) => {
    const out = path.join(tmp, `callgrind-${name}.out`);
    const log = path.join(tmp, `server-${name}.log`);
    const fd = fs.openSync(log, 'w');
    const child = spawn(
      'valgrind',
      ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${out}`, fs.realpathSync(process.execPath), ...flags, ...(semi ? [semi.replace('max', 'min')] : []), 'dist/main.mjs'],
      { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', DATA_DIR: dataDir, PORT: '0', ...BENCH_LIMITS, ...sideEnv, ...VG_ENV }, stdio: ['ignore', fd, fd] },
    );
    fs.closeSync(fd);
    children.push(child);
    let port = 0;
    for (const deadline = Date.now() + 120_000; port === 0; ) {
      const text = fs.readFileSync(log, 'utf8');
      port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text)?.[1] ?? 0);
      if (port !== 0) break;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${name} did not start:\n${text.slice(-2000)}`);
      await sleep(500);
    }
    const drive = (amount: number) =>
      autocannon({
        url: `http://127.0.0.1:${port}`,
        connections,
        amount,
        timeout: 120,
        requests: [{ method: 'GET', path: target, setupRequest: (q: autocannon.Request) => ({ ...q, headers: signatureHeaders(creds.apiKey, creds.apiSecret, { method: 'GET', target, body: '' }) }) }],
      });
    if (warmup > 0) await drive(warmup);
    control(child.pid!, '-i', 'on');
    const r = await drive(requests);
    control(child.pid!, '-d');
    await sleep(1000);
    if (r.non2xx > 0 || r.errors > 0 || r.requests.total !== requests) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.requests.total} answers: the count measures failures`);
    // One file per thread: `<out>.1-01` is the main thread (valgrind numbers threads from 1 in creation order).
    let main = 0;
    let others = 0;
    for (const file of fs.readdirSync(tmp).filter((f) => f.startsWith(`callgrind-${name}.out.`))) {
      const text = fs.readFileSync(path.join(tmp, file), 'utf8');
      const total = Number(/^(?:summary|totals): (\d+)/m.exec(text)?.[1] ?? 0);
      if (/^thread: 1$/m.test(text)) main += total;
      else others += total;
    }
    child.kill('SIGKILL');
    return { name, main: main / requests, others: others / requests };
  };

  process.stdout.write(`bench:instructions ${scenario}: ${warmup} requests uncounted, then ${requests} counted over ${connections} connections\n`);
  const [off, on] = await Promise.all([side('off', {}), side('env', env)]);
  const k = (n: number) => `${(n / 1000).toFixed(1)} k`;
  const change = (a: number, b: number) => `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)} %`;
  for (const s of [off, on]) process.stdout.write(`  ${s.name === 'off' ? 'as is' : Object.keys(env).join(',') || 'as is (again)'}: main thread ${k(s.main)}, other threads ${k(s.others)}, all ${k(s.main + s.others)} instructions per request\n`);
  process.stdout.write(`change: main thread ${change(off.main, on.main)}, all threads ${change(off.main + off.others, on.main + on.others)}\n`);
} finally {
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
}
