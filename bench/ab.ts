/**
 * `npm run bench:ab -- <commit> [--scenario rest-list|gql-channels|gql-calc-uncached[,…]] [--rounds 3] [--seconds 5] [--warmup 1] [--rate N] [--env K=V,…]`
 * `npm run bench:ab -- --without <plugin,…> [--scenario …] [--rounds 3] [--seconds 5]`
 *
 * Two builds of the project, measured in ONE run, interleaved. Each round starts one build, then the other,
 * over the same seeded DATA_DIR, and drives each with 50 signed connections. Reported per build: req/s, p99
 * and server CPU µs per request, every round and the median. On a shared machine the absolute figures of two
 * separate runs move by ±50 %; alternating the two builds round by round is what lets a 10 % change be told
 * from the noise ("compare ratios and server CPU per request within one run").
 *
 * - `<commit>`: that commit (checked out into a temporary git worktree that borrows this clone's
 *   node_modules, built as `npm start` builds it) against the working tree.
 * - `--old-node <node binary>`: with `<commit>`, the old build runs on that Node (e.g. /usr/bin/node, the
 *   machine's older one) with node_modules of its own (`npm ci` from its lockfile, so native modules match that
 *   Node's ABI): a runtime upgrade compared as each side really runs. `--old-checkout DIR` uses DIR, a checkout
 *   of `<commit>` already installed for that Node, instead of a new worktree and install. `--env K=V,…`:
 *   environment of the working tree's server only (e.g. `OTEL_EXPORTER_OTLP_ENDPOINT=…` to measure tracing on
 *   against a commit).
 * - `--without p,…`: the working tree against itself with those pipeline plugins left out
 *   (bench/servers/project-ablation.ts, bundled as `npm start`'s bundle is; names as in src/app/app.ts): what
 *   they cost under load, which an in-process ablation (bench:pipeline) cannot show.
 * - `--rate N`: offer both builds the same N requests a second (spread over the 50 connections) instead of as
 *   many as they answer. At full speed a build that answers fewer requests also batches fewer per event-loop
 *   turn and per write, so its CPU per request rises for that reason alone; on a loaded machine the throughput
 *   a round gets moves with the neighbours' work. At a rate both builds sustain, CPU per request compares the
 *   work each does per request (the figure a cost bound such as "3 % more CPU per request" is about).
 *   `--together` (with `--rate`): both builds run at once, each offered N requests a second, so that whatever
 *   else the machine does in a round falls on both alike instead of on whichever build had that round's turn.
 * - `--warmup S` (default 1): seconds of traffic before each round's measurement. A build's one-time work on
 *   first use falls in it, not in the measured seconds: with tracing on, the first span export comes about 5 s
 *   after the first sampled request (OTEL_BSP_SCHEDULE_DELAY) and loads and compiles the export path once
 *   (tens of ms), which a 10-s round would charge to a few thousand requests; `--warmup 7` measures after it.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { signatureHeaders } from '../src/modules/auth/svc1.js';
import { bootData } from '../src/app/boot.js';
import { GQL_CHANNELS, gqlCalcFor } from './documents.js';
import { BENCH_LIMITS, cpuMs, startProcess, stopProcess } from './processes.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : (args[at + 1] ?? fallback);
};
const USAGE = 'usage: npm run bench:ab -- (<commit> [--old-node PATH] | --without <plugin,…>) [--scenario rest-list|gql-channels|gql-calc-uncached] [--rounds 3] [--seconds 5] [--warmup 1] [--rate N] [--env K=V,…]\n';
const without = option('without', '');
const oldNode = option('old-node', '');
const oldCheckout = option('old-checkout', '');
const commit = args.find((a, i) => !a.startsWith('--') && (i === 0 || !args[i - 1]!.startsWith('--')));
if (Boolean(commit) === Boolean(without) || (oldNode && !commit)) {
  process.stderr.write(USAGE);
  process.exit(2);
}
// Several scenarios (comma-separated) share one set-up: the builds (and an --old-node install) are made once.
const scenarios = option('scenario', 'rest-list').split(',');
const rounds = Number(option('rounds', '3'));
const seconds = Number(option('seconds', '5'));
const warmup = Number(option('warmup', '1'));
const rate = Number(option('rate', '0'));
const together = args.includes('--together');
const newEnv: Record<string, string> = Object.fromEntries(
  option('env', '')
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
if (!scenarios.every((s) => ['rest-list', 'gql-channels', 'gql-calc-uncached'].includes(s)) || !(rounds >= 1) || !(seconds >= 1) || !(warmup >= 1) || !(rate >= 0) || (together && !(rate > 0))) {
  process.stderr.write(`bad options: scenario ${scenarios.join(',')}, rounds ${rounds}, seconds ${seconds}, rate ${rate}\n`);
  process.exit(2);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-ab-'));
const worktree = commit ? (oldCheckout ? path.resolve(oldCheckout) : path.join(tmp, 'old')) : null;
if (worktree && !oldCheckout) execFileSync('git', ['worktree', 'add', '--detach', '--quiet', worktree, commit!], { cwd: ROOT, stdio: 'inherit' });
let children: ChildProcess[] = [];
const cleanUp = () => {
  for (const c of children) c.kill('SIGKILL');
  if (worktree && !oldCheckout) execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT });
  fs.rmSync(tmp, { recursive: true, force: true });
};
/** One side of the comparison: where its bundle lives, which bundle, and its environment. */
interface Build {
  name: string;
  dir: string;
  entry: string;
  env: Record<string, string>;
  /** The Node binary that runs it (default: this process's). */
  node?: string;
  runs: { rps: number; p99: number; cpu: number }[];
}
try {
  // In the repository, so that the bundle's package imports resolve to node_modules (packages stay external).
  const ablation = path.join(ROOT, 'dist', 'bench-ablation.mjs');
  const builds: Build[] = worktree
    ? [
        { name: `old ${commit}${oldNode ? ` on ${execFileSync(oldNode, ['--version'], { encoding: 'utf8' }).trim()}` : ''}`, dir: worktree, entry: 'dist/main.mjs', env: {}, runs: [], ...(oldNode ? { node: oldNode } : {}) },
        { name: `new (working tree)${Object.keys(newEnv).length > 0 ? ` ${Object.keys(newEnv).join(',')}` : ''}`, dir: ROOT, entry: 'dist/main.mjs', env: newEnv, runs: [] },
      ]
    : [
        { name: 'all plugins', dir: ROOT, entry: ablation, env: { ABLATE: '' }, runs: [] },
        { name: `without ${without}`, dir: ROOT, entry: ablation, env: { ABLATE: without }, runs: [] },
      ];
  if (worktree) {
    if (oldCheckout) {
      execFileSync(oldNode || process.execPath, ['scripts/build.mjs'], { cwd: worktree, stdio: 'inherit' });
    } else if (oldNode) {
      // Its own install, run by npm on the old Node (first on PATH), so better-sqlite3 is built for that ABI.
      const env = { ...process.env, PATH: `${path.dirname(oldNode)}:${process.env.PATH ?? ''}`, npm_config_nodedir: path.dirname(path.dirname(fs.realpathSync(oldNode))) };
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: worktree, stdio: 'inherit', env });
      execFileSync(oldNode, ['scripts/build.mjs'], { cwd: worktree, stdio: 'inherit' });
    } else {
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'));
      execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: worktree, stdio: 'inherit' });
    }
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  } else {
    execFileSync(process.execPath, ['scripts/build.mjs', 'bench/servers/project-ablation.ts', ablation], { cwd: ROOT, stdio: 'inherit' });
  }

  const dataDir = path.join(tmp, 'data');
  const data = await bootData({ dataDir, masterKey: null, seedDemoData: true });
  const creds = data.seeded!.find((m) => m.kyc === 'approved')!;
  await data.store.close();

  const start = async (b: Build): Promise<{ child: ChildProcess; port: number }> => {
    const started = await startProcess({
      args: [b.entry],
      cwd: b.dir,
      env: { NODE_ENV: 'production', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...BENCH_LIMITS, ...b.env },
      logFile: path.join(tmp, `server-${Date.now()}.log`),
      label: b.name,
      ...(b.node ? { node: b.node } : {}),
    });
    children.push(started.child);
    return started;
  };

  for (const scenario of scenarios) {
    for (const b of builds) b.runs = [];
    let sent = 0;
    const target = scenario === 'rest-list' ? '/v1/payments/channel' : '/graphql';
    const method = scenario === 'rest-list' ? 'GET' : 'POST';
    const bodyFor = (): string =>
      scenario === 'rest-list' ? '' : scenario === 'gql-channels' ? GQL_CHANNELS : gqlCalcFor(sent++);

    const measure = async (port: number, pid: number) => {
      const opts = {
        url: `http://127.0.0.1:${port}`,
        connections: 50,
        ...(rate > 0 ? { overallRate: rate } : {}),
        requests: [
          {
            // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- autocannon's Options want the literal union, not the widened string
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
      await autocannon({ ...opts, duration: warmup });
      const cpu0 = cpuMs(pid);
      const r = await autocannon({ ...opts, duration: seconds });
      const cpu = ((cpuMs(pid) - cpu0) * 1000) / r.requests.total;
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors: the cell measures failures`);
      return { rps: r.requests.average, p99: r.latency.p99, cpu };
    };

    process.stdout.write(`bench:ab ${scenario}, ${rounds} rounds of ${seconds} s per build, 50 connections${rate > 0 ? `, ${rate} req/s offered` : ''}, builds ${together ? 'side by side' : 'alternating'}\n`);
    for (let round = 1; round <= rounds; round++) {
      if (together) {
        const started = await Promise.all(builds.map((b) => start(b)));
        const ms = await Promise.all(started.map((s) => measure(s.port, s.child.pid!)));
        for (const [i, b] of builds.entries()) {
          await stopProcess(started[i]!.child);
          children = children.filter((c) => c !== started[i]!.child);
          b.runs.push(ms[i]!);
          process.stdout.write(`  round ${round}  ${b.name.padEnd(24)} ${Math.round(ms[i]!.rps)} req/s  p99 ${ms[i]!.p99} ms  cpu ${ms[i]!.cpu.toFixed(1)} µs/req\n`);
        }
        continue;
      }
      for (const b of builds) {
        const s = await start(b);
        const m = await measure(s.port, s.child.pid!);
        await stopProcess(s.child);
        children = children.filter((c) => c !== s.child);
        b.runs.push(m);
        process.stdout.write(`  round ${round}  ${b.name.padEnd(24)} ${Math.round(m.rps)} req/s  p99 ${m.p99} ms  cpu ${m.cpu.toFixed(1)} µs/req\n`);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [first, second] = builds.map((b) => ({ name: b.name, rps: median(b.runs.map((r) => r.rps)), cpu: median(b.runs.map((r) => r.cpu)), p99: median(b.runs.map((r) => r.p99)) }));
    const line = (m: typeof first) => `${m!.name}: ${Math.round(m!.rps)} req/s, ${m!.cpu.toFixed(1)} µs/req, p99 ${m!.p99} ms`;
    const change = `CPU/request ${(((second!.cpu - first!.cpu) / first!.cpu) * 100).toFixed(1)} %`;
    // For an ablation the difference is the left-out plugins' price per request, the figure a cost table wants.
    const price = without ? `; ${without} cost ${(first!.cpu - second!.cpu).toFixed(1)} µs/req` : '';
    process.stdout.write(`median  ${line(first)}  |  ${line(second)}  |  ${change}${price}\n`);
  }
} finally {
  cleanUp();
}
