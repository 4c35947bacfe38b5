/**
 * Real-process helpers for operations tests: the server as `npm start` runs
 * it (the bundle `npm run build` writes, dist/main.mjs, under plain node) on a
 * free port, signals delivered to that very process, and the admin CLI as an
 * operator runs it. Both get the same DATA_DIR.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { databaseUrlForDataDir } from './engine.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Environment for a child: the test's own, minus anything that would change the service's configuration. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['MASTER_KEY', 'PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL', 'LOG_FORMAT', 'METRICS_TOKEN', 'SEED_DEMO_DATA', 'NODE_ENV', 'MAX_STALENESS_SECONDS', 'MIGRATE_ON_START']) delete env[k];
  // Under TEST_DB=postgres every process on a DATA_DIR uses that directory's own Postgres database.
  const databaseUrl = extra.DATA_DIR && !('DATABASE_URL' in extra) ? databaseUrlForDataDir(path.resolve(ROOT, extra.DATA_DIR)) : undefined;
  return { ...env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...extra };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command to completion (never throws on a non-zero exit), with `input` on its standard input if given. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // Without input the command reads end-of-file at once, as with stdin ignored.
    child.stdin.end(input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `npm run admin -- ...args` without npm's start-up cost: the same launcher (the built CLI, rebuilt when stale). */
export function admin(dataDir: string, args: string[], env: Record<string, string> = {}, input?: string): Promise<RunResult> {
  return run(process.execPath, ['bin/payment-gateway-admin.mjs', ...args], childEnv({ DATA_DIR: dataDir, ...env }), input);
}

/** Run an admin command that must succeed with --json, returning its parsed output. */
export async function adminJson<T = any>(dataDir: string, args: string[]): Promise<T> {
  const r = await admin(dataDir, [...args, '--json']);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export interface RunningServer {
  baseUrl: string;
  child: ChildProcess;
  /** Everything the server wrote to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** JSON log lines so far. */
  logLines(): Record<string, unknown>[];
  /** Resolve when a JSON log line satisfies `predicate`. */
  waitForLog(predicate: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /**
   * Send a signal and wait for the exit code. Default SIGINT: a graceful stop without SIGTERM's
   * SHUTDOWN_DELAY_MS (3 s of serving on for a balancer), which no test needs unless it tests the drain.
   */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function parseLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A partial line (still being written) is parsed on the next look.
    }
  }
  return out;
}

let built = false;
/** `npm start`'s prestart step, once per test file (the build writes atomically: files may run it at once). */
function ensureBuilt(): void {
  if (built) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  built = true;
}

/** Start the built server with PORT=0 and JSON logs; resolves once it logged `listening`. */
export function startServer(dataDir: string, env: Record<string, string> = {}): Promise<RunningServer> {
  ensureBuilt();
  const child = spawn(process.execPath, ['dist/main.mjs'], {
    cwd: ROOT,
    env: childEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'json', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { predicate: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  const check = () => {
    const lines = parseLines(stdout);
    for (const w of [...waiters]) {
      const hit = lines.find(w.predicate);
      if (hit) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(hit);
      }
    }
  };
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    check();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitForLog = (predicate: (l: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      waiters.push({ predicate, resolve });
      check();
      void exited.then((code) => reject(new Error(`server exited (${code}) before the expected log line\nstdout:\n${stdout}\nstderr:\n${stderr}`)));
    });
  return waitForLog((l) => l.msg === 'listening').then((line) => ({
    baseUrl: String(line.baseUrl),
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    logLines: () => parseLines(stdout),
    waitForLog,
    exited,
    stop(signal: NodeJS.Signals = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  }));
}

/** Credentials as `key create --json` prints them. */
export interface Credentials {
  apiKey: string;
  apiSecret: string;
  merchantId: string;
}

/** A signed request over real HTTP. */
export function signedHttp(baseUrl: string, who: Credentials, method: 'GET' | 'POST', target: string, body = '', extraHeaders: Record<string, string> = {}): Promise<Response> {
  const headers: Record<string, string> = { ...signatureHeaders(who.apiKey, who.apiSecret, { method, target, body }), ...extraHeaders };
  if (body !== '') headers['content-type'] = 'application/json';
  return fetch(`${baseUrl}${target}`, { method, headers, body: body === '' ? undefined : body });
}

export const CLI_PATH = path.join(ROOT, 'src/cli/admin.ts');

/**
 * Poll every server until `ok(baseUrl)` holds on all of them (a propagation bound across replicas); returns the
 * elapsed ms, or throws after `limitMs` naming the servers still behind.
 */
export async function onEvery(baseUrls: readonly string[], limitMs: number, ok: (baseUrl: string) => Promise<boolean>): Promise<number> {
  const start = performance.now();
  const pending = new Set(baseUrls);
  while (pending.size > 0) {
    for (const url of [...pending]) if (await ok(url).catch(() => false)) pending.delete(url);
    if (pending.size === 0) break;
    if (performance.now() - start > limitMs) throw new Error(`not on every replica within ${limitMs} ms (still: ${[...pending].join(', ')})`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - start;
}
