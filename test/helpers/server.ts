/**
 * Start the real server the way the README says (`npm start`), on a free
 * port and a temporary DATA_DIR, and stop it (whole process group) after.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { databaseUrlForDataDir } from './engine.js';

/** DATABASE_URL of the DATA_DIR's own database under TEST_DB=postgres (nothing on SQLite). */
function databaseEnv(dataDir: string): Record<string, string> {
  const url = databaseUrlForDataDir(path.resolve(dataDir));
  return url ? { DATABASE_URL: url } : {};
}

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');

export interface RunningServer {
  baseUrl: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  credentials(): DemoMerchantCredentials[];
  /** A signed fetch against the real server. */
  signedFetch(target: string, init?: { method?: string; body?: string; as?: DemoMerchantCredentials; headers?: Record<string, string> }): Promise<Response>;
  /**
   * Signal the whole process group and wait until every process in it is gone. Default SIGINT: a graceful
   * stop without SIGTERM's SHUTDOWN_DELAY_MS, which no test needs unless it tests the drain.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startServer(dataDir: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<RunningServer> {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, ...databaseEnv(dataDir), PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      const m = /"baseUrl":"(http:\/\/[^"]+)"/.exec(out);
      // The banner (signed first call) follows the 'listening' log line; wait for its last line too.
      if (m && out.includes('npm run sign')) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });

  const server: RunningServer = {
    baseUrl,
    dataDir,
    child,
    output: () => out,
    credentials: () => (JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] }).merchants,
    signedFetch(target, init = {}) {
      const as = init.as ?? server.credentials().find((m) => m.kyc === 'approved')!;
      const method = init.method ?? 'GET';
      const body = init.body ?? '';
      const headers = { ...signatureHeaders(as.apiKey, as.apiSecret, { method, target, body }), ...(body ? { 'content-type': 'application/json' } : {}), ...init.headers };
      return fetch(`${baseUrl}${target}`, { method, headers, body: body || undefined });
    },
    async stop(signal: NodeJS.Signals = 'SIGINT') {
      const pid = child.pid!;
      const alive = () => {
        try {
          process.kill(-pid, 0);
          return true;
        } catch {
          return false; // ESRCH: the group is gone
        }
      };
      if (alive()) process.kill(-pid, signal);
      // npm may exit on the signal before the server has finished shutting down: wait for the whole group.
      for (let i = 0; i < 200 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
      if (alive()) throw new Error(`server group ${pid} still alive 10 s after ${signal}`);
      await exited;
    },
  };
  return server;
}

/**
 * Run `npm start` expecting it to fail; resolves with exit code and output. The default limit stays below
 * vitest's test timeout (20 s), so a server that unexpectedly starts is killed by this helper, never left running.
 */
export function startExpectingFailure(env: Record<string, string>, timeoutMs = 15_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const database = env.DATA_DIR ? databaseEnv(env.DATA_DIR) : {};
    const child = spawn('npm', ['start', '--silent'], { cwd: PROJECT_ROOT, env: { ...process.env, ...database, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`expected start-up to fail, still running after ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: out });
    });
  });
}
