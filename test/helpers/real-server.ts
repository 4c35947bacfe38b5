/**
 * Start the real server as the README says (`npm start` = `tsx src/main.ts`)
 * on a free port (PORT=0) with a temporary DATA_DIR, and read the base URL
 * from its banner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { DemoMerchantCredentials } from '../../src/db/seed.js';
import { makeTempDir } from './app.js';

export interface RealServer {
  baseUrl: string;
  dataDir: string;
  approved: DemoMerchantCredentials;
  pending: DemoMerchantCredentials;
  /** Everything the process wrote to stdout/stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function startRealServer(env: Record<string, string> = {}): Promise<RealServer> {
  const dataDir = makeTempDir('pgw-e2e-');
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening:\n${out}`)));
  });
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as { merchants: DemoMerchantCredentials[] };
  return {
    baseUrl,
    dataDir,
    approved: creds.merchants.find((m) => m.kyc === 'approved')!,
    pending: creds.merchants.find((m) => m.kyc === 'pending')!,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
