/**
 * The SDK as a user outside this repository gets it (issue 23 item 5): `npm pack` of packages/client
 * (its prepack step builds dist/), the tarball installed into a fresh project in the temporary directory
 * with npm, then
 * - plain `node` (no tsx, no loader) imports it and makes a signed call, creates a checkout session, and
 *   makes session calls (a query, the REST list, the SSE subscription) against a real server;
 * - a bundler (esbuild, platform browser) resolves it through its exports map;
 * - `tsc` type-checks a TypeScript consumer against the package's declarations (exports map `types`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/server.js';
import { startRealServer, type RealServer } from '../helpers/real-server.js';

const PACKAGE_DIR = path.join(PROJECT_ROOT, 'packages', 'client');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** The consumer, as a user would write it: ESM, the package's name, nothing of this repository. */
const CONSUMER = `
import { createClient, createSessionClient, GatewayError } from '@payment-gateway/client';
const [baseUrl, apiKey, apiSecret, merchantId] = process.argv.slice(2);
const gateway = createClient({ baseUrl, apiKey, apiSecret });
const signed = await gateway.listChannels();
const session = await gateway.createCheckoutSession({ merchantId, amount: 150000, currency: 'IDR', methods: ['qris', 'ovo'] });
const browser = createSessionClient({ baseUrl, clientSecret: session.clientSecret });
const query = await browser.graphql('{ checkoutSession { id amount currency methods } paymentChannels { code fee(amount: 150000) { totalAmount } } }');
const rest = await browser.listChannels();
const streamed = await new Promise((resolve, reject) => {
  const stop = browser.subscribeChannels('code status', { next: (channels) => { stop(); resolve(channels); }, error: reject });
});
const refused = await createSessionClient({ baseUrl, clientSecret: session.id + '_secret_' + 'A'.repeat(43) })
  .graphql('{ checkoutSession { id } }')
  .then(() => 'served', (e) => (e instanceof GatewayError ? e.code + ' ' + e.status : String(e)));
// A stated refusal ends a subscription at once with its code (graphql-sse retries only lost connections).
const started = Date.now();
const refusedStream = await new Promise((resolve) => {
  createSessionClient({ baseUrl, clientSecret: session.id + '_secret_' + 'A'.repeat(43) }).subscribeChannels('code', {
    next: () => resolve('data'),
    error: (e) => resolve(e instanceof GatewayError ? e.code + ' ' + e.status : String(e)),
  });
});
const refusedAfterMs = Date.now() - started;
browser.dispose();
console.log(JSON.stringify({ signed: signed.map((c) => c.code), session, query, rest: rest.map((c) => c.code), streamed, refused, refusedStream, refusedAfterMs }));
`;

/** A typed consumer: must compile against the published declarations. */
const TYPED_CONSUMER = `
import { createClient, createSessionClient, GatewayError, type CheckoutSession, type SessionClient } from '@payment-gateway/client';
const gateway = createClient({ baseUrl: 'http://127.0.0.1:4000', apiKey: 'k', apiSecret: 's' });
export async function run(): Promise<string> {
  const s: CheckoutSession = await gateway.createCheckoutSession({ merchantId: 'm', amount: 1000, currency: 'IDR' });
  const c: SessionClient = createSessionClient({ baseUrl: 'http://127.0.0.1:4000', clientSecret: s.clientSecret });
  const data = await c.graphql<{ checkoutSession: { amount: number } }>('{ checkoutSession { amount } }');
  const err: unknown = null;
  return err instanceof GatewayError ? err.code : String(data.checkoutSession.amount + s.expiresAt.length);
}
`;

describe('the SDK package (npm pack → install outside the repository → plain node)', () => {
  let server: RealServer;
  let project: string;

  beforeAll(async () => {
    server = await startRealServer();
    project = makeTempDir('pgw-sdk-consumer-');
    const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', project], { cwd: PACKAGE_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as { filename: string }[];
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
    // Only the tarball and what it declares (graphql-sse and its peer graphql), from npm's cache when it has them.
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${packed[0]!.filename}`], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it('the tarball holds the built module, its declarations and the manifest, no TypeScript source', () => {
    const installed = path.join(project, 'node_modules', '@payment-gateway', 'client');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; import: string }>; dependencies: Record<string, string> };
    expect(fs.existsSync(path.join(installed, manifest.exports['.']!.import))).toBe(true);
    expect(fs.existsSync(path.join(installed, manifest.exports['.']!.types))).toBe(true);
    expect(Object.keys(manifest.dependencies)).toEqual(['graphql-sse']);
    const files = execFileSync('find', [installed, '-type', 'f'], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('plain node makes a signed call, creates a session and makes session calls (query, REST, SSE)', () => {
    fs.writeFileSync(path.join(project, 'consumer.mjs'), CONSUMER);
    const { apiKey, apiSecret, merchantId } = server.approved;
    const out = execFileSync(process.execPath, ['consumer.mjs', server.baseUrl, apiKey, apiSecret, merchantId], { cwd: project, encoding: 'utf8', timeout: 30_000 });
    const result = JSON.parse(out) as {
      signed: string[];
      session: { id: string; clientSecret: string; amount: number; currency: string; methods: string[] };
      query: { checkoutSession: { id: string; amount: number; currency: string; methods: string[] }; paymentChannels: { code: string; fee: { totalAmount: number } | null }[] };
      rest: string[];
      streamed: { code: string; status: string }[];
      refused: string;
      refusedStream: string;
      refusedAfterMs: number;
    };
    expect(result.signed).toContain('qris');
    expect(result.session).toMatchObject({ amount: 150000, currency: 'IDR', methods: ['qris', 'ovo'] });
    expect(result.session.clientSecret.startsWith(`${result.session.id}_secret_`)).toBe(true);
    expect(result.query.checkoutSession).toMatchObject({ id: result.session.id, amount: 150000, currency: 'IDR' });
    expect(result.query.paymentChannels.map((c) => c.code).sort()).toEqual(['ovo', 'qris']);
    expect(result.query.paymentChannels.find((c) => c.code === 'qris')!.fee).toEqual({ totalAmount: 151050 });
    expect([...result.rest].sort()).toEqual(['ovo', 'qris']);
    expect(result.streamed.map((c) => c.code).sort()).toEqual(['ovo', 'qris']);
    expect(result.refused).toBe('SESSION_INVALID 401');
    expect(result.refusedStream).toBe('SESSION_INVALID 401');
    // graphql-sse's first retry waits at least 1 s: an answer before that was not retried.
    expect(result.refusedAfterMs).toBeLessThan(1_000);
  }, 60_000);

  it('the README\'s "Frontend (TypeScript)" snippet runs as written under plain node', () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const snippet = /<!-- readme-test:sdk-node -->\s*```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toBeDefined();
    fs.writeFileSync(path.join(project, 'app.js'), snippet!);
    const { apiKey, apiSecret } = server.approved;
    const out = execFileSync(process.execPath, ['app.js'], { cwd: project, encoding: 'utf8', env: { ...process.env, BASE_URL: server.baseUrl, API_KEY: apiKey, API_SECRET: apiSecret }, timeout: 30_000 });
    const [first, second] = out.trim().split('\n');
    expect(first).toMatch(/^\d+ 151050 \d+ \d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(second).toBe('422 AMOUNT_OUT_OF_RANGE');
  }, 30_000);

  it('a bundler resolves it for the browser through the exports map (esbuild, platform browser)', async () => {
    fs.writeFileSync(path.join(project, 'browser-entry.js'), "import { createSessionClient } from '@payment-gateway/client';\nexport const client = createSessionClient({ baseUrl: location.origin, clientSecret: 'cs_x_secret_y' });\n");
    const result = await build({ absWorkingDir: project, entryPoints: ['browser-entry.js'], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('node_modules/@payment-gateway/client/dist/index.js');
    expect(inputs.some((i) => i.startsWith('node_modules/graphql-sse/'))).toBe(true);
    expect(result.outputFiles[0]!.text).not.toMatch(/from\s*["']node:/);
  });

  it('a TypeScript consumer type-checks against the published declarations', () => {
    fs.writeFileSync(path.join(project, 'typed.ts'), TYPED_CONSUMER);
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, lib: ['ES2023', 'DOM'], types: [] }, files: ['typed.ts'] }),
    );
    const tsc = () => {
      const r = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
      return { status: r.status, output: r.stdout + r.stderr };
    };
    expect(tsc()).toEqual({ status: 0, output: '' });
    // And the check can fail: a wrong property type is refused.
    fs.writeFileSync(path.join(project, 'typed.ts'), `${TYPED_CONSUMER}\nexport const wrong: number = gateway.createCheckoutSession;\n`);
    const wrong = tsc();
    expect(wrong.status).not.toBe(0);
    expect(wrong.output).toMatch(/typed\.ts\(\d+,\d+\): error TS2322/);
  }, 60_000);
});
