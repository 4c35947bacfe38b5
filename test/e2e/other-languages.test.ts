/**
 * The README's examples for merchants in other languages, run for real:
 * docs/examples/svc1-curl.sh (bash + openssl + curl) and
 * docs/examples/svc1_sign.py (Python standard library) reproduce the
 * contract's test vectors and talk to a real server.
 *
 * One pass (npm test): SVC1 in other languages is its subject, not the engine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealServer, type RealServer } from '../helpers/real-server.js';
import { SVC1_VECTORS, VECTOR_KEY, VECTOR_SECRET, VECTOR_TIMESTAMP } from '../helpers/svc1-vectors.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SH = path.join(ROOT, 'docs/examples/svc1-curl.sh');
const PY = path.join(ROOT, 'docs/examples/svc1_sign.py');
const VECTOR_ENV = { API_KEY: VECTOR_KEY, API_SECRET: VECTOR_SECRET, TIMESTAMP: VECTOR_TIMESTAMP, SIGN_ONLY: '1' };
// The scripts take the body as an optional argument: an empty body is left out.
const VECTORS = SVC1_VECTORS.map(([method, target, body, signature]) => [method, target, body || undefined, signature] as const);
const python = ['python3', 'python'].find((bin) => spawnSync(bin, ['-c', 'import sys; assert sys.version_info >= (3, 10)']).status === 0);

function run(cmd: string, args: string[], env: Record<string, string>): string {
  return execFileSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...env } });
}

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer();
});
afterAll(() => server?.stop());

describe('bash + openssl example', () => {
  it.each(VECTORS)('reproduces the contract vector for %s %s', (method, target, body, signature) => {
    expect(run(SH, [method, target, ...(body ? [body] : [])], VECTOR_ENV)).toContain(`signature: ${signature}`);
  });

  it('calls the real server', () => {
    const env = { API_KEY: server.approved.apiKey, API_SECRET: server.approved.apiSecret, BASE_URL: server.baseUrl };
    const list = JSON.parse(run(SH, ['GET', '/v1/payments/channel'], env)) as { status: number; data: { code: string }[] };
    expect(list.data.map((c) => c.code)).toContain('qris');
    const body = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: server.approved.merchantId, chargeFeeToCustomer: true });
    expect(JSON.parse(run(SH, ['POST', '/v1/payments/calculate', body], env))).toEqual({
      amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0,
    });
  });
});

describe.skipIf(!python && process.env.CI !== 'true')('Python example', () => {
  it.each(VECTORS)('reproduces the contract vector for %s %s', (method, target, body, signature) => {
    expect(run(python!, [PY, method, target, ...(body ? [body] : [])], VECTOR_ENV).trim()).toBe(signature);
  });

  it('calls the real server', () => {
    const env = { API_KEY: server.approved.apiKey, API_SECRET: server.approved.apiSecret, BASE_URL: server.baseUrl };
    const body = JSON.stringify({ amount: 250000, currency: 'IDR', method: 'credit_card', merchantId: server.approved.merchantId, chargeFeeToCustomer: false });
    const out = run(python!, [PY, 'POST', '/v1/payments/calculate', body], env);
    expect(out.startsWith('200 ')).toBe(true);
    expect(JSON.parse(out.slice(4))).toEqual({ amount: 250000, fee: 9250, additionalFee: 1000, totalAmount: 250000, getBalance: 239750, currency: 'IDR', feeTax: 0, customerFee: 0, merchantFee: 10250 });
  });
});

describe('credentials and server address for the examples in other languages', () => {
  const scripts = [['bash', SH, []], ...(python ? [['python', python, [PY]]] : [])] as [string, string, string[]][];
  const runScript = (cmd: string, pre: string[], env: Record<string, string>) =>
    spawnSync(cmd, [...pre, 'GET', '/v1/payments/channel'], { encoding: 'utf8', cwd: ROOT, env: { ...process.env, API_KEY: '', API_SECRET: '', ...env } });

  it.each(scripts)('%s: without API_KEY/API_SECRET falls back to $DATA_DIR/demo-credentials.json, like npm run sign', (_name, cmd, pre) => {
    const res = runScript(cmd, pre, { DATA_DIR: server.dataDir, BASE_URL: server.baseUrl });
    expect(res.stderr).toContain(`credentials ${path.join(server.dataDir, 'demo-credentials.json')}`);
    expect(res.stderr).toContain(`base URL ${server.baseUrl}`);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/"code":\s?"qris"/);
  });

  it.each(scripts)('%s: GATEWAY_CREDENTIALS names the credentials file (it wins over DATA_DIR) and stderr says so', (_name, cmd, pre) => {
    const res = runScript(cmd, pre, { DATA_DIR: path.join(server.dataDir, 'nowhere'), GATEWAY_CREDENTIALS: path.join(server.dataDir, 'demo-credentials.json'), BASE_URL: server.baseUrl });
    expect(res.stderr).toContain(`credentials ${path.join(server.dataDir, 'demo-credentials.json')}`);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/"code":\s?"qris"/);
  });

  it.each(scripts)('%s: with no credentials anywhere says what to set (no traceback), exit non-zero', (_name, cmd, pre) => {
    const res = runScript(cmd, pre, { DATA_DIR: path.join(server.dataDir, 'nowhere'), BASE_URL: server.baseUrl });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('No credentials: export API_KEY and API_SECRET');
    expect(res.stderr).not.toMatch(/Traceback|KeyError/);
  });

  it.each(scripts)('%s: a server it cannot reach says so, with BASE_URL', (_name, cmd, pre) => {
    const res = runScript(cmd, pre, { DATA_DIR: server.dataDir, BASE_URL: 'http://127.0.0.1:9' });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('Cannot reach the gateway at http://127.0.0.1:9');
    expect(res.stderr).toContain('set BASE_URL');
    expect(res.stderr).not.toMatch(/Traceback/);
  });

  it('bash: a 4xx answer is printed and the exit status is non-zero (curl --fail-with-body)', () => {
    const res = runScript('bash', [SH], { DATA_DIR: server.dataDir, BASE_URL: server.baseUrl, API_KEY: 'pk_test_not_a_key_of_this_server', API_SECRET: 'sk_test_x' });
    expect(res.status).toBe(22);
    expect(res.stdout).toContain('"code":"INVALID_API_KEY"');
    expect(res.stderr).toContain('the gateway refused the request');
    expect(res.stderr).not.toContain('Cannot reach');
  });

  it('the start-up banner of a server on another port prints the BASE_URL to export', () => {
    expect(server.output()).toContain(`export BASE_URL=${server.baseUrl}`);
  });
});

describe('TypeScript checkout example (docs/examples/checkout.ts)', () => {
  const checkout = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'docs/examples/checkout.ts'), ...args], {
      encoding: 'utf8',
      env: { ...process.env, DATA_DIR: server.dataDir, API_KEY: '', API_SECRET: '', ...env },
    });

  it('prints the offerable channels with totals from one signed GraphQL request; every printed sum adds up', () => {
    const res = checkout(['150000'], { BASE_URL: server.baseUrl });
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('qris         pay 151050 = 150000 + fee 1050 (0.7% + 0); paid by customer');
    // The credit card's additional fee is printed, and the total includes it.
    expect(res.stdout).toContain('credit_card  pay 157350 = 150000 + fee 6350 (2.9% + 2000) + additional fee 1000 (0% + 1000); paid by customer');
    expect(res.stdout).not.toContain('mandiri_va');
    const lines = res.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const customer = /pay (\d+) = (\d+)((?: \+ (?:additional )?fee \d+ \([^)]*\))+); paid by customer$/.exec(line);
      const merchant = /pay (\d+); merchant receives (\d+) = (\d+)((?: - (?:additional )?fee \d+ \([^)]*\))+)$/.exec(line);
      const fees = (text: string) => [...text.matchAll(/fee (\d+) \(/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      expect(customer ?? merchant, line).not.toBeNull();
      if (customer) expect(Number(customer[1]), line).toBe(Number(customer[2]) + fees(customer[3]!));
      if (merchant) {
        expect(Number(merchant[1]), line).toBe(Number(merchant[3]));
        expect(Number(merchant[2]), line).toBe(Number(merchant[3]) - fees(merchant[4]!));
      }
    }
  });

  it.each([
    ['500', /No channel can take a payment of 500 IDR[\s\S]*qris +AMOUNT_OUT_OF_RANGE \(accepts 1000 to 10000000\)/],
    ['150000.5', /No channel can take a payment of 150000\.5 IDR[\s\S]*AMOUNT_PRECISION \(IDR amounts have no decimals\)/],
  ])('an amount no channel accepts (%s) says why for each channel and exits 1', (amount, expected) => {
    const res = checkout([amount], { BASE_URL: server.baseUrl });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(expected);
  });

  it('a server it cannot reach says so, with the URL it tried and BASE_URL, and exits 1', () => {
    const res = checkout(['150000'], { BASE_URL: 'http://127.0.0.1:9' });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('Cannot reach the gateway at http://127.0.0.1:9');
    expect(res.stderr).toContain('BASE_URL');
  });

  it('a refused request prints the code and what to check; a bad argument prints the usage (exit 2)', () => {
    const refused = checkout(['150000'], { BASE_URL: server.baseUrl, API_KEY: 'pk_test_00000000000000000000000000000000', API_SECRET: 'sk_test_x' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('401 INVALID_API_KEY');
    expect(refused.stderr).toContain(`not known to the server at ${server.baseUrl}`);
    const usage = checkout(['abc'], { BASE_URL: server.baseUrl });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('usage:');
  });
});
