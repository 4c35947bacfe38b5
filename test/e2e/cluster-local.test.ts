/**
 * `npm run cluster:local` (issue 11 item 8): Postgres + Redis + N replicas + a round-robin balancer from
 * one command. Checks every replica and the balancer (/health, a signed GET /v1/payments/channel with the
 * shared DATA_DIR's demo credentials), then SIGINT to the script alone stops everything: no process left,
 * every port free, the services' temporary directories gone.
 *
 * The first replica starts alone (migrations, demo seed, demo-credentials.json), the others after it. A
 * server that ignores DATABASE_URL still answers (the replicas then share the SQLite file in the shared
 * DATA_DIR), so one test checks that no SQLite database appears there: the state must be in Postgres.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { DATABASE_FILE } from '../../src/storage/index.js';
import { makeTempDir } from '../helpers/app.js';
import { acceptsConnections, localServicesSkipReason } from '../helpers/local-services.js';
import { PROJECT_ROOT } from '../helpers/server.js';

const skip = localServicesSkipReason('postgres', 'redis');

interface Ready {
  balancer: string;
  replicas: { url: string; pid: number }[];
  databaseUrl: string;
  redisUrl: string;
  dataDir: string;
  serviceDirs: string[];
  servicePorts: number[];
}

let child: ChildProcess | undefined;
let output = '';
let ready: Ready | undefined;
let workDir: string | undefined;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // ESRCH: gone
  }
}

beforeAll(async () => {
  if (skip) return;
  workDir = makeTempDir('pgw-cluster-local-');
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster-local.ts', '--replicas', '3', '--port', '0', '--base-port', '0', '--data-dir', path.join(workDir, 'cluster')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cluster not ready in 120 s:\n${output}`)), 120_000);
    const check = () => {
      const m = /^CLUSTER_READY (.+)$/m.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(JSON.parse(m[1]!) as Ready);
      }
    };
    child!.stdout!.on('data', check);
    child!.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cluster:local exited (${code}) before it was ready:\n${output}`));
    });
  });
}, 150_000);

afterAll(async () => {
  // Only if a test failed before the SIGINT test ran: the script stops its own children on SIGINT.
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(skip)('npm run cluster:local', () => {
  it('prints the balancer, three replicas, DATABASE_URL and REDIS_URL', () => {
    expect(ready!.replicas).toHaveLength(3);
    expect(ready!.databaseUrl).toMatch(/^postgres:\/\/[^@]+@127\.0\.0\.1:\d+\/\w+$/);
    expect(ready!.redisUrl).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toContain(`DATABASE_URL=${ready!.databaseUrl}`);
    expect(output).toContain(`REDIS_URL=${ready!.redisUrl}`);
    expect(fs.statSync(path.join(ready!.dataDir, 'cluster.env')).mode & 0o777).toBe(0o600);
  });

  it('every replica and the balancer answer /health 200 and a signed GET /v1/payments/channel 200', async () => {
    const credentials = (JSON.parse(fs.readFileSync(path.join(ready!.dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants;
    const merchant = credentials.find((m) => m.kyc === 'approved')!;
    // The balancer round-robins per connection: six fresh connections reach every replica twice.
    const targets = [...ready!.replicas.map((r) => r.url), ...Array<string>(6).fill(ready!.balancer)];
    for (const base of targets) {
      expect((await fetch(`${base}/health`)).status, `${base}/health`).toBe(200);
      const headers = signatureHeaders(merchant.apiKey, merchant.apiSecret, { method: 'GET', target: '/v1/payments/channel', body: '' });
      const res = await fetch(`${base}/v1/payments/channel`, { headers: { ...headers, connection: 'close' } });
      expect(res.status, `${base}/v1/payments/channel: ${await res.clone().text()}`).toBe(200);
    }
  });

  it('the replicas keep their state in Postgres (DATABASE_URL), not in a SQLite file in DATA_DIR', () => {
    expect(fs.existsSync(path.join(ready!.dataDir, DATABASE_FILE)), `${DATABASE_FILE} in the shared DATA_DIR`).toBe(false);
  });

  it('SIGINT stops everything: no process left, ports free, service directories removed', async () => {
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child!.kill('SIGINT');
    expect(await exited).toBe(0);
    for (const r of ready!.replicas) expect(alive(r.pid), `replica pid ${r.pid}`).toBe(false);
    const ports = [ready!.balancer, ...ready!.replicas.map((r) => r.url)].map((u) => Number(new URL(u).port)).concat(ready!.servicePorts);
    for (const port of ports) expect(await acceptsConnections(port), `port ${port}`).toBe(false);
    for (const dir of ready!.serviceDirs) expect(fs.existsSync(dir), dir).toBe(false);
  }, 60_000);
});
