/**
 * Throwaway Postgres and Redis servers for tests and `npm run cluster:local`
 *: Debian's `postgresql` and `redis-server` packages, each
 * in its own temporary directory, on a free loopback port, never touching a
 * system instance or its data. Also the deployment components of contract §6:
 * PgBouncer in front of a Postgres (`startPgBouncer`, Debian's `pgbouncer`
 * with its default settings, transaction or session pooling) and a read-only
 * hot standby of one (`startStandby`, `pg_basebackup -R`).
 *
 * Invariants:
 * - Loopback only: Postgres listens on 127.0.0.1 (trust auth for 127.0.0.1
 *   and its private Unix socket only), Redis binds 127.0.0.1, no persistence.
 * - Every server runs in its own process group (detached) and is stopped by
 *   signalling that group, so no child (postgres backends, runuser) is left.
 * - `stop()` kills the server and removes its directory; whatever is still
 *   running when this process exits is killed and removed too (exit hook).
 * - `stopServer()`/`startServer()` stop the server and start it again on the
 *   same data directory and port; `pause()`/`resume()` freeze it (SIGSTOP:
 *   the port accepts connections but nothing answers) — the fault tests'
 *   "database/Redis unreachable" and "back again".
 * - Postgres and PgBouncer refuse to run as root: as root, the directory is
 *   owned by the `postgres` OS user (created by the Debian package) and every
 *   Postgres or PgBouncer binary runs through `runuser -u postgres --`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { REQUEST_HEADROOM, STREAMS_PER_REPLICA, haproxyBinary, haproxyConfig, type HaproxyServer } from './haproxy.js';

/** Which throwaway services a caller needs. */
export type LocalServiceName = 'postgres' | 'redis' | 'pgbouncer' | 'haproxy';

/** A running throwaway server. */
export interface LocalService {
  /** Connection URL (`postgres://…` or `redis://…`), loopback. */
  readonly url: string;
  readonly port: number;
  /** Temporary directory holding data, socket and log (removed by `stop()`). */
  readonly dir: string;
  /** The server's log so far (startup failures, crash reasons). */
  log(): string;
  /** Whether the server process is running (paused counts as running). */
  running(): boolean;
  /** Stop the server (its shutdown signal to the whole group; SIGKILL after 10 s), keeping data directory and port. */
  stopServer(): Promise<void>;
  /** Start it again on the same data directory and port; resolves when it answers. */
  startServer(): Promise<void>;
  /** Freeze every process of the server (SIGSTOP): connections hang instead of failing. */
  pause(): void;
  /** Undo {@link pause}. */
  resume(): void;
  /** Stop the server for good and remove its directory. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startPostgres}. */
export interface PostgresOptions {
  /** Database created for the caller (default `gateway`). */
  database?: string;
  /** Fixed port (default: a free one). */
  port?: number;
  /** Readiness timeout in ms (default 30 s). */
  timeoutMs?: number;
}

/** Options of {@link startRedis}. */
export interface RedisOptions {
  port?: number;
  timeoutMs?: number;
}

const REDIS_CANDIDATES = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'];
const PGBOUNCER_CANDIDATES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

/** `/usr/lib/postgresql/<highest version>/bin` when it holds initdb and postgres, else null. */
export function postgresBinDir(root = '/usr/lib/postgresql'): string | null {
  let versions: string[];
  try {
    versions = fs.readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v));
  } catch {
    return null; // no Debian postgresql package at all
  }
  versions.sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(root, v, 'bin');
    if (fs.existsSync(path.join(bin, 'initdb')) && fs.existsSync(path.join(bin, 'postgres'))) return bin;
  }
  return null;
}

/** The pgbouncer binary, or null. */
export function pgbouncerBinary(): string | null {
  return PGBOUNCER_CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}

/** The redis-server binary, or null. */
export function redisServerBinary(): string | null {
  return REDIS_CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}

const isRoot = () => process.getuid?.() === 0;

/** Why each requested service cannot be started here (empty: all can). */
export function missingLocalServices(needs: readonly LocalServiceName[] = ['postgres', 'redis']): string[] {
  const missing: string[] = [];
  if (needs.includes('postgres')) {
    if (!postgresBinDir()) missing.push('Postgres (/usr/lib/postgresql/<version>/bin/initdb not found: apt-get install postgresql)');
    else if (isRoot() && spawnSync('id', ['-u', 'postgres']).status !== 0) missing.push('Postgres (running as root needs the `postgres` OS user of the Debian package)');
  }
  if (needs.includes('redis') && !redisServerBinary()) missing.push('Redis (redis-server not found: apt-get install redis-server)');
  if (needs.includes('pgbouncer')) {
    if (!pgbouncerBinary()) missing.push('PgBouncer (pgbouncer not found: apt-get install pgbouncer)');
    else if (isRoot() && spawnSync('id', ['-u', 'postgres']).status !== 0) missing.push('PgBouncer (running as root needs the `postgres` OS user of the Debian package)');
  }
  if (needs.includes('haproxy') && !haproxyBinary()) missing.push('HAProxy (haproxy not found: apt-get install haproxy)');
  return missing;
}

/** A free TCP port on 127.0.0.1 (free when asked; the server binds it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` (a paused server still does). */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false)); // refused: nothing listens
  });
}

// ---- process groups and exit cleanup ----

/** Live services of this process, for the exit hook. */
const live = new Set<{ child: () => ChildProcess | undefined; dir: string }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: kill the groups outright and remove the directories.
  process.on('exit', () => {
    for (const s of live) {
      const pid = s.child()?.pid;
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      fs.rmSync(s.dir, { recursive: true, force: true });
    }
  });
}

/** Signal a whole process group; false when it no longer exists. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** SIGTERM the group, SIGKILL it after `graceMs`, resolve when no process of it is left (bounded: ≤ graceMs + 5 s). */
async function stopGroup(child: ChildProcess, signal: NodeJS.Signals, graceMs = 10_000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  // A paused group would never handle the signal.
  signalGroup(pid, 'SIGCONT');
  if (!signalGroup(pid, signal)) return;
  const deadline = Date.now() + graceMs + 5_000;
  let killed = false;
  const started = Date.now();
  while (signalGroup(pid, 0)) {
    // The direct child may be a zombie until Node reaps it; a group of only zombies still answers kill(0).
    if (child.exitCode !== null || child.signalCode !== null) {
      if (!processesInGroup(pid)) return;
    }
    if (!killed && Date.now() - started > graceMs) {
      killed = true;
      signalGroup(pid, 'SIGKILL');
    }
    if (Date.now() > deadline) throw new Error(`process group ${pid} still alive after SIGKILL`);
    await sleep(25);
  }
}

/** Signal one process; false when it no longer exists. */
function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** Every live descendant of `root` (children, their children, …), from /proc's parent links (Linux). */
function descendantsOf(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesised command: state, ppid, …
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      continue; // exited meanwhile
    }
  }
  const found: number[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const [pid, ppid] of parentOf) {
      if (ppid === parent) {
        found.push(pid);
        frontier.push(pid);
      }
    }
  }
  return found;
}

/** Whether any live (non-zombie) process belongs to group `pgid` (Linux /proc). */
function processesInGroup(pgid: number): boolean {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the parenthesised command: state, ppid, pgrp, …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Spawn detached (own process group), output appended to `logFile`. */
function spawnServer(command: string, args: string[], logFile: string, cwd: string): ChildProcess {
  const fd = fs.openSync(logFile, 'a');
  try {
    return spawn(command, args, { cwd, detached: true, stdio: ['ignore', fd, fd] });
  } finally {
    fs.closeSync(fd);
  }
}

/** Poll `probe` until it resolves true; fail with the log when the process died or time ran out. */
async function waitUntil(what: string, probe: () => Promise<boolean>, child: ChildProcess, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${log()}`);
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms:\n${log()}`);
    await sleep(50);
  }
}

function readLog(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A temp directory reachable by `owner` (the postgres user as root; mode 0700 either way). */
function makeServiceDir(prefix: string, owner?: { uid: number; gid: number }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o700);
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  return dir;
}

function postgresUser(): { uid: number; gid: number } {
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('the `postgres` OS user does not exist');
  return { uid, gid };
}

/** Common lifecycle of one server process; `launch` spawns it, `ready` answers whether it serves. */
function managedService(opts: {
  name: string;
  url: string;
  port: number;
  dir: string;
  logFile: string;
  launch: () => ChildProcess;
  ready: () => Promise<boolean>;
  timeoutMs: number;
  /** The server's "shut down now" signal (Postgres: SIGINT, fast shutdown; SIGTERM would wait for clients). */
  stopSignal: NodeJS.Signals;
}): LocalService & { boot(): Promise<void> } {
  let child: ChildProcess | undefined;
  let stopped = false;
  /** Processes outside the group frozen by pause(), for resume(). */
  let paused: number[] = [];
  const entry = { child: () => child, dir: opts.dir };
  live.add(entry);
  installExitHook();
  const log = () => readLog(opts.logFile);
  const service = {
    url: opts.url,
    port: opts.port,
    dir: opts.dir,
    log,
    running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
    async boot() {
      if (stopped) throw new Error(`${opts.name} was stopped for good`);
      if (service.running()) return;
      child = opts.launch();
      await waitUntil(opts.name, opts.ready, child, opts.timeoutMs, log);
    },
    async stopServer() {
      // Frozen processes outside the group would never see the shutdown.
      service.resume();
      if (child) await stopGroup(child, opts.stopSignal);
      child = undefined;
    },
    startServer: () => service.boot(),
    pause() {
      if (child?.pid === undefined) return;
      // Postgres' backends leave the group (each is its own session leader), so the group alone would freeze
      // only the postmaster while established connections kept answering: stop every descendant too.
      const descendants = descendantsOf(child.pid);
      signalGroup(child.pid, 'SIGSTOP');
      for (const pid of descendants) signalProcess(pid, 'SIGSTOP');
      paused = descendants;
    },
    resume() {
      if (child?.pid === undefined) return;
      signalGroup(child.pid, 'SIGCONT');
      for (const pid of paused) signalProcess(pid, 'SIGCONT');
      paused = [];
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        service.resume();
        if (child) await stopGroup(child, opts.stopSignal);
      } finally {
        child = undefined;
        live.delete(entry);
        fs.rmSync(opts.dir, { recursive: true, force: true });
      }
    },
  };
  return service;
}

/**
 * Start a throwaway Postgres (Debian package): initdb in a temp directory,
 * `postgres` on a free 127.0.0.1 port with trust auth for loopback only, and
 * a database created for the caller. `url` points at that database as the
 * `postgres` superuser.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<LocalService> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(missingLocalServices(['postgres'])[0]);
  const database = options.database ?? 'gateway';
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error('startPostgres: database must be a plain lower-case identifier');
  const asRoot = isRoot();
  const dir = makeServiceDir('pgw-postgres-', asRoot ? postgresUser() : undefined);
  const dataDir = path.join(dir, 'data');
  const port = options.port ?? (await freePort());

  const [initCmd, initArgs] = asPostgres(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const init = spawnSync(initCmd, initArgs, { cwd: dir, encoding: 'utf8' });
  if (init.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}):\n${init.stdout}\n${init.stderr}`);
  }
  // Only the private socket and 127.0.0.1; nothing else may connect (replication too: startStandby's pg_basebackup and WAL stream).
  fs.writeFileSync(path.join(dataDir, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\nhost replication all 127.0.0.1/32 trust\n');

  const url = `postgres://postgres@127.0.0.1:${port}/${database}`;
  const service = postgresService({ bin, dir, dataDir, port, url, timeoutMs: options.timeoutMs });
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  try {
    await service.boot();
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${database}`);
    } finally {
      await client.end();
    }
  } catch (err) {
    await service.stop();
    throw err;
  }
  return service;
}

/** The `postgres` server process on `dataDir` (a primary, or a standby made by {@link startStandby}). */
function postgresService(o: { bin: string; dir: string; dataDir: string; port: number; url: string; timeoutMs?: number }): LocalService & { boot(): Promise<void> } {
  const logFile = path.join(o.dir, 'postgres.log');
  const adminUrl = `postgres://postgres@127.0.0.1:${o.port}/postgres`;
  return managedService({
    name: 'postgres',
    url: o.url,
    port: o.port,
    dir: o.dir,
    logFile,
    timeoutMs: o.timeoutMs ?? 30_000,
    stopSignal: 'SIGINT',
    launch: () => {
      const [cmd, args] = asPostgres(path.join(o.bin, 'postgres'), [
        '-D', o.dataDir,
        '-p', String(o.port),
        '-k', o.dir,
        '-c', 'listen_addresses=127.0.0.1',
        // Throwaway data: durability is not needed, speed is.
        '-c', 'fsync=off',
        '-c', 'synchronous_commit=off',
        '-c', 'full_page_writes=off',
        '-c', 'max_connections=200',
      ]);
      return spawnServer(cmd, args, logFile, o.dir);
    },
    ready: () => canQuery(adminUrl),
  });
}

/** A Postgres binary, through `runuser -u postgres` as root (Postgres and PgBouncer refuse to run as root). */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * A read-only hot standby of `primary` (contract §6 read replicas): `pg_basebackup -R` (streaming
 * replication settings and standby.signal written by it) into a temp directory, then `postgres` on a free
 * loopback port. `url` names the same database as the primary's.
 */
export async function startStandby(primary: LocalService, options: { timeoutMs?: number } = {}): Promise<LocalService> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(missingLocalServices(['postgres'])[0]);
  const dir = makeServiceDir('pgw-standby-', isRoot() ? postgresUser() : undefined);
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const [cmd, args] = asPostgres(path.join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', dataDir, '-R', '-X', 'stream', '--no-sync', '-c', 'fast']);
  const backup = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8' });
  if (backup.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`pg_basebackup failed (${backup.status}):\n${backup.stdout}\n${backup.stderr}`);
  }
  const url = new URL(primary.url);
  url.port = String(port);
  const service = postgresService({ bin, dir, dataDir, port, url: url.toString(), timeoutMs: options.timeoutMs });
  try {
    await service.boot();
  } catch (err) {
    await service.stop();
    throw err;
  }
  return service;
}

/** Options of {@link startPgBouncer}. */
export interface PgBouncerOptions {
  /** PgBouncer's `pool_mode` (default transaction). */
  poolMode?: 'transaction' | 'session';
  timeoutMs?: number;
}

/**
 * PgBouncer (Debian package) in front of `target` on a free loopback port, with PgBouncer's DEFAULT
 * settings except what it needs to run at all: where to listen, where the server is, who may connect
 * (trust, loopback only) and the pool mode. `url` is `target.url` through the pooler.
 */
export async function startPgBouncer(target: LocalService, options: PgBouncerOptions = {}): Promise<LocalService> {
  const bin = pgbouncerBinary();
  if (!bin) throw new Error(missingLocalServices(['pgbouncer'])[0]);
  const dir = makeServiceDir('pgw-pgbouncer-', isRoot() ? postgresUser() : undefined);
  const port = await freePort();
  const logFile = path.join(dir, 'pgbouncer.log');
  const ini = path.join(dir, 'pgbouncer.ini');
  const targetUrl = new URL(target.url);
  const ownedByPostgres = (file: string, text: string) => {
    fs.writeFileSync(file, text, { mode: 0o600 });
    if (isRoot()) {
      const { uid, gid } = postgresUser();
      fs.chownSync(file, uid, gid);
    }
  };
  ownedByPostgres(path.join(dir, 'userlist.txt'), '"postgres" ""\n');
  ownedByPostgres(
    ini,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${targetUrl.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      '',
    ].join('\n'),
  );
  const url = new URL(target.url);
  url.port = String(port);
  const service = managedService({
    name: 'pgbouncer',
    url: url.toString(),
    port,
    dir,
    logFile,
    timeoutMs: options.timeoutMs ?? 15_000,
    // SIGINT: PgBouncer's "safe shutdown" waits for clients; SIGTERM shuts down at once.
    stopSignal: 'SIGTERM',
    launch: () => {
      const [cmd, args] = asPostgres(bin, [ini]);
      return spawnServer(cmd, args, logFile, dir);
    },
    ready: () => canQuery(url.toString()),
  });
  try {
    await service.boot();
  } catch (err) {
    await service.stop();
    throw err;
  }
  return service;
}

async function canQuery(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  // Connection errors are expected while the server starts; the caller bounds the retries.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false; // not accepting connections yet (or starting up): poll again
  } finally {
    await client.end().catch(() => undefined); // a connection that never opened has nothing to close
  }
}

/** Start a throwaway `redis-server` on a free 127.0.0.1 port, without persistence. */
export async function startRedis(options: RedisOptions = {}): Promise<LocalService> {
  const bin = redisServerBinary();
  if (!bin) throw new Error(missingLocalServices(['redis'])[0]);
  const dir = makeServiceDir('pgw-redis-');
  const logFile = path.join(dir, 'redis.log');
  const port = options.port ?? (await freePort());
  const service = managedService({
    name: 'redis-server',
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    logFile,
    timeoutMs: options.timeoutMs ?? 15_000,
    stopSignal: 'SIGTERM',
    launch: () =>
      spawnServer(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', '--protected-mode', 'yes'], logFile, dir),
    ready: () => redisPing(port),
  });
  try {
    await service.boot();
  } catch (err) {
    await service.stop();
    throw err;
  }
  return service;
}

/** PING over a raw socket (no client library needed): true on +PONG within 1 s. */
function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      answer += d.toString();
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.on('error', () => done(false)); // refused while starting: poll again
  });
}

/** Options of {@link startHaproxy}. */
export interface HaproxyOptions {
  /** The replicas, `host:port` each. */
  servers: readonly HaproxyServer[];
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  timeoutMs?: number;
}

/**
 * Start HAProxy (Debian package) on 127.0.0.1 in front of `servers`, with the configuration of
 * scripts/lib/haproxy.ts (health check GET /ready, retries on another server) written to `haproxy.cfg` in
 * its temporary directory and checked with `haproxy -c` first. Foreground (`-db`), its log in haproxy.log.
 * `url` is the balancer's base URL.
 */
/** The soft limit on open descriptors a child started from here gets (`ulimit -n`), or 1024 if unknown. */
function descriptorLimit(): number {
  const out = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim();
  return out === 'unlimited' ? 1_000_000 : Number(out) || 1024;
}

export async function startHaproxy(options: HaproxyOptions): Promise<LocalService & { readonly configFile: string; readonly config: string }> {
  const bin = haproxyBinary();
  if (!bin) throw new Error(missingLocalServices(['haproxy'])[0]);
  const dir = makeServiceDir('pgw-haproxy-');
  const logFile = path.join(dir, 'haproxy.log');
  const configFile = path.join(dir, 'haproxy.cfg');
  const port = options.port ?? (await freePort());
  // Sized for streams, within this machine's descriptor limit (two per connection; HAProxy cannot raise it unprivileged).
  const fit = Math.floor((descriptorLimit() - 200) / 2);
  const wanted = options.servers.length * STREAMS_PER_REPLICA + REQUEST_HEADROOM;
  const config = haproxyConfig({ bind: `127.0.0.1:${port}`, log: 'stderr', servers: options.servers, maxconn: Math.min(wanted, fit) });
  fs.writeFileSync(configFile, config);
  const checked = spawnSync(bin, ['-c', '-q', '-f', configFile], { encoding: 'utf8' });
  if (checked.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`haproxy refused ${configFile}:\n${checked.stdout}${checked.stderr}`);
  }
  const service = managedService({
    name: 'haproxy',
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    logFile,
    timeoutMs: options.timeoutMs ?? 15_000,
    // SIGUSR1 would be HAProxy's soft stop (wait for connections); whoever stops it wants it gone.
    stopSignal: 'SIGTERM',
    launch: () => spawnServer(bin, ['-db', '-f', configFile], logFile, dir),
    ready: () => acceptsConnections(port),
  });
  try {
    await service.boot();
  } catch (err) {
    await service.stop();
    throw err;
  }
  return Object.assign(service, { configFile, config });
}
