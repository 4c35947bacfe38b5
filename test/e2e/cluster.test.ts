/**
 * WORKERS=2 as the README starts it: one port, two processes sharing the
 * SQLite file; a key revoked through another connection is refused by every
 * worker on the next request (caches keyed by PRAGMA data_version), and
 * SIGTERM stops the whole cluster.
 *
 * One pass (npm test): WORKERS=2 sharing one SQLite file is its subject.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { makeTempDir } from '../helpers/app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let child: ChildProcess;
let dataDir: string;
let baseUrl: string;
let output = '';

beforeAll(async () => {
  dataDir = makeTempDir('pgw-cluster-');
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, WORKERS: '2', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'production', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 45_000;
  for (;;) {
    const urls = [...output.matchAll(/"baseUrl":"(http:\/\/127\.0\.0\.1:\d+)"/g)].map((m) => m[1]!);
    if (urls.length >= 2) {
      expect(new Set(urls).size).toBe(1); // both workers on the one port
      baseUrl = urls[0]!;
      break;
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`cluster did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function creds() {
  const file = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: { apiKey: string; apiSecret: string; kyc: string }[] };
  return file.merchants.find((m) => m.kyc === 'approved')!;
}

/** One signed request on a NEW connection (no keep-alive), so the primary spreads requests over the workers. */
const list = () => {
  const c = creds();
  return new Promise<{ status: number }>((resolve, reject) => {
    const req = http.get(`${baseUrl}/v1/payments/channel`, { agent: false, headers: signatureHeaders(c.apiKey, c.apiSecret, { method: 'GET', target: '/v1/payments/channel' }) }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
  });
};

describe('WORKERS=2', () => {
  it('seeds once, serves from both workers, and sees a revocation from another process on the next request', async () => {
    expect(output.match(/"seeded":true/g) ?? []).toHaveLength(0); // the primary seeded; workers found data
    expect(fs.existsSync(path.join(dataDir, 'demo-credentials.json'))).toBe(true);
    // Fresh connections: the cluster primary spreads them over the workers.
    for (let i = 0; i < 10; i++) expect((await list()).status).toBe(200);

    const db = new Database(path.join(dataDir, 'gateway.db'));
    db.prepare("update api_keys set revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') where id = ?").run(creds().apiKey);
    db.close();
    for (let i = 0; i < 10; i++) expect((await list()).status).toBe(401);
  });

  it('SIGTERM stops the primary and its workers', async () => {
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 30_000);
});
