/**
 * `npm run bench:ab -- <commit> [--scenario rest-list|gql-channels|gql-calc-uncached] [--rounds 3] [--seconds 5]`
 *
 * Two builds of the project, measured in ONE run, interleaved: the given commit (checked out into a temporary
 * git worktree that borrows this clone's node_modules, built as `npm start` builds it) and the working tree.
 * Each round starts the old build, then the new one, over the same seeded DATA_DIR, and drives each with 50
 * signed connections. Reported per build: req/s, p99 and server CPU µs per request, every round and the
 * median. On a shared machine the absolute figures of two separate runs move by ±50 %; alternating the two
 * builds round by round is what lets a 10 % change be told from the noise (issue 12: "compare ratios and
 * server CPU per request within one run").
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { signatureHeaders } from '../src/auth/svc1.js';
import { bootData } from '../src/boot.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : (args[at + 1] ?? fallback);
};
const commit = args.find((a, i) => !a.startsWith('--') && (i === 0 || !args[i - 1]!.startsWith('--')));
if (!commit) {
  process.stderr.write('usage: npm run bench:ab -- <commit> [--scenario rest-list|gql-channels|gql-calc-uncached] [--rounds 3] [--seconds 5]\n');
  process.exit(2);
}
const scenario = option('scenario', 'rest-list');
const rounds = Number(option('rounds', '3'));
const seconds = Number(option('seconds', '5'));
if (!['rest-list', 'gql-channels', 'gql-calc-uncached'].includes(scenario) || !(rounds >= 1) || !(seconds >= 1)) {
  process.stderr.write(`bad options: scenario ${scenario}, rounds ${rounds}, seconds ${seconds}\n`);
  process.exit(2);
}

/** The per-key rate limit raised as in bench/bench.ts: the limiter still runs, a 429 measures nothing. */
const BENCH_LIMITS = { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' };

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-ab-'));
const worktree = path.join(tmp, 'old');
execFileSync('git', ['worktree', 'add', '--detach', '--quiet', worktree, commit], { cwd: ROOT, stdio: 'inherit' });
let children: ChildProcess[] = [];
const cleanUp = () => {
  for (const c of children) c.kill('SIGKILL');
  execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT });
  fs.rmSync(tmp, { recursive: true, force: true });
};
try {
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'));
  for (const dir of [worktree, ROOT]) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, stdio: 'inherit' });

  const dataDir = path.join(tmp, 'data');
  const data = await bootData({ dataDir, masterKey: null, seedDemoData: true });
  const creds = data.seeded!.find((m) => m.kyc === 'approved')!;
  await data.store.close();

  const cpuMs = (pid: number): number => {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  const start = async (cwd: string): Promise<{ child: ChildProcess; port: number }> => {
    const log = path.join(tmp, `server-${Date.now()}.log`);
    const out = fs.openSync(log, 'w');
    const child = spawn(process.execPath, ['dist/main.mjs'], {
      cwd,
      env: { ...process.env, NODE_ENV: 'production', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...BENCH_LIMITS },
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    children.push(child);
    for (const deadline = Date.now() + 30_000; ; ) {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(fs.readFileSync(log, 'utf8'));
      if (m) return { child, port: Number(m[1]) };
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server in ${cwd} did not start:\n${fs.readFileSync(log, 'utf8').slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const GQL_LIST = JSON.stringify({ query: '{ paymentChannels { code name status feeInfo { feePercentage feeValue } } }' });
  const GQL_CALC = 'query Fee($amount: Decimal!) { calculateFee(input: { amount: $amount, currency: "IDR", method: "QRIS" }) { fee additionalFee totalAmount getBalance currency } }';
  let sent = 0;
  const target = scenario === 'rest-list' ? '/v1/payments/channel' : '/graphql';
  const method = scenario === 'rest-list' ? 'GET' : 'POST';
  const bodyFor = (): string =>
    scenario === 'rest-list' ? '' : scenario === 'gql-channels' ? GQL_LIST : JSON.stringify({ query: GQL_CALC, variables: { amount: 150000 + sent++ } });

  const measure = async (port: number, pid: number) => {
    const opts = {
      url: `http://127.0.0.1:${port}`,
      connections: 50,
      requests: [
        {
          method: method as 'GET' | 'POST',
          path: target,
          setupRequest: (q: autocannon.Request) => {
            const body = bodyFor();
            const signed = signatureHeaders(creds.apiKey, creds.apiSecret, { method, target, body });
            return method === 'POST' ? { ...q, body, headers: { 'content-type': 'application/json', ...signed } } : { ...q, headers: signed };
          },
        },
      ],
    };
    await autocannon({ ...opts, duration: 1 });
    const cpu0 = cpuMs(pid);
    const r = await autocannon({ ...opts, duration: seconds });
    const cpu = ((cpuMs(pid) - cpu0) * 1000) / r.requests.total;
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors: the cell measures failures`);
    return { rps: r.requests.average, p99: r.latency.p99, cpu };
  };

  const builds = [
    { name: `old ${commit}`, dir: worktree, runs: [] as { rps: number; p99: number; cpu: number }[] },
    { name: 'new (working tree)', dir: ROOT, runs: [] as { rps: number; p99: number; cpu: number }[] },
  ];
  process.stdout.write(`bench:ab ${scenario}, ${rounds} rounds of ${seconds} s per build, 50 connections, builds alternating\n`);
  for (let round = 1; round <= rounds; round++) {
    for (const b of builds) {
      const s = await start(b.dir);
      const m = await measure(s.port, s.child.pid!);
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
      children = children.filter((c) => c !== s.child);
      b.runs.push(m);
      process.stdout.write(`  round ${round}  ${b.name.padEnd(24)} ${Math.round(m.rps)} req/s  p99 ${m.p99} ms  cpu ${m.cpu.toFixed(1)} µs/req\n`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [oldB, newB] = builds.map((b) => ({ rps: median(b.runs.map((r) => r.rps)), cpu: median(b.runs.map((r) => r.cpu)), p99: median(b.runs.map((r) => r.p99)) }));
  process.stdout.write(
    `median  old ${Math.round(oldB!.rps)} req/s, ${oldB!.cpu.toFixed(1)} µs/req, p99 ${oldB!.p99} ms  |  new ${Math.round(newB!.rps)} req/s, ${newB!.cpu.toFixed(1)} µs/req, p99 ${newB!.p99} ms  |  CPU/request ${(((newB!.cpu - oldB!.cpu) / oldB!.cpu) * 100).toFixed(1)} %\n`,
  );
} finally {
  cleanUp();
}
