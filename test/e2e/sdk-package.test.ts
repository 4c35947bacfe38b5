/**
 * The SDK as a user outside this repository gets it: `npm pack` of packages/client
 * (its prepack step builds dist/), the tarball installed into a fresh project in the temporary directory
 * with npm, then
 * - plain `node` (no tsx, no loader) imports it and makes a signed call, creates a checkout session, and
 *   makes session calls (a query, the REST list, the SSE subscription) against a real server;
 * - a bundler (esbuild, platform browser) resolves it through its exports map;
 * - `tsc` type-checks a TypeScript consumer against the package's declarations (exports map `types`).
 *
 * One pass (npm test): the packed SDK is its subject, not the engine.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/server.js';
import { startRealServer, type RealServer } from '../helpers/real-server.js';
import { adminJson } from '../helpers/ops.js';

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

/**
 * Fee quotes (contract §11) from the package: a quote verified offline (the JWKS fetched once) and through
 * the endpoint, the typed errors (tampered, another merchant's, expired); then, after the test rotated the
 * signing key (it writes the file `rotated`), a quote with the new `kid` makes the verifier fetch the keys
 * again, once.
 */
const QUOTE_CONSUMER = `
import fs from 'node:fs';
import { createClient, GatewayError } from '@payment-gateway/client';
const [baseUrl, apiKey, apiSecret, merchantId, otherKey, otherSecret, otherMerchant] = process.argv.slice(2);
let jwksFetches = 0;
const counting = (url, init) => { if (String(url).endsWith('/.well-known/jwks.json')) jwksFetches++; return fetch(url, init); };
const gateway = createClient({ baseUrl, apiKey, apiSecret, merchantId, fetch: counting });
const other = createClient({ baseUrl, apiKey: otherKey, apiSecret: otherSecret, merchantId: otherMerchant, fetch: counting });
const codeOf = (p) => p.then(() => 'accepted', (e) => (e instanceof GatewayError ? e.code + ' ' + e.status : String(e)));
const calc = await gateway.calculateFee({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId, quote: true });
const offline = await gateway.verifyQuote(calc.quote);
const again = await gateway.verifyQuote(calc.quote);
const online = await gateway.verifyQuoteOnline(calc.quote);
const [h, p, sig] = calc.quote.split('.');
const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
const tampered = h + '.' + Buffer.from(JSON.stringify({ ...claims, totalAmount: 1 })).toString('base64url') + '.' + sig;
const errors = {
  tamperedOffline: await codeOf(gateway.verifyQuote(tampered)),
  tamperedOnline: await codeOf(gateway.verifyQuoteOnline(tampered)),
  otherOffline: await codeOf(other.verifyQuote(calc.quote)),
  otherOnline: await codeOf(other.verifyQuoteOnline(calc.quote)),
  expiredOffline: await codeOf(createClient({ baseUrl, apiKey, apiSecret, merchantId, now: () => Date.now() + 3_600_000 }).verifyQuote(calc.quote)),
};
const fetchesBeforeRotation = jwksFetches - 1; // the other client's own first fetch
console.log('READY');
while (!fs.existsSync('rotated')) await new Promise((r) => setTimeout(r, 50));
const fresh = await gateway.calculateFee({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId, quote: true });
const rotated = await gateway.verifyQuote(fresh.quote);
const oldStill = await gateway.verifyQuote(calc.quote);
const kid = (t) => JSON.parse(Buffer.from(t.split('.')[0], 'base64url').toString()).kid;
console.log(JSON.stringify({ calc, offline, again, online, errors, fetchesBeforeRotation, fetchesAfterRotation: jwksFetches - 1, kids: [kid(calc.quote), kid(fresh.quote)], rotated, oldStill }));
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
    expect(Object.keys(manifest.dependencies)).toEqual(['graphql-sse', 'jose']);
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

  it('verifies a fee quote offline (JWKS once, again for a new kid after rotation) and online, with the typed errors (contract §11)', async () => {
    fs.writeFileSync(path.join(project, 'quotes.mjs'), QUOTE_CONSUMER);
    fs.rmSync(path.join(project, 'rotated'), { force: true });
    const { approved, pending } = server;
    const child = spawn(process.execPath, ['quotes.mjs', server.baseUrl, approved.apiKey, approved.apiSecret, approved.merchantId, pending.apiKey, pending.apiSecret, pending.merchantId], { cwd: project });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      const deadline = Date.now() + 30_000;
      while (!out.includes('READY')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`consumer did not get ready: ${out} ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await adminJson(server.dataDir, ['quote-keys', 'rotate']);
      // Contract §11: the new key signs on every server within 1 s.
      await new Promise((r) => setTimeout(r, 1_000));
      fs.writeFileSync(path.join(project, 'rotated'), '');
      expect(await exited, err).toBe(0);
    } finally {
      child.kill();
    }
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, any>;
    const { quote: _q, quoteExpiresAt, ...calculation } = result.calc;
    expect(calculation).toMatchObject({ amount: 150000, totalAmount: 151050, currency: 'IDR' });
    expect(result.offline).toEqual(result.online);
    expect(result.offline).toMatchObject({ ...calculation, method: 'qris', merchantId: approved.merchantId, expiresAt: quoteExpiresAt });
    expect(result.again).toEqual(result.offline);
    expect(result.errors).toEqual({
      tamperedOffline: 'QUOTE_INVALID 422',
      tamperedOnline: 'QUOTE_INVALID 422',
      otherOffline: 'QUOTE_INVALID 422',
      otherOnline: 'QUOTE_INVALID 422',
      expiredOffline: 'QUOTE_EXPIRED 422',
    });
    expect(result.fetchesBeforeRotation).toBe(1);
    expect(result.kids[0]).not.toBe(result.kids[1]);
    expect(result.fetchesAfterRotation).toBe(2);
    expect(result.rotated).toMatchObject({ totalAmount: 151050 });
    expect(result.oldStill.quoteId).toBe(result.offline.quoteId);
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

  it('the README\'s "Quotes" worked example runs as written under plain node', () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const snippet = /<!-- readme-test:quote-node -->\s*```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toBeDefined();
    fs.writeFileSync(path.join(project, 'quote.js'), snippet!);
    const { apiKey, apiSecret } = server.approved;
    const out = execFileSync(process.execPath, ['quote.js'], { cwd: project, encoding: 'utf8', env: { ...process.env, BASE_URL: server.baseUrl, API_KEY: apiKey, API_SECRET: apiSecret }, timeout: 30_000 });
    expect(out.trim().split('\n')).toEqual(['151050 true', '151050 151050 true', '422 QUOTE_INVALID']);
  }, 30_000);

  it('a bundler resolves it for the browser through the exports map (esbuild, platform browser)', async () => {
    fs.writeFileSync(path.join(project, 'browser-entry.js'), "import { createSessionClient } from '@payment-gateway/client';\nexport const client = createSessionClient({ baseUrl: location.origin, clientSecret: 'cs_x_secret_y' });\n");
    const result = await build({ absWorkingDir: project, entryPoints: ['browser-entry.js'], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('node_modules/@payment-gateway/client/dist/index.js');
    expect(inputs.some((i) => i.startsWith('node_modules/graphql-sse/'))).toBe(true);
    expect(result.outputFiles[0]!.text).not.toMatch(/from\s*["']node:/);
  });

  it('the README\'s typed GraphQL: graphql-codegen (client preset) from the committed schema, then tsc compiles the snippet', () => {
    const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const codegen = /<!-- sdk-test:codegen -->\s*```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    const snippet = /<!-- sdk-test:typed-query -->\s*```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(codegen).toBeDefined();
    expect(snippet).toBeDefined();
    const app = path.join(project, 'typed-app');
    fs.mkdirSync(path.join(app, 'src'), { recursive: true });
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'typed-app', private: true, type: 'module' }));
    // The README's config as written, but for where this repository's schema is (the README assumes a checkout beside the project).
    const schemaAt = "'../payment-gateway/schema/*.graphql'";
    expect(codegen).toContain(schemaAt);
    fs.writeFileSync(path.join(app, 'codegen.ts'), codegen!.replace(schemaAt, JSON.stringify(path.join(PROJECT_ROOT, 'schema', '*.graphql'))));
    fs.writeFileSync(path.join(app, 'src', 'fees.ts'), snippet!);
    // What `npm install -D @graphql-codegen/cli @graphql-codegen/client-preset` gives the project (this repository's
    // copies; the client preset brings @graphql-typed-document-node/core), and the SDK as installed from its tarball.
    fs.mkdirSync(path.join(app, 'node_modules', '@payment-gateway'), { recursive: true });
    for (const dir of ['@graphql-codegen', '@graphql-typed-document-node', 'graphql']) fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules', dir), path.join(app, 'node_modules', dir));
    fs.symlinkSync(path.join(project, 'node_modules', '@payment-gateway', 'client'), path.join(app, 'node_modules', '@payment-gateway', 'client'));
    const generated = spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/@graphql-codegen/cli/cjs/bin.js'), '--config', 'codegen.ts'], { cwd: app, encoding: 'utf8' });
    expect(generated.status, generated.stdout + generated.stderr).toBe(0);
    expect(fs.readFileSync(path.join(app, 'src/gql/graphql.ts'), 'utf8')).toContain('export type ChannelFeesQuery');
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, lib: ['ES2023', 'DOM'], types: [] }, include: ['src/**/*.ts'] }),
    );
    const tsc = () => {
      const r = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app, encoding: 'utf8' });
      return { status: r.status, output: r.stdout + r.stderr };
    };
    expect(tsc()).toEqual({ status: 0, output: '' });
    // The result is typed by the document: a field it did not select, or a nullable one used as if present, is refused.
    fs.writeFileSync(path.join(app, 'src', 'fees.ts'), `${snippet!}\nexport async function wrong(s: string) {\n  const d = await createSessionClient({ baseUrl: '', clientSecret: s }).graphql(ChannelFees, { amount: '1' });\n  return [d.paymentChannels[0]?.feeInfo, d.paymentChannels[0]?.fee.totalAmount];\n}\n`);
    const wrong = tsc();
    expect(wrong.status).not.toBe(0);
    expect(wrong.output).toMatch(/fees\.ts\(\d+,\d+\): error TS2339: Property 'feeInfo' does not exist/);
    expect(wrong.output).toMatch(/fees\.ts\(\d+,\d+\): error TS2533: Object is possibly 'null' or 'undefined'/);
  }, 120_000);

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
