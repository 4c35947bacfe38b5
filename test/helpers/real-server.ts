/**
 * A real server (`npm start`) on a free port and its own temporary
 * DATA_DIR, with the demo merchants at hand. Thin layer over ./server.ts,
 * the one place that knows how the server is started and stopped.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { makeTempDir } from './app.js';
import { startServer } from './server.js';

export interface RealServer {
  baseUrl: string;
  dataDir: string;
  approved: DemoMerchantCredentials;
  pending: DemoMerchantCredentials;
  /** Everything the process wrote to stdout/stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

export async function startRealServer(env: Record<string, string> = {}): Promise<RealServer> {
  const root = makeTempDir('pgw-e2e-');
  const dataDir = path.join(root, 'data');
  const server = await startServer(dataDir, env);
  const merchants = server.credentials();
  return {
    baseUrl: server.baseUrl,
    dataDir,
    approved: merchants.find((m) => m.kyc === 'approved')!,
    pending: merchants.find((m) => m.kyc === 'pending')!,
    output: server.output,
    async stop() {
      await server.stop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
