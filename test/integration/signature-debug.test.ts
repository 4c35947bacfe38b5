import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex, stringToSign } from '../../src/modules/auth/svc1.js';
import { generateKey } from '../../src/modules/auth/keys.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';
import { createTestApp, makeTempDir, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/server.js';

let t: TestApp;
let live: DemoMerchantCredentials;
beforeAll(async () => {
  t = await createTestApp();
  const key = generateKey('live');
  await t.store.admin.insertKey({
    id: key.apiKey,
    merchantId: t.approved.merchantId,
    mode: 'live',
    secretCiphertext: t.data.secretBox.encrypt(key.apiKey, key.apiSecret),
  });
  await t.sync();
  live = { ...t.approved, apiKey: key.apiKey, apiSecret: key.apiSecret };
});
afterAll(() => t.close());

const BODY = '{"amount":150000,"currency":"IDR","method":"QRIS","merchantId":"3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13"}';

describe('SIGNATURE_MISMATCH debugging details', () => {
  it('a live key works and gets no debugging details on a mismatch', async () => {
    const ok = await t.signedFetch('/v1/payments/channel', { as: live });
    expect(ok.status).toBe(200);
    for (const target of ['/v1/payments/calculate', '/graphql']) {
      const res = await t.signedFetch(target, { method: 'POST', body: BODY, as: { ...live, apiSecret: 'sk_live_wrong' } });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).toContain('SIGNATURE_MISMATCH');
      expect(text).not.toContain('stringToSignSha256');
      expect(text).not.toContain('bodySha256');
      expect(text).not.toContain(sha256Hex(BODY));
    }
  });

  it('a test key gets the SHA-256 of the server string to sign and of the body it received (REST and GraphQL)', async () => {
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const serverSide = stringToSign({ method: 'POST', target: '/v1/payments/calculate', timestamp, apiKey: t.approved.apiKey, body: BODY });
    const res = await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: BODY, timestamp, as: { ...t.approved, apiSecret: 'sk_test_wrong' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      code: 'SIGNATURE_MISMATCH',
      bodySha256: sha256Hex(BODY),
      stringToSignSha256: sha256Hex(serverSide),
    });

    const gqlRes = await t.signedFetch('/graphql', { method: 'POST', body: '{"query":"{ paymentChannels { code } }"}', as: { ...t.approved, apiSecret: 'x' } });
    const gqlBody = (await gqlRes.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(gqlRes.status).toBe(401);
    expect(gqlBody.errors[0]!.extensions).toMatchObject({ code: 'SIGNATURE_MISMATCH', bodySha256: sha256Hex('{"query":"{ paymentChannels { code } }"}') });
  });

  it('a body changed after signing shows a different bodySha256 than the client computed', async () => {
    // Sign one body, send another: the hashes tell the integrator the body is the differing line.
    const { signatureHeaders } = await import('../../src/modules/auth/svc1.js');
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const headers = signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'POST', target: '/v1/payments/calculate', body: BODY, timestamp });
    const sent = BODY.replace('150000', '150001');
    const res = await t.fetch('/v1/payments/calculate', { method: 'POST', body: sent, headers: { ...headers, 'content-type': 'application/json' } });
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem.code).toBe('SIGNATURE_MISMATCH');
    expect(problem.bodySha256).toBe(sha256Hex(sent));
    expect(problem.bodySha256).not.toBe(sha256Hex(BODY));
  });
});

describe('the SIGNATURE_MISMATCH hint leads to the differing line', () => {
  const TARGET = '/v1/payments/calculate';

  async function mismatch(opts: { signedTarget?: string; secret?: string }): Promise<Record<string, string>> {
    const { signatureHeaders } = await import('../../src/modules/auth/svc1.js');
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const headers = signatureHeaders(t.approved.apiKey, opts.secret ?? t.approved.apiSecret, { method: 'POST', target: opts.signedTarget ?? TARGET, body: BODY, timestamp });
    const res = await t.fetch(TARGET, { method: 'POST', body: BODY, headers: { ...headers, 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    return (await res.json()) as Record<string, string>;
  }

  /** Run the command the hint prints, as the integrator would, with their body file and their (wrong) secret. */
  function runSignCommand(command: string, secret: string, signedBody = BODY): { stringToSignSha256: string; bodySha256: string; bodyBytes: number; out: string } {
    expect(command).toMatch(/^npm run --silent sign -- .* --secret YOUR_SECRET$/);
    const dir = makeTempDir('pgw-hint-');
    const bodyFile = path.join(dir, 'body.json');
    fs.writeFileSync(bodyFile, signedBody);
    const args = command.replace('npm run --silent sign -- ', '').split(' ').map((a) => (a === 'YOUR_SIGNED_BODY_FILE' ? bodyFile : a === 'YOUR_SECRET' ? secret : a));
    const out = execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(PROJECT_ROOT, 'src/cli/sign.ts'), ...args], { encoding: 'utf8' });
    fs.rmSync(dir, { recursive: true, force: true });
    return {
      stringToSignSha256: /\(stringToSignSha256\): ([0-9a-f]{64})/.exec(out)![1]!,
      bodySha256: /\(bodySha256\): +([0-9a-f]{64})/.exec(out)![1]!,
      bodyBytes: Number(/\(bodyBytes\): +([0-9]+)/.exec(out)![1]!),
      out,
    };
  }

  it('wrong secret: signCommand (with the timestamp and key sent) reproduces both hashes, which the hint reads as "the secret is wrong"', async () => {
    const problem = await mismatch({ secret: 'sk_test_wrong' });
    const timestamp = String(Math.floor(t.clock.now / 1000));
    expect(problem.signCommand).toBe(`npm run --silent sign -- POST ${TARGET} --body-file YOUR_SIGNED_BODY_FILE --timestamp ${timestamp} --key ${t.approved.apiKey} --secret YOUR_SECRET`);
    expect(problem.hint).toContain('Both equal → the secret is wrong');
    expect(problem.bodyBytes).toBe(Buffer.byteLength(BODY));
    expect(runSignCommand(problem.signCommand!, 'sk_test_wrong')).toMatchObject({
      stringToSignSha256: problem.stringToSignSha256,
      bodySha256: problem.bodySha256,
      bodyBytes: problem.bodyBytes,
    });
  }, 30_000);

  it('wrong target signed: same body hash, different string-to-sign hash (the hint then points at method/target/timestamp/key)', async () => {
    const problem = await mismatch({ signedTarget: `${TARGET}?debug=1` });
    expect(problem.bodySha256).toBe(sha256Hex(BODY));
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const clientSide = stringToSign({ method: 'POST', target: `${TARGET}?debug=1`, timestamp, apiKey: t.approved.apiKey, body: BODY });
    expect(problem.stringToSignSha256).not.toBe(sha256Hex(clientSide));
    expect(problem.hint).toContain('Body equal but stringToSignSha256 differs (same timestamp as sent) → the method, the target');
  });

  it('re-serialised body (signed compact, sent pretty-printed) with the right secret: the recipe blames the body, not the secret', async () => {
    // What an integrator's code typically does: sign JSON.stringify(payload), then let the HTTP layer send
    // a pretty-printed copy. The secret is right; only the bytes differ.
    const { signatureHeaders } = await import('../../src/modules/auth/svc1.js');
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const signed = BODY;
    const sent = JSON.stringify(JSON.parse(BODY), null, 2);
    const headers = signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'POST', target: TARGET, body: signed, timestamp });
    const res = await t.fetch(TARGET, { method: 'POST', body: sent, headers: { ...headers, 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    const problem = (await res.json()) as Record<string, string | number>;
    expect(problem).toMatchObject({ code: 'SIGNATURE_MISMATCH', bodySha256: sha256Hex(sent), bodyBytes: Buffer.byteLength(sent) });

    // The recipe: the bytes the code SIGNED go to YOUR_SIGNED_BODY_FILE, with the (right) secret.
    const mine = runSignCommand(String(problem.signCommand), t.approved.apiSecret, signed);
    expect(mine.bodySha256).not.toBe(problem.bodySha256);
    expect(mine.bodyBytes).not.toBe(problem.bodyBytes);
    // Read as the hint and the tool say: a differing body hash/length means the bytes sent are not the bytes signed.
    expect(String(problem.hint)).toContain('Body hash or length differs → the bytes sent are not the bytes signed: the body was re-serialised after signing');
    expect(mine.out).toContain('bodySha256 or bodyBytes differs: the bytes sent are not the bytes signed: the body was re-serialised after signing');
    // Why the recipe insists on the SIGNED bytes: the body as sent reproduces the server's hashes, which would
    // read as "both equal" and blame a secret that is right.
    const asSent = runSignCommand(String(problem.signCommand), t.approved.apiSecret, sent);
    expect(asSent).toMatchObject({ bodySha256: problem.bodySha256, stringToSignSha256: problem.stringToSignSha256 });
    expect(String(problem.hint)).toContain('compare them with what your code SIGNED');
    expect(asSent.out).toContain('must be the exact\nbytes your code passed to the HMAC');
  }, 30_000);
});
