/**
 * Contract §11 over HTTP, on whichever engine the run uses (TEST_DB=postgres for Postgres): quotes on REST
 * and GraphQL, the JWS format, offline verification with `jose` against the served JWKS, the verify endpoint
 * and `verifyQuote`, the two error codes, a quote honoured after `fee set` changed the rate, rotation with
 * both keys published, a checkout session's quote bounded by the session, and QUOTE_TTL_SECONDS at boot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { AdminService } from '../../src/modules/admin/service.js';
import { ConfigError, loadConfig } from '../../src/shared/config.js';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: AdminService;

beforeAll(async () => {
  t = await createTestApp();
  admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'fee-quotes-test', now: () => t.clock.now });
});
afterAll(() => t.close());

const BODY = (extra: Record<string, unknown> = {}) => ({ amount: 150000, currency: 'IDR', method: 'QRIS', ...extra });

async function calculate(extra: Record<string, unknown> = {}, as = t.approved) {
  const res = await t.signedFetch('/v1/payments/calculate', { method: 'POST', body: JSON.stringify(BODY({ merchantId: as.merchantId, ...extra })), as });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function verifyRest(quote: string, as = t.approved) {
  const res = await t.signedFetch('/v1/payments/quotes/verify', { method: 'POST', body: JSON.stringify({ quote }), as });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function jwks(): Promise<{ res: Response; set: JSONWebKeySet }> {
  const res = await t.fetch('/.well-known/jwks.json');
  return { res, set: (await res.clone().json()) as JSONWebKeySet };
}

describe('issuing (contract §11)', () => {
  it('REST calculate is unchanged without "quote": true, and adds quote + quoteExpiresAt with it', async () => {
    const plain = await calculate();
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('quote');
    expect(plain.body).not.toHaveProperty('quoteExpiresAt');
    const quoted = await calculate({ quote: true });
    expect(quoted.status).toBe(200);
    const { quote, quoteExpiresAt, ...rest } = quoted.body;
    expect(rest).toEqual(plain.body);
    expect(typeof quote).toBe('string');
    expect(Date.parse(quoteExpiresAt as string)).toBe(Math.floor(t.clock.now / 1000) * 1000 + 900_000);
    expect((await calculate({ quote: false })).body).toEqual(plain.body);
  });

  it('the token is a compact JWS (EdDSA, kid, typ fee-quote+jwt) that jose verifies offline against the served JWKS, with every claim', async () => {
    const { body } = await calculate({ quote: true });
    const token = body.quote as string;
    expect(token.split('.')).toHaveLength(3);
    const header = decodeProtectedHeader(token);
    const { res, set } = await jwks();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d{2,}/);
    expect(header).toEqual({ alg: 'EdDSA', kid: set.keys[0]!.kid, typ: 'fee-quote+jwt' });
    expect(set.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(set.keys[0]).not.toHaveProperty('d');
    const { payload } = await jwtVerify(token, createLocalJWKSet(set), { algorithms: ['EdDSA'], typ: 'fee-quote+jwt', currentDate: new Date(t.clock.now) });
    expect(payload).toMatchObject({
      iss: 'http://localhost',
      sub: t.approved.merchantId,
      method: 'qris',
      amount: 150000,
      currency: 'IDR',
      fee: body.fee,
      additionalFee: body.additionalFee,
      feeTax: body.feeTax,
      customerFee: body.customerFee,
      merchantFee: body.merchantFee,
      totalAmount: body.totalAmount,
      getBalance: body.getBalance,
      chargeFeeToCustomer: true,
    });
    expect(payload.jti).toMatch(/^qt_[A-Za-z0-9_-]{20,}$/);
    expect(typeof payload.ruleId).toBe('string');
    expect(payload.exp! - payload.iat!).toBe(900);
  });

  it('GraphQL: FeeCalculation.quote on calculateFee and on PaymentChannel.fee; a repeated request gets a new quote (never a replayed answer)', async () => {
    const q = 'query($i: CalculateFeeInput!) { calculateFee(input: $i) { totalAmount quote { token id expiresAt } } }';
    const first = (await (await gql(t, q, { i: BODY() })).json()) as { data: { calculateFee: { totalAmount: number; quote: { token: string; id: string; expiresAt: string } } } };
    const second = (await (await gql(t, q, { i: BODY() })).json()) as typeof first;
    const third = (await (await gql(t, q, { i: BODY() })).json()) as typeof first;
    expect(first.data.calculateFee.quote.id).toMatch(/^qt_/);
    expect(new Set([first, second, third].map((r) => r.data.calculateFee.quote.id)).size).toBe(3);
    const verified = await verifyRest(first.data.calculateFee.quote.token);
    expect(verified.body).toMatchObject({ quoteId: first.data.calculateFee.quote.id, expiresAt: first.data.calculateFee.quote.expiresAt, totalAmount: first.data.calculateFee.totalAmount });

    const list = (await (await gql(t, '{ paymentChannels { code fee(amount: 150000) { totalAmount quote { token } } } }')).json()) as {
      data: { paymentChannels: { code: string; fee: { totalAmount: number; quote: { token: string } } | null }[] };
    };
    const qris = list.data.paymentChannels.find((c) => c.code === 'qris')!;
    expect((await verifyRest(qris.fee!.quote.token)).body).toMatchObject({ method: 'qris', totalAmount: qris.fee!.totalAmount });
  });
});

describe('verifying (contract §11)', () => {
  it('REST and GraphQL return the quoted calculation with quoteId and expiresAt', async () => {
    const { body } = await calculate({ quote: true });
    const rest = await verifyRest(body.quote as string);
    expect(rest.status).toBe(200);
    const { quote: _q, quoteExpiresAt, ...calculation } = body;
    expect(rest.body).toMatchObject({ ...calculation, method: 'qris', expiresAt: quoteExpiresAt, merchantId: t.approved.merchantId });
    expect(rest.body.quoteId).toMatch(/^qt_/);
    const g = (await (await gql(t, 'query($q: String!) { verifyQuote(token: $q) { quoteId expiresAt totalAmount fee method } }', { q: body.quote })).json()) as {
      data: { verifyQuote: Record<string, unknown> };
    };
    expect(g.data.verifyQuote).toEqual({ quoteId: rest.body.quoteId, expiresAt: quoteExpiresAt, totalAmount: body.totalAmount, fee: body.fee, method: 'qris' });
  });

  it('a tampered, malformed, foreign-key or another merchant’s quote is 422 QUOTE_INVALID on both surfaces', async () => {
    const token = (await calculate({ quote: true })).body.quote as string;
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const cheaper = Buffer.from(JSON.stringify({ ...claims, totalAmount: 150000 })).toString('base64url');
    const flipped = `${s.slice(0, -2)}${s.at(-2) === 'A' ? 'B' : 'A'}${s.at(-1)}`;
    for (const bad of [`${h}.${cheaper}.${s}`, `${h}.${p}.${flipped}`, 'not-a-token', `${h}.${p}`]) {
      const r = await verifyRest(bad);
      expect(r.status, bad).toBe(422);
      expect(r.body).toMatchObject({ code: 'QUOTE_INVALID', status: 422 });
    }
    // Another merchant's quote: genuine, but not the caller's.
    const theirs = (await calculate({ quote: true }, t.approved)).body.quote as string;
    expect((await verifyRest(theirs, t.pending)).body).toMatchObject({ code: 'QUOTE_INVALID' });
    const g = (await (await gql(t, 'query($q: String!) { verifyQuote(token: $q) { quoteId } }', { q: theirs }, t.pending)).json()) as { errors: { extensions: { code: string } }[] };
    expect(g.errors[0]!.extensions.code).toBe('QUOTE_INVALID');
    // Past the stated bound (4,096 characters) a token is refused before it is parsed.
    const long = await verifyRest(`${h}.${p}.${s}${'A'.repeat(4096)}`);
    expect(long.body).toMatchObject({ code: 'QUOTE_INVALID', detail: 'A quote is at most 4096 characters.' });
    // A body without a quote is the usual INVALID_REQUEST.
    const res = await t.signedFetch('/v1/payments/quotes/verify', { method: 'POST', body: '{}' });
    expect(res.status).toBe(400);
  });

  it('a quote past its expiry is 422 QUOTE_EXPIRED (and someone else’s expired quote is still QUOTE_INVALID)', async () => {
    const token = (await calculate({ quote: true })).body.quote as string;
    const start = t.clock.now;
    try {
      t.clock.now = start + 901_000;
      const r = await verifyRest(token);
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 'QUOTE_EXPIRED' });
      expect((await verifyRest(token, t.pending)).body).toMatchObject({ code: 'QUOTE_INVALID' });
      const g = (await (await gql(t, 'query($q: String!) { verifyQuote(token: $q) { quoteId } }', { q: token })).json()) as { errors: { extensions: { code: string } }[] };
      expect(g.errors[0]!.extensions.code).toBe('QUOTE_EXPIRED');
    } finally {
      t.clock.now = start;
    }
  });

  it('a quote is honoured after `fee set` changed the rate', async () => {
    const before = (await calculate({ quote: true })).body;
    await admin.setFee({ channel: 'qris', merchantId: t.approved.merchantId, bands: '*:2:0' });
    await t.sync();
    const after = (await calculate()).body;
    expect(after.fee).not.toBe(before.fee);
    const verified = await verifyRest(before.quote as string);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ fee: before.fee, totalAmount: before.totalAmount });
  });
});

describe('rotation (contract §11)', () => {
  it('the new key signs, both keys are published, old quotes still verify; the old key leaves the JWKS once its quotes expired', async () => {
    const old = (await calculate({ quote: true })).body.quote as string;
    const oldKid = decodeProtectedHeader(old).kid;
    const rotated = await admin.rotateQuoteKey();
    expect(rotated.retired?.id).toBe(oldKid);
    await t.sync();
    const fresh = (await calculate({ quote: true })).body.quote as string;
    expect(decodeProtectedHeader(fresh).kid).toBe(rotated.signing.id);
    const { set } = await jwks();
    expect(set.keys.map((k) => k.kid)).toEqual([rotated.signing.id, oldKid]);
    for (const token of [old, fresh]) {
      expect((await verifyRest(token)).status).toBe(200);
      await jwtVerify(token, createLocalJWKSet(set), { currentDate: new Date(t.clock.now) });
    }
    const listed = await admin.listQuoteKeys();
    expect(listed.filter((k) => k.state === 'signing').map((k) => k.id)).toEqual([rotated.signing.id]);
    const audit = await admin.listAudit({ entity: rotated.signing.id });
    expect(audit[0]).toMatchObject({ action: 'quote-key.rotate', actor: 'fee-quotes-test' });
    expect(JSON.stringify(audit)).not.toMatch(/ciphertext|"d"/i);

    // Past TTL + margin after the retirement, the old key is no longer published (its quotes all expired).
    const start = t.clock.now;
    try {
      t.clock.now = Date.parse(rotated.retired!.retiredAt!) + (900 + 61) * 1000;
      expect((await jwks()).set.keys.map((k) => k.kid)).toEqual([rotated.signing.id]);
    } finally {
      t.clock.now = start;
    }
  });
});

describe('a checkout session’s quote (contract §9, §11)', () => {
  it('never outlives the session', async () => {
    const created = await t.signedFetch('/v1/checkout/sessions', {
      method: 'POST',
      body: JSON.stringify({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR', expiresInSeconds: 120 }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { clientSecret: string; expiresAt: string };
    const res = await t.fetch('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${session.clientSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ paymentChannels { code fee(amount: 150000) { quote { token expiresAt } } } }' }),
    });
    const json = (await res.json()) as { data: { paymentChannels: { fee: { quote: { token: string; expiresAt: string } } | null }[] } };
    const quoted = json.data.paymentChannels.find((c) => c.fee)!.fee!.quote;
    expect(Date.parse(quoted.expiresAt)).toBeLessThanOrEqual(Date.parse(session.expiresAt));
    expect(Date.parse(quoted.expiresAt)).toBeGreaterThan(t.clock.now + 100_000);
    expect((await verifyRest(quoted.token)).status).toBe(200);
  });
});

describe('QUOTE_TTL_SECONDS', () => {
  it('defaults to 900 and is refused outside 60–86400 at boot', () => {
    expect(loadConfig({}).quoteTtlSeconds).toBe(900);
    expect(loadConfig({ QUOTE_TTL_SECONDS: '60' }).quoteTtlSeconds).toBe(60);
    for (const bad of ['59', '86401', 'soon', '1.5']) {
      expect(() => loadConfig({ QUOTE_TTL_SECONDS: bad }), bad).toThrow(ConfigError);
      try {
        loadConfig({ QUOTE_TTL_SECONDS: bad });
      } catch (err) {
        expect((err as ConfigError).problems.join('\n')).toMatch(/QUOTE_TTL_SECONDS/);
      }
    }
  });
});
