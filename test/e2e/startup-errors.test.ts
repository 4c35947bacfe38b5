/**
 * Start-up refusals, as an operator sees them: the real server process
 * exits non-zero with every configuration problem listed, and a wrong or
 * missing master key is a clear error instead of a server whose signatures
 * never match.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootData } from '../../src/app/boot.js';
import { databaseUrlForDataDir } from '../helpers/engine.js';
import { makeTempDir } from '../helpers/app.js';
import { admin, childEnv, run } from '../helpers/ops.js';

const server = (env: Record<string, string>) => run(process.execPath, ['--import', 'tsx', 'src/main.ts'], childEnv({ PORT: '0', LOG_FORMAT: 'json', ...env }));

let dataDir: string;

beforeAll(async () => {
  // A seeded DATA_DIR whose secrets are encrypted under a generated master.key.
  dataDir = makeTempDir('pgw-start-');
  // On the engine the processes below use (TEST_DB=postgres: this DATA_DIR's own database).
  await (await bootData({ dataDir, masterKey: null, seedDemoData: true, databaseUrl: databaseUrlForDataDir(dataDir) })).store.close();
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('start-up errors', () => {
  it('reports every invalid environment variable at once and exits 1', async () => {
    const r = await server({
      DATA_DIR: dataDir,
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      LOG_FORMAT: 'xml',
      SIGNATURE_MAX_SKEW_SECONDS: '0',
      METRICS_TOKEN: 'short',
      MASTER_KEY: 'not-a-key',
    });
    expect(r.code).toBe(1);
    for (const name of ['PORT', 'LOG_LEVEL', 'LOG_FORMAT', 'SIGNATURE_MAX_SKEW_SECONDS', 'METRICS_TOKEN', 'MASTER_KEY']) {
      expect(r.stderr).toMatch(new RegExp(`^  - ${name}: `, 'm'));
    }
    expect(r.stdout).not.toContain('listening');
  }, 60_000);

  it('refuses a MASTER_KEY that does not decrypt the stored secrets (server and CLI)', async () => {
    const wrong = randomBytes(32).toString('hex');
    const r = await server({ DATA_DIR: dataDir, MASTER_KEY: wrong });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the master key from MASTER_KEY does not decrypt the stored API secrets');
    expect(r.stdout).not.toContain('listening');

    const cli = await admin(dataDir, ['merchant', 'list'], { MASTER_KEY: wrong });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain('does not decrypt the stored API secrets');
  }, 60_000);

  it('refuses to start when master.key was deleted while encrypted secrets exist, and does not mint a new one', async () => {
    const keyFile = path.join(dataDir, 'master.key');
    const saved = fs.readFileSync(keyFile);
    fs.rmSync(keyFile);
    try {
      const r = await server({ DATA_DIR: dataDir });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('master.key is missing and MASTER_KEY is not set');
      expect(fs.existsSync(keyFile)).toBe(false);
    } finally {
      fs.writeFileSync(keyFile, saved, { mode: 0o600 });
    }
  }, 60_000);

  it('the generated master.key is mode 0600', () => {
    expect(fs.statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  });
});
