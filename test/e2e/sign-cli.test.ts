/**
 * `npm run sign`, spawned as a user runs it, and the curl command it prints, run against a real server.
 *
 * One pass (npm test): the signing CLI is its subject, not the engine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealServer, type RealServer } from '../helpers/real-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VECTOR = { API_KEY: 'pk_test_4f9a1c2e7b5d3a6c', API_SECRET: 'sk_test_9xQeWvG816bUx9EPjHmaT23yvVMZbrpp' };
const CALC = '{"amount":150000,"currency":"IDR","method":"QRIS","merchantId":"3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13","chargeFeeToCustomer":true}';

function sign(args: string[], env: Record<string, string> = {}, input?: string) {
  const res = spawnSync('npm', ['run', '--silent', 'sign', '--', ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', input });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

function curlOf(stdout: string): string {
  return stdout.slice(stdout.indexOf('curl:\n') + 'curl:\n'.length).trim();
}

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer();
});
afterAll(() => server?.stop());

describe('npm run sign', () => {
  it.each([
    ['GET', '/v1/payments/channel', undefined, '72c8d3db46601f4144c285d92cdb3ed8ed63ddb8545f9043f0f8de29cd874f78'],
    ['POST', '/v1/payments/calculate', CALC, '6e35f8b4343a767e00588addb31506ece6dd6030a98d6cc46c796d45a4d1e4dd'],
    ['post', '/graphql', '{"query":"{ paymentChannels { code status } }"}', 'e88d025a3f04a90cd42c59ba0fc4e022ad0bc6fba0186b34e5933f6a5b2cf66a'],
  ])('prints the contract vector for %s %s (credentials from the environment)', (method, target, body, signature) => {
    const out = sign([method, target, ...(body ? [body] : []), '--timestamp', '1767225600'], VECTOR);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`  ${method.toUpperCase()}\n  ${target}\n  1767225600\n  pk_test_4f9a1c2e7b5d3a6c\n`);
    expect(out.stdout).toContain(`X-SERVICE-Signature: ${signature}`);
    expect(out.stdout).toContain('stringToSignSha256');
    expect(curlOf(out.stdout)).toMatch(/^curl /);
  });

  it('takes --key/--secret flags and a body from stdin (--body-file -)', () => {
    const out = sign(['POST', '/v1/payments/calculate', '--body-file', '-', '--key', VECTOR.API_KEY, '--secret', VECTOR.API_SECRET, '--timestamp', '1767225600'], {}, CALC);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('X-SERVICE-Signature: 6e35f8b4343a767e00588addb31506ece6dd6030a98d6cc46c796d45a4d1e4dd');
  });

  it('explains bad usage with a non-zero exit', () => {
    expect(sign(['GET'], VECTOR)).toMatchObject({ code: 2 });
    expect(sign(['GET', 'v1/payments/channel'], VECTOR).stderr).toContain('starting with "/"');
    expect(sign(['GET', '/x', '--timestamp', '1767225600000'], VECTOR).stderr).toContain('not milliseconds');
    expect(sign(['GET', '/x'], { API_KEY: 'pk_test_x', API_SECRET: '' }).stderr).toContain('both the key and the secret');
  });

  it('the printed curl command works against the running server (demo credentials from DATA_DIR)', () => {
    const env = { DATA_DIR: server.dataDir, BASE_URL: server.baseUrl, API_KEY: '', API_SECRET: '' };
    const list = sign(['GET', '/v1/payments/channel'], env);
    expect(list.code).toBe(0);
    // It says which keys and which server it signs for (stderr; stdout stays the signature).
    expect(list.stderr).toContain(`sign: credentials ${path.join(server.dataDir, 'demo-credentials.json')}, merchant `);
    expect(list.stderr).toContain(`sign: base URL ${server.baseUrl} (BASE_URL)`);
    const listed = JSON.parse(execFileSync('bash', ['-c', curlOf(list.stdout)], { encoding: 'utf8' })) as { status: number; data: { code: string }[] };
    expect(listed.status).toBe(200);
    expect(listed.data.map((c) => c.code)).toContain('qris');

    const calc = sign(['POST', '/v1/payments/calculate', CALC], env);
    const result = JSON.parse(execFileSync('bash', ['-c', curlOf(calc.stdout)], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(result).toEqual({ amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0 });
  });

  it('GATEWAY_CREDENTIALS names the credentials file, over DATA_DIR', () => {
    const env = { DATA_DIR: path.join(server.dataDir, 'nowhere'), GATEWAY_CREDENTIALS: path.join(server.dataDir, 'demo-credentials.json'), BASE_URL: server.baseUrl, API_KEY: '', API_SECRET: '' };
    const out = sign(['GET', '/v1/payments/channel'], env);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`sign: credentials ${path.join(server.dataDir, 'demo-credentials.json')} (GATEWAY_CREDENTIALS)`);
    const listed = JSON.parse(execFileSync('bash', ['-c', curlOf(out.stdout)], { encoding: 'utf8' })) as { status: number };
    expect(listed.status).toBe(200);
  });

  it('its hashes match the ones a SIGNATURE_MISMATCH returns for a test key', () => {
    const env = { DATA_DIR: server.dataDir, BASE_URL: server.baseUrl, API_KEY: server.approved.apiKey, API_SECRET: 'sk_test_not_the_secret' };
    const out = sign(['POST', '/v1/payments/calculate', CALC], env);
    const problem = JSON.parse(execFileSync('bash', ['-c', curlOf(out.stdout)], { encoding: 'utf8' })) as Record<string, string>;
    expect(problem.code).toBe('SIGNATURE_MISMATCH');
    expect(out.stdout).toContain(`(stringToSignSha256): ${problem.stringToSignSha256}`);
    expect(out.stdout).toContain(`(bodySha256):`);
    expect(out.stdout).toContain(problem.bodySha256);
    expect(out.stdout).toMatch(new RegExp(`\\(bodyBytes\\): +${problem.bodyBytes}\n`));
  });

  it('re-serialised body: given the bytes the code signed, its output and the server\'s problem point at the body, not the secret', () => {
    // The right secret signs the compact body; a pretty-printed copy goes over the wire.
    const env = { DATA_DIR: server.dataDir, BASE_URL: server.baseUrl, API_KEY: server.approved.apiKey, API_SECRET: server.approved.apiSecret };
    const signed = sign(['POST', '/v1/payments/calculate', CALC], env);
    const pretty = JSON.stringify(JSON.parse(CALC), null, 2);
    const curl = curlOf(signed.stdout).replace(/--data-raw '[^']*'/, `--data-raw '${pretty}'`);
    const problem = JSON.parse(execFileSync('bash', ['-c', curl], { encoding: 'utf8' })) as Record<string, string | number>;
    expect(problem).toMatchObject({ code: 'SIGNATURE_MISMATCH', bodyBytes: Buffer.byteLength(pretty) });
    // The recipe: the problem's signCommand with the signed bytes on stdin.
    const args = String(problem.signCommand).replace('npm run --silent sign -- ', '').split(' ')
      .map((a) => (a === 'YOUR_SIGNED_BODY_FILE' ? '-' : a === 'YOUR_SECRET' ? server.approved.apiSecret : a));
    const mine = sign(args, {}, CALC);
    expect(mine.code).toBe(0);
    expect(mine.stdout).not.toContain(String(problem.bodySha256));
    expect(mine.stdout).toMatch(new RegExp(`\\(bodyBytes\\): +${Buffer.byteLength(CALC)}\n`));
    expect(mine.stdout).toContain('bodySha256 or bodyBytes differs: the bytes sent are not the bytes signed: the body was re-serialised after signing');
  });
});
