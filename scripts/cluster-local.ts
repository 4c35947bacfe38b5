/**
 * `npm run cluster:local -- --replicas 3`: the scale-out set-up on one
 * machine, with one command. Starts a throwaway Postgres and Redis (scripts/lib/local-services.ts), builds
 * once (dist/main.mjs), starts N replicas sharing DATABASE_URL, REDIS_URL, one generated MASTER_KEY and one
 * DATA_DIR, and HAProxy (Debian's `haproxy` package) in front of them, health-checking `/ready` and retrying
 * on another replica (scripts/lib/haproxy.ts; the configuration is printed at start). Ctrl-C / SIGTERM stops
 * everything: HAProxy, every replica's process group, Redis, Postgres and their temporary directories.
 *
 * Options (all optional):
 *   --replicas N            replicas (1-16, default 3)
 *   --port P                HAProxy's port (default 4000; 0 = any free port)
 *   --base-port B           first replica port, then B+1, … (default 4001; 0 = any free ports)
 *   --data-dir DIR          shared DATA_DIR (default ./data/cluster; emptied at start, see below)
 *   --replica-command CMD   how to start one replica (default "node dist/main.mjs"; split on spaces,
 *                           run in the project root; env CLUSTER_REPLICA_COMMAND works too)
 *   --no-build              skip `node scripts/build.mjs`
 *   --otlp URL              every replica exports traces to this OTLP/HTTP collector (contract §13; sets
 *                           OTEL_EXPORTER_OTLP_ENDPOINT; the other OTEL_* variables of this shell pass through)
 *
 * The DATA_DIR belongs to the cluster: the Postgres database is new on every run, so files from an
 * earlier run (demo credentials, a SQLite file) would be stale; it is emptied at start, and only if it
 * is empty or was made by this script (marker file), never any other directory. It keeps
 * demo-credentials.json and cluster.env (mode 0600: BASE_URL of the balancer, GATEWAY_CREDENTIALS,
 * DATABASE_URL, REDIS_URL, MASTER_KEY, DATA_DIR; API_KEY and API_SECRET empty, so that keys exported for
 * another server do not win over the cluster's), so that `set -a; . data/cluster/cluster.env; set +a`
 * points the admin CLI, `npm run sign` and docs/examples/* at the running cluster. Each replica runs with
 * PUBLIC_BASE_URL set to the balancer, so its banner sends people there.
 *
 * The last line of start-up is `CLUSTER_READY {json}` (URLs, pids, directories) for scripts and tests.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { acceptsConnections, freePort, startHaproxy, startPostgres, startRedis, type LocalService } from './lib/local-services.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = '.cluster-local';
const MAX_REPLICAS = 16;
const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 12_000;
/** The address HAProxy connects to the replicas from (loopback), the one address whose X-Forwarded-For they take. */
const HAPROXY_SOURCE = '127.0.0.1';

/** Parsed command line. */
interface ClusterOptions {
  replicas: number;
  port: number;
  basePort: number;
  dataDir: string;
  replicaCommand: string[];
  build: boolean;
  /** OTLP/HTTP collector base URL for every replica, or undefined (then this shell's OTEL_* variables, if any). */
  otlp: string | undefined;
}

function fail(message: string): never {
  process.stderr.write(`cluster:local: ${message}\n`);
  process.exit(2);
}

function parseOptions(argv: string[]): ClusterOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      replicas: { type: 'string', default: '3' },
      port: { type: 'string', default: '4000' },
      'base-port': { type: 'string', default: '4001' },
      'data-dir': { type: 'string', default: './data/cluster' },
      'replica-command': { type: 'string', default: process.env.CLUSTER_REPLICA_COMMAND ?? 'node dist/main.mjs' },
      'no-build': { type: 'boolean', default: false },
      otlp: { type: 'string' },
    },
    strict: true,
  });
  const int = (name: string, text: string, min: number, max: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be an integer from ${min} to ${max} (got "${text}")`);
    return n;
  };
  const replicaCommand = values['replica-command'].trim().split(/\s+/).filter(Boolean);
  if (replicaCommand.length === 0) fail('--replica-command must not be empty');
  return {
    replicas: int('replicas', values.replicas, 1, MAX_REPLICAS),
    port: int('port', values.port, 0, 65535),
    basePort: int('base-port', values['base-port'], 0, 65535 - MAX_REPLICAS),
    dataDir: path.resolve(values['data-dir']),
    replicaCommand,
    build: !values['no-build'],
    otlp: values.otlp === undefined ? undefined : /^https?:\/\/\S+$/.test(values.otlp) ? values.otlp : fail(`--otlp must be an http:// or https:// URL (got "${values.otlp}")`),
  };
}

/** Empty the cluster's DATA_DIR, refusing any directory this script did not make. */
function prepareDataDir(dir: string): void {
  if (fs.existsSync(dir)) {
    const entries = fs.readdirSync(dir);
    if (entries.length > 0 && !entries.includes(MARKER)) fail(`${dir} is not empty and was not made by cluster:local; choose another --data-dir`);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, MARKER), 'Made by `npm run cluster:local`; emptied on its next start.\n');
}

/** One replica process (own process group), its output prefixed on ours. */
interface Replica {
  index: number;
  port: number;
  url: string;
  child: ChildProcess;
}

function startReplica(index: number, port: number, command: string[], env: NodeJS.ProcessEnv): Replica {
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    // Traces tell the replicas apart by service.instance.id (added to any OTEL_RESOURCE_ATTRIBUTES of the shell).
    env: { ...env, PORT: String(port), HOST: '127.0.0.1', OTEL_RESOURCE_ATTRIBUTES: [env.OTEL_RESOURCE_ATTRIBUTES, `service.instance.id=replica${index}`].filter(Boolean).join(',') },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const prefix = `[replica ${index}] `;
  const relay = (stream: NodeJS.WritableStream) => {
    let pending = '';
    return (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) stream.write(`${prefix}${line}\n`);
    };
  };
  child.stdout.on('data', relay(process.stdout));
  child.stderr.on('data', relay(process.stderr));
  return { index, port, url: `http://127.0.0.1:${port}`, child };
}

/** Poll GET /health until 200; fails when the process exits or time runs out. */
async function waitHealthy(replica: Replica, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (replica.child.exitCode !== null || replica.child.signalCode !== null) throw new Error(`replica ${replica.index} exited (${replica.child.exitCode ?? replica.child.signalCode}) during start-up`);
    const status = await fetch(`${replica.url}/health`).then(
      (r) => r.status,
      () => 0, // not listening yet: poll again
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`replica ${replica.index} not healthy within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Signal a replica's group, SIGKILL after the grace period; resolves when its process has exited. The whole
 * cluster stopping sends SIGINT: the balancer goes too, so there is nobody to drain for (no SHUTDOWN_DELAY_MS).
 */
async function stopReplica(replica: Replica): Promise<void> {
  const { child } = replica;
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err; // ESRCH: already gone
    }
  };
  signal('SIGINT');
  const timer = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
  signal('SIGKILL'); // anything the replica left in its group
}

/** A path as the user would type it: relative to the current directory when inside it, else absolute. */
function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/** Poll the balancer until GET /ready through it answers 200 (HAProxy has a replica up). */
async function waitBalancer(url: string, haproxy: LocalService, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!haproxy.running()) throw new Error(`haproxy exited during start-up:\n${haproxy.log()}`);
    const status = await fetch(`${url}/ready`).then(
      (r) => r.status,
      () => 0, // not listening yet: poll again
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`the balancer ${url} did not answer /ready 200 within ${timeoutMs} ms:\n${haproxy.log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A value for a sourced env file: single-quoted unless plainly safe. */
function envValue(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const services: LocalService[] = [];
  const replicas: Replica[] = [];
  let haproxy: LocalService | undefined;
  let stopping: Promise<void> | undefined;

  const stopAll = (code: number): Promise<void> =>
    (stopping ??= (async () => {
      process.stderr.write('cluster:local: stopping HAProxy, replicas, Redis and Postgres …\n');
      // HAProxy first: nothing new reaches the replicas while they stop.
      await haproxy?.stop();
      await Promise.all(replicas.map(stopReplica));
      for (const s of services.reverse()) await s.stop();
      process.stderr.write('cluster:local: stopped\n');
      process.exit(code);
    })());
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  // The balancer's port first, before anything starts: with `npm start` still running on 4000 there is
  // nothing to start and nothing to stop, just the one message.
  const balancerPort = options.port === 0 ? await freePort() : options.port;
  if (await acceptsConnections(balancerPort)) {
    fail(`port ${balancerPort} is already in use (is \`npm start\` still running? stop it first, or choose another port with --port)`);
  }

  try {
    prepareDataDir(options.dataDir);
    const [postgres, redis] = await Promise.all([startPostgres({ database: 'gateway' }), startRedis()]);
    services.push(postgres, redis);

    if (options.build) {
      const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
      if (built.status !== 0) throw new Error(`build failed (${built.status ?? built.signal})`);
    }

    const balancerUrl = `http://127.0.0.1:${balancerPort}`;
    const masterKey = randomBytes(32).toString('hex');
    const credentialsFile = path.join(options.dataDir, 'demo-credentials.json');
    // TRUSTED_PROXIES: HAProxy connects to the replicas from 127.0.0.1 and names each client in X-Forwarded-For
    // (scripts/lib/haproxy.ts); the replicas take that address from it, from nobody else (contract §6).
    // PUBLIC_BASE_URL: each replica's banner sends people to the balancer, never to the replica's own port.
    // LOG_LEVEL warn unless set: at info every replica would log HAProxy's health check, one line a second.
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', DATABASE_URL: postgres.url, REDIS_URL: redis.url, MASTER_KEY: masterKey, DATA_DIR: options.dataDir, PUBLIC_BASE_URL: balancerUrl, TRUSTED_PROXIES: HAPROXY_SOURCE, NODE_ENV: process.env.NODE_ENV ?? 'production', ...(options.otlp === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: options.otlp }) };
    // One file that points every tool at this cluster: the admin CLI (DATABASE_URL, MASTER_KEY), npm run sign
    // and docs/examples/* (BASE_URL, GATEWAY_CREDENTIALS).
    const envFile = path.join(options.dataDir, 'cluster.env');
    const envVars = { BASE_URL: balancerUrl, GATEWAY_CREDENTIALS: credentialsFile, DATABASE_URL: postgres.url, REDIS_URL: redis.url, MASTER_KEY: masterKey, DATA_DIR: options.dataDir };
    fs.writeFileSync(
      envFile,
      [
        '# Made by `npm run cluster:local`: points the admin CLI, `npm run sign` and docs/examples/* at this cluster.',
        '# Use: set -a; . <this file>; set +a',
        ...Object.entries(envVars).map(([k, v]) => `${k}=${envValue(v)}`),
        // README's first steps export API_KEY/API_SECRET of the single server; the tools prefer them over
        // GATEWAY_CREDENTIALS, so left set they would sign for the wrong server (401 INVALID_API_KEY). Empty
        // counts as unset for `npm run sign` and docs/examples/*, so sourcing this file is enough.
        '# Empty: the tools then use GATEWAY_CREDENTIALS (this cluster\'s keys), not keys exported for another server.',
        'API_KEY=',
        'API_SECRET=',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );

    const ports: number[] = [];
    for (let i = 0; i < options.replicas; i++) ports.push(options.basePort === 0 ? await freePort() : options.basePort + i);
    // The first replica migrates and seeds (demo-credentials.json) alone; the others then start together.
    replicas.push(startReplica(1, ports[0]!, options.replicaCommand, env));
    await waitHealthy(replicas[0]!, STARTUP_TIMEOUT_MS);
    for (let i = 1; i < options.replicas; i++) replicas.push(startReplica(i + 1, ports[i]!, options.replicaCommand, env));
    await Promise.all(replicas.slice(1).map((r) => waitHealthy(r, STARTUP_TIMEOUT_MS)));
    for (const r of replicas) {
      r.child.once('exit', (code, sig) => {
        if (!stopping) process.stderr.write(`cluster:local: replica ${r.index} exited (${code ?? sig}); HAProxy's health check takes it out of rotation\n`);
      });
    }

    const balancer = await startHaproxy({ port: balancerPort, servers: replicas.map((r) => ({ name: `replica${r.index}`, address: `127.0.0.1:${r.port}` })) });
    haproxy = balancer;
    await waitBalancer(balancerUrl, balancer, STARTUP_TIMEOUT_MS);

    const ready = {
      balancer: balancerUrl,
      haproxy: { dir: balancer.dir, configFile: balancer.configFile, port: balancer.port },
      replicas: replicas.map((r) => ({ url: r.url, pid: r.child.pid })),
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      dataDir: options.dataDir,
      envFile,
      credentialsFile,
      serviceDirs: [...services, balancer].map((s) => s.dir),
      servicePorts: [...services, balancer].map((s) => s.port),
    };
    const source = `set -a; . ${shownPath(envFile)}; set +a`;
    process.stdout.write(
      [
        '',
        `HAProxy configuration (${balancer.configFile}; docs/SCALING.md has the same for production):`,
        ...balancer.config.trimEnd().split('\n').map((l) => `  | ${l}`),
        '',
        `cluster:local ready: ${options.replicas} replica(s) behind HAProxy (health check GET /ready, retries on another replica)`,
        `  balancer    ${balancerUrl}   <- send requests here`,
        ...replicas.map((r) => `  replica ${r.index}   ${r.url}   (pid ${r.child.pid}; direct, bypasses the balancer)`),
        `  DATABASE_URL=${postgres.url}`,
        `  REDIS_URL=${redis.url}`,
        `  DATA_DIR=${options.dataDir}`,
        `  credentials ${credentialsFile}   (this cluster's demo keys; ./data/demo-credentials.json is another server's)`,
        '',
        `Point the tools at this cluster in one step (${shownPath(envFile)}: BASE_URL, GATEWAY_CREDENTIALS, DATABASE_URL, MASTER_KEY, …):`,
        `  ${source}`,
        '  npm run sign -- GET /v1/payments/channel      # signs with this cluster\'s keys, for the balancer',
        '  docs/examples/svc1-curl.sh GET /v1/payments/channel',
        '  npm run admin -- help',
        'Ctrl-C stops everything.',
        `CLUSTER_READY ${JSON.stringify(ready)}`,
        '',
      ].join('\n'),
    );
  } catch (err) {
    process.stderr.write(`cluster:local: ${err instanceof Error ? err.message : String(err)}\n`);
    await stopAll(1);
  }
}

void main();
