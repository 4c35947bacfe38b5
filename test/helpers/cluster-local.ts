/**
 * `npm run cluster:local` (scripts/cluster-local.ts) for end-to-end tests: start it on free ports with a DATA_DIR
 * of the test's own, wait for its `CLUSTER_READY {json}` line, and stop it (SIGINT to the script, which stops
 * HAProxy, every replica, Redis and Postgres and removes their directories). Plus the small process probes
 * the tests need around it (is a pid alive, wait until it is gone).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { PROJECT_ROOT } from './server.js';

/** What the script prints on its `CLUSTER_READY` line. */
export interface ClusterReady {
  balancer: string;
  haproxy: { dir: string; configFile: string; port: number };
  envFile: string;
  credentialsFile: string;
  replicas: { url: string; pid: number }[];
  databaseUrl: string;
  redisUrl: string;
  dataDir: string;
  serviceDirs: string[];
  servicePorts: number[];
}

/** A running `npm run cluster:local`. */
export interface LocalCluster {
  child: ChildProcess;
  ready: ClusterReady;
  /** Everything the script (and its replicas, prefixed) printed so far, stdout and stderr. */
  output(): string;
  /** SIGINT to the script (unless it has exited); resolves with its exit code once it has stopped everything. */
  stop(): Promise<number | null>;
}

/** Options of {@link startClusterLocal}. */
export interface ClusterLocalOptions {
  /** The cluster's DATA_DIR (the script empties and owns it). */
  dataDir: string;
  replicas?: number;
  /** Added to this process's environment (the replicas inherit it). */
  env?: Record<string, string>;
  /** How long start-up (build, Postgres, Redis, replicas, HAProxy) may take. */
  timeoutMs?: number;
  /** Further command-line arguments of the script (`--otlp URL`). */
  args?: string[];
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Start `npm run cluster:local` on free ports and wait for its `CLUSTER_READY` line; throws with its output when it fails. */
export async function startClusterLocal(options: ClusterLocalOptions): Promise<LocalCluster> {
  const { dataDir, replicas = 3, env = {}, timeoutMs = 120_000, args = [] } = options;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cluster-local.ts', '--replicas', String(replicas), '--port', '0', '--base-port', '0', '--data-dir', dataDir, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    return exited;
  };
  try {
    const ready = await new Promise<ClusterReady>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`cluster not ready in ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
      const check = () => {
        const m = /^CLUSTER_READY (.+)$/m.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(JSON.parse(m[1]!) as ClusterReady);
        }
      };
      child.stdout.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`cluster:local exited (${code}) before it was ready:\n${output}`));
      });
    });
    return { child, ready, output: () => output, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The approved demo merchant of the cluster's DATA_DIR. */
export function clusterMerchant(ready: ClusterReady): DemoMerchantCredentials {
  return (JSON.parse(fs.readFileSync(ready.credentialsFile, 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants.find((m) => m.kyc === 'approved')!;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // ESRCH: gone
  }
}

/** Resolve once `pid` is gone (bounded). */
export async function gone(pid: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`pid ${pid} still alive after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** Whether any process's command line mentions `text` (Linux /proc). */
export function processMentioning(text: string): boolean {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) return true;
    } catch {
      continue; // exited meanwhile
    }
  }
  return false;
}
