/**
 * Vitest global setup: one throwaway Postgres for the whole run (Debian's
 * `postgresql`, scripts/lib/local-services.ts), whose admin URL becomes
 * TEST_DATABASE_URL for every test worker. Each test app creates and drops
 * its own database on it (test/helpers/engine.ts). Postgres-specific tests
 * run in every run that has it; TEST_DB=postgres (`npm run test:pg`) runs
 * the whole suite on it. A TEST_DATABASE_URL given from outside is used as
 * is. Without the package: skipped with the reason printed, but with
 * CI=true or TEST_DB=postgres it fails instead (CI must run these tests).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { missingLocalServices, startPostgres, type LocalService } from '../../scripts/lib/local-services.js';

let server: LocalService | undefined;
/** This run's temporary directories live here (test/helpers/app.ts makeTempDir); it must be empty at the end. */
let runDir: string | undefined;

export async function setup(): Promise<void> {
  if (!process.env.PGW_TEST_TMP) {
    runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgw-run-'));
    process.env.PGW_TEST_TMP = runDir;
  }
  if (process.env.TEST_DATABASE_URL) return;
  const missing = missingLocalServices(['postgres']);
  if (missing.length > 0) {
    const reason = `no test Postgres: missing ${missing.join('; ')}`;
    if (process.env.CI === 'true' || process.env.TEST_DB === 'postgres') throw new Error(`${reason} (.ci/run installs it)`);
    console.warn(`[global setup] ${reason}; Postgres tests are skipped`);
    return;
  }
  server = await startPostgres({ database: 'test_admin' });
  process.env.TEST_DATABASE_URL = server.url;
}

export async function teardown(): Promise<void> {
  await server?.stop();
  if (!runDir) return;
  const left = fs.readdirSync(runDir);
  fs.rmSync(runDir, { recursive: true, force: true });
  if (left.length > 0) {
    // A failure here is printed but does not change vitest's exit status on its own.
    process.exitCode = 1;
    throw new Error(`tests left temporary directories behind (each test removes what it creates): ${left.join(', ')}`);
  }
}
