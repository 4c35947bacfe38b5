/**
 * docs/OPERATIONS.md's walkthrough, pasted into bash as an operator would,
 * against a real server on the same DATA_DIR: create a merchant, issue a
 * key, call, rotate, revoke, maintenance, metrics.
 *
 * One pass (npm test): docs/OPERATIONS.md as an operator follows it, on the default engine.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { childEnv, ROOT, startServer, type RunningServer } from '../helpers/ops.js';

const doc = fs.readFileSync(path.join(ROOT, 'docs/OPERATIONS.md'), 'utf8');
let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  dataDir = makeTempDir('pgw-opsdoc-');
  server = await startServer(dataDir);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('docs/OPERATIONS.md walkthrough', () => {
  it('works when pasted, and every step takes effect on the running server', async () => {
    const m = /<!-- ops-test:walkthrough -->\s*```sh\n([\s\S]*?)```/.exec(doc);
    expect(m).not.toBeNull();
    const env = childEnv({ DATA_DIR: dataDir, BASE_URL: server.baseUrl });
    delete env.API_KEY;
    delete env.API_SECRET;
    const { stdout } = await promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', m![1]!], { cwd: ROOT, env, maxBuffer: 10 * 1024 * 1024 });

    expect(stdout).toContain('Kedai Operasional');
    expect(stdout).toContain('"fee":1050');
    const statuses = [...stdout.matchAll(/-> HTTP (\d{3})/g)].map((x) => x[1]);
    // list, calculate, list (new key), old key revoked, list (new key), calculate in maintenance, calculate after (the maintenance list goes through grep).
    expect(statuses).toEqual(['200', '200', '200', '401', '200', '409', '200']);
    expect(stdout).toContain('"code":"INVALID_API_KEY"');
    expect(stdout).toMatch(/"code":"bca_va"[^}]*"status":"maintenance"/);
    expect(stdout).toContain('"code":"CHANNEL_UNAVAILABLE"');
    // The pricing step: the banded micro rule listed as scheduled, and who set it.
    expect(stdout).toMatch(/scheduled\s+category micro\s+500000:0:0,\*:0\.25:0\s+max 5000\s+\d{4}-\d\d-\d\d 00:00\n/);
    expect(stdout).toContain('(times in Asia/Jakarta;');
    expect(stdout).toMatch(/ops-walkthrough\s+fee\.set\s+qris/);
    expect(stdout).toMatch(/^auth_failures_total\{code="INVALID_API_KEY"\} 1$/m);
    expect(stdout).toMatch(/^http_requests_total\{method="GET",route="\/v1\/payments\/channel",status="200"\} 4$/m); // the maintenance list is piped through grep
  }, 180_000);
});
