/**
 * `npm run cluster:local`: Postgres + Redis + N replicas + HAProxy
 * from one command. Checks every replica and the balancer (/health, a signed GET /v1/payments/channel with
 * the shared DATA_DIR's demo credentials); that the banners and cluster.env send people and tools to the
 * balancer with the cluster's credentials; then, under steady load through HAProxy (about 100 requests/s,
 * signed GETs and POSTs), that a SIGTERM to one replica and a SIGKILL to another cost no request; then
 * SIGINT to the script alone stops everything: no process left, every port free, the temporary
 * directories gone.
 *
 * The first replica starts alone (migrations, demo seed, demo-credentials.json), the others after it. A
 * server that ignores DATABASE_URL still answers (the replicas then share the SQLite file in the shared
 * DATA_DIR), so one test checks that no SQLite database appears there: the state must be in Postgres.
 *
 * One pass (npm test): it runs on Postgres in every pass.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { DATABASE_FILE } from '../../src/storage/index.js';
import { makeTempDir } from '../helpers/app.js';
import { alive, clusterMerchant, gone, processMentioning, sleep, startClusterLocal, type ClusterReady, type LocalCluster } from '../helpers/cluster-local.js';
import { acceptsConnections, localServicesSkipReason } from '../helpers/local-services.js';
import { PROJECT_ROOT } from '../helpers/server.js';

const skip = localServicesSkipReason('postgres', 'redis', 'haproxy');

let cluster: LocalCluster | undefined;
let ready: ClusterReady | undefined;
let workDir: string | undefined;

/** The approved demo merchant of the cluster's DATA_DIR. */
const merchant = (): DemoMerchantCredentials => clusterMerchant(ready!);

/** What a load run saw: every request's outcome that was not a 200 with the expected body. */
interface LoadResult {
  sent: number;
  ok: number;
  failures: string[];
}

/**
 * Steady load through the balancer: one request every `1000 / perSecond` ms, signed GETs and POSTs in
 * turn, each bounded by a 10 s timeout (a request a dead replica swallowed would count as failed, not hang).
 */
function startLoad(baseUrl: string, perSecond: number): { stop(): Promise<LoadResult> } {
  const who = merchant();
  const result: LoadResult = { sent: 0, ok: 0, failures: [] };
  const pending = new Set<Promise<void>>();
  const calc = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: who.merchantId, chargeFeeToCustomer: true });
  const one = async (n: number) => {
    const post = n % 2 === 1;
    const target = post ? '/v1/payments/calculate' : '/v1/payments/channel';
    const body = post ? calc : '';
    const headers = { ...signatureHeaders(who.apiKey, who.apiSecret, { method: post ? 'POST' : 'GET', target, body }), ...(post ? { 'content-type': 'application/json' } : {}) };
    try {
      const res = await fetch(`${baseUrl}${target}`, { method: post ? 'POST' : 'GET', headers, body: post ? body : undefined, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      const good = res.status === 200 && (post ? (JSON.parse(text) as { fee?: number }).fee === 1050 : text.includes('"qris"'));
      if (good) result.ok++;
      else result.failures.push(`${target}: ${res.status} ${text.slice(0, 200)}`);
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? ` (${err.cause.message})` : '';
      result.failures.push(`${target}: ${err instanceof Error ? err.message : String(err)}${cause}`);
    }
  };
  const timer = setInterval(() => {
    const p = one(result.sent++).finally(() => pending.delete(p));
    pending.add(p);
  }, 1000 / perSecond);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return result;
    },
  };
}

beforeAll(async () => {
  if (skip) return;
  workDir = makeTempDir('pgw-cluster-local-');
  // The load below is one API key at about 100 requests/s: above the default per-key budget (shared in Redis).
  cluster = await startClusterLocal({ dataDir: path.join(workDir, 'cluster'), env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '1000000' } });
  ready = cluster.ready;
}, 150_000);

afterAll(async () => {
  // Only if a test failed before the SIGINT test ran: the script stops its own children on SIGINT.
  await cluster?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(skip)('npm run cluster:local', () => {
  it('prints the balancer, three replicas, DATABASE_URL and REDIS_URL', () => {
    expect(ready!.replicas).toHaveLength(3);
    expect(ready!.databaseUrl).toMatch(/^postgres:\/\/[^@]+@127\.0\.0\.1:\d+\/\w+$/);
    expect(ready!.redisUrl).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster!.output()).toContain(`DATABASE_URL=${ready!.databaseUrl}`);
    expect(cluster!.output()).toContain(`REDIS_URL=${ready!.redisUrl}`);
    expect(fs.statSync(path.join(ready!.dataDir, 'cluster.env')).mode & 0o777).toBe(0o600);
  });

  it('every replica and the balancer answer /health 200 and a signed GET /v1/payments/channel 200', async () => {
    const credentials = (JSON.parse(fs.readFileSync(path.join(ready!.dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants;
    const merchant = credentials.find((m) => m.kyc === 'approved')!;
    // HAProxy round-robins per request: six requests reach every replica twice.
    const targets = [...ready!.replicas.map((r) => r.url), ...Array<string>(6).fill(ready!.balancer)];
    for (const base of targets) {
      expect((await fetch(`${base}/health`)).status, `${base}/health`).toBe(200);
      const headers = signatureHeaders(merchant.apiKey, merchant.apiSecret, { method: 'GET', target: '/v1/payments/channel', body: '' });
      const res = await fetch(`${base}/v1/payments/channel`, { headers: { ...headers, connection: 'close' } });
      expect(res.status, `${base}/v1/payments/channel: ${await res.clone().text()}`).toBe(200);
    }
  });

  it('through HAProxy each client has its own address budget: 30 bad signatures from 127.0.0.5, then one from 127.0.0.6 is 401, not 429', async () => {
    const who = merchant();
    /** A GET signed with a wrong secret, on a new connection bound to `localAddress`; resolves with the status. */
    const badFrom = (localAddress: string, base: string, extra: Record<string, string> = {}) => {
      const headers = signatureHeaders(who.apiKey, 'sk_test_wrong_secret', { method: 'GET', target: '/v1/payments/channel', body: '' });
      return new Promise<number>((resolve, reject) => {
        const req = http.request(new URL('/v1/payments/channel', base), { localAddress, headers: { ...headers, ...extra, connection: 'close' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });
    };
    const fromFive: number[] = [];
    for (let i = 0; i < 30; i++) fromFive.push(await badFrom('127.0.0.5', ready!.balancer));
    // The default budget (20 a minute, shared in Redis by the three replicas): spent by 127.0.0.5 alone.
    expect(fromFive.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(fromFive.slice(20)).toEqual(Array(10).fill(429));
    expect(await badFrom('127.0.0.6', ready!.balancer)).toBe(401);
    // Directly to a replica (bypassing HAProxy) from an address it does not trust: a forged X-Forwarded-For
    // naming a fresh address changes nothing, the spent budget of 127.0.0.5 is still spent.
    expect(await badFrom('127.0.0.5', ready!.replicas[2]!.url, { 'x-forwarded-for': '203.0.113.99' })).toBe(429);
  }, 60_000);

  it('prints the HAProxy configuration it runs (health check on /ready, retries) and its file', () => {
    const config = fs.readFileSync(ready!.haproxy.configFile, 'utf8');
    expect(config).toMatch(/option httpchk GET \/ready/);
    expect(config).toMatch(/retry-on conn-failure empty-response/);
    for (const line of config.trimEnd().split('\n')) expect(cluster!.output()).toContain(`  | ${line}`);
    expect(cluster!.output()).toContain(ready!.haproxy.configFile);
  });

  it('the replica banners point at the balancer and the cluster\'s credentials, never at a replica\'s own port', () => {
    ready!.replicas.forEach((r, i) => expect(cluster!.output()).toContain(`[replica ${i + 1}] Payment gateway at ${ready!.balancer} (the load balancer; this replica listens on ${r.url}), Node.js ${process.version}`));
    for (const r of ready!.replicas) expect(cluster!.output()).not.toContain(`export BASE_URL=${r.url}`);
    expect(cluster!.output()).toContain(`export GATEWAY_CREDENTIALS=${ready!.credentialsFile}`);
    expect(cluster!.output()).toContain(`set -a; . ${ready!.envFile}; set +a`);
  });

  it('cluster.env points npm run sign, the examples and the admin CLI at the cluster in one step', () => {
    // API_KEY/API_SECRET still exported from README's "First 5 minutes" (another server's keys): sourcing
    // cluster.env is enough, its keys win.
    const env = { ...process.env, API_KEY: 'pk_test_of_the_single_server', API_SECRET: 'sk_test_of_the_single_server', BASE_URL: '', DATA_DIR: '', DATABASE_URL: '', MASTER_KEY: '', GATEWAY_CREDENTIALS: '' };
    const inCluster = (command: string) => execFileSync('bash', ['-c', `set -a; . "$1"; set +a; ${command}`, 'bash', ready!.envFile], { cwd: PROJECT_ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const signed = inCluster('npm run --silent sign -- GET /v1/payments/channel 2>&1');
    expect(signed).toContain(`sign: credentials ${ready!.credentialsFile} (GATEWAY_CREDENTIALS)`);
    expect(signed).toContain(`sign: base URL ${ready!.balancer} (BASE_URL)`);
    const curl = signed.slice(signed.indexOf('curl:\n') + 'curl:\n'.length).trim();
    expect(curl).toContain(ready!.balancer);
    expect((JSON.parse(execFileSync('bash', ['-c', curl], { encoding: 'utf8' })) as { status: number }).status).toBe(200);
    expect(inCluster('docs/examples/svc1-curl.sh GET /v1/payments/channel')).toMatch(/"code":"qris"/);
    expect(inCluster('npm run --silent admin -- merchant list')).toContain('Toko Kopi Nusantara');
  }, 60_000);

  it('a second cluster:local on a port in use (say `npm start` still running) says so and starts and stops nothing', () => {
    const port = new URL(ready!.balancer).port;
    const dataDir = path.join(workDir!, 'second');
    let failed: { status: number; stderr: string; stdout: string } | undefined;
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'scripts/cluster-local.ts', '--port', port, '--no-build', '--data-dir', dataDir], { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      failed = err as { status: number; stderr: string; stdout: string };
    }
    expect(failed?.status).toBe(2);
    expect(failed!.stderr.trim()).toBe(`cluster:local: port ${port} is already in use (is \`npm start\` still running? stop it first, or choose another port with --port)`);
    expect(failed!.stdout).toBe('');
    expect(fs.existsSync(dataDir), 'nothing prepared').toBe(false);
  }, 30_000);

  it('the replicas keep their state in Postgres (DATABASE_URL), not in a SQLite file in DATA_DIR', () => {
    expect(fs.existsSync(path.join(ready!.dataDir, DATABASE_FILE)), `${DATABASE_FILE} in the shared DATA_DIR`).toBe(false);
  });

  it('steady load through HAProxy: a SIGTERM to a replica costs no request (drain by default)', async () => {
    const load = startLoad(ready!.balancer, 100);
    await sleep(1_000);
    const pid = ready!.replicas[0]!.pid;
    const signalled = Date.now();
    process.kill(pid, 'SIGTERM');
    await gone(pid);
    // Load for a fixed stretch, whatever the replica's drain takes: the failures are the measure.
    await sleep(Math.max(1_000, signalled + 5_000 - Date.now()));
    const result = await load.stop();
    expect(result.failures, result.failures.slice(0, 5).join('\n')).toEqual([]);
    expect(result.ok).toBeGreaterThan(300); // several seconds of load, not a handful of requests
  }, 60_000);

  it('steady load through HAProxy: a SIGKILL to a replica costs no request (retried on another one)', async () => {
    const load = startLoad(ready!.balancer, 100);
    await sleep(1_000);
    const pid = ready!.replicas[1]!.pid;
    process.kill(pid, 'SIGKILL');
    await gone(pid);
    await sleep(3_000); // past the health check's detection time (inter × fall = 2 s)
    const result = await load.stop();
    expect(result.failures, result.failures.slice(0, 5).join('\n')).toEqual([]);
    expect(result.ok).toBeGreaterThan(300);
  }, 60_000);

  it('SIGINT stops everything: no process left, ports free, service directories removed', async () => {
    expect(await cluster!.stop()).toBe(0);
    for (const r of ready!.replicas) expect(alive(r.pid), `replica pid ${r.pid}`).toBe(false);
    const ports = [ready!.balancer, ...ready!.replicas.map((r) => r.url)].map((u) => Number(new URL(u).port)).concat(ready!.servicePorts);
    for (const port of ports) expect(await acceptsConnections(port), `port ${port}`).toBe(false);
    for (const dir of ready!.serviceDirs) expect(fs.existsSync(dir), dir).toBe(false);
    expect(ready!.serviceDirs).toContain(ready!.haproxy.dir);
    expect(processMentioning(ready!.haproxy.configFile), 'a haproxy process').toBe(false);
  }, 60_000);
});
