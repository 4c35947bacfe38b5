/**
 * The README's quick start on the real server: `npm start` on a fresh
 * DATA_DIR seeds demo data, prints a working signed example, serves both
 * REST routes and GraphQL; a restart keeps data and does not re-seed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { TEST_ENGINE } from '../helpers/engine.js';
import { startExpectingFailure, startServer, type RunningServer } from '../helpers/server.js';

let dataDir: string;
let server: RunningServer;

beforeAll(async () => {
  dataDir = path.join(makeTempDir('pgw-e2e-'), 'data'); // does not exist yet: the server creates it
  server = await startServer(dataDir);
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

describe('quick start on a fresh DATA_DIR', () => {
  it('creates DATA_DIR, the database, a 0600 master key and demo-credentials.json', () => {
    // SQLite: the database is a file in DATA_DIR; TEST_DB=postgres: all state is in Postgres, no file here.
    expect(fs.existsSync(path.join(dataDir, 'gateway.db'))).toBe(TEST_ENGINE === 'sqlite');
    expect(fs.statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    const creds = server.credentials();
    // The two contract merchants first (approved, pending), then the micro merchant (contract §7 demo).
    expect(creds.map((m) => [m.kyc, m.category])).toEqual([
      ['approved', 'regular'],
      ['pending', 'regular'],
      ['approved', 'micro'],
    ]);
    for (const m of creds) {
      expect(m.apiKey).toMatch(/^pk_test_/);
      expect(m.apiSecret).toMatch(/^sk_test_/);
      expect(m.merchantId).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('prints a ready-to-paste signed curl that returns 200', () => {
    const m = /^(curl -s [\s\S]*?X-SERVICE-Signature: [0-9a-f]{64}')$/m.exec(server.output());
    expect(m).not.toBeNull();
    const out = execFileSync('bash', ['-c', m![1]!], { encoding: 'utf8' });
    const body = JSON.parse(out) as { status: number; data: unknown[] };
    expect(body.status).toBe(200);
    expect(body.data.length).toBeGreaterThan(5);
  });

  it('GET /v1/payments/channel, POST /v1/payments/calculate and POST /graphql answer 200', async () => {
    const list = await server.signedFetch('/v1/payments/channel');
    expect(list.status).toBe(200);
    const calc = await server.signedFetch('/v1/payments/calculate', {
      method: 'POST',
      body: '{"amount":150000,"currency":"IDR","method":"QRIS","merchantId":"3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13","chargeFeeToCustomer":true}',
    });
    expect(calc.status).toBe(200);
    expect(await calc.json()).toEqual({ amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0 });
    const graph = await server.signedFetch('/graphql', { method: 'POST', body: '{"query":"{ paymentChannels { code status } }"}' });
    expect(graph.status).toBe(200);
    const data = (await graph.json()) as { data: { paymentChannels: { code: string; status: string }[] } };
    expect(data.data.paymentChannels).toContainEqual({ code: 'qris', status: 'ACTIVE' });
  });

  it('the raw request target is what is signed (query string included, exactly as sent)', async () => {
    const q = '/graphql?query=%7B%20paymentChannels%20%7B%20code%20%7D%20%7D';
    expect((await server.signedFetch(q)).status).toBe(200);
  });

  it('serves /health, /ready, images and the GraphiQL page without credentials, with no CDN asset', async () => {
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/images/channels/qris.svg`)).status).toBe(200);
    const page = await fetch(`${server.baseUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/graphiql/i);
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=["']https?:/i);
  });

  it('a restart keeps data and credentials and does not re-seed', async () => {
    const before = fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8');
    const channels = await (await server.signedFetch('/v1/payments/channel')).text();
    await server.stop();
    expect(server.output()).toMatch(/"msg":"stopped"/);
    server = await startServer(dataDir);
    expect(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).toBe(before);
    expect(await (await server.signedFetch('/v1/payments/channel')).text()).toBe(channels);
    expect(server.output()).toMatch(/"seeded":false/);
  });
});

describe('start-up failures are clear and non-zero', () => {
  it('reports every invalid variable at once', async () => {
    const { code, output } = await startExpectingFailure({ PORT: 'eighty', SIGNATURE_MAX_SKEW_SECONDS: '-1', LOG_LEVEL: 'loud', DATA_DIR: dataDir });
    expect(code).not.toBe(0);
    for (const name of ['PORT', 'SIGNATURE_MAX_SKEW_SECONDS', 'LOG_LEVEL']) expect(output).toContain(name);
  });

  it('refuses a master key that does not decrypt the stored secrets', async () => {
    const { code, output } = await startExpectingFailure({ DATA_DIR: dataDir, PORT: '0', MASTER_KEY: 'ab'.repeat(32) });
    expect(code).not.toBe(0);
    expect(output).toMatch(/master key/i);
  });
});
