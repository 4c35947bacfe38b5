/**
 * Checkout sessions over HTTP (contract §9): creation, Bearer use on the list, GraphQL and the stream,
 * scope, expiry, revocation, origins and CORS, limits. Runs in-process, and on Postgres through a real
 * server with TEST_DB=postgres TEST_TRANSPORT=node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Created {
  id: string;
  clientSecret: string;
  expiresAt: string;
  amount: number;
  currency: string;
  methods: string[];
}

async function createSession(body: Record<string, unknown> = {}, as = t.approved): Promise<Response> {
  return t.signedFetch('/v1/checkout/sessions', {
    method: 'POST',
    body: JSON.stringify({ merchantId: as.merchantId, amount: 150000, currency: 'IDR', methods: ['qris', 'OVO'], ...body }),
    as,
  });
}

async function session(body: Record<string, unknown> = {}): Promise<Created> {
  const res = await createSession(body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Created;
}

function bearer(secret: string, headers: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${secret}`, ...headers };
}

function sessionGql(secret: string, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return t.fetch('/graphql', { method: 'POST', headers: bearer(secret, { 'content-type': 'application/json', ...headers }), body: JSON.stringify({ query, variables }) });
}

async function problem(res: Response): Promise<{ code: string; field?: string; status: number }> {
  return (await res.json()) as { code: string; field?: string; status: number };
}

describe('creating a session (POST /v1/checkout/sessions)', () => {
  it('answers 201 with the contract fields', async () => {
    const before = t.clock.now;
    const s = await session({ expiresInSeconds: 600 });
    expect(s.id).toMatch(/^cs_[0-9a-f]{32}$/);
    expect(s.clientSecret.startsWith(`${s.id}_secret_`)).toBe(true);
    expect(s).toMatchObject({ amount: 150000, currency: 'IDR', methods: ['qris', 'ovo'] });
    expect(Date.parse(s.expiresAt)).toBe((Math.floor(before / 1000) + 600) * 1000);
  });
});

describe('validation of the create call', () => {
  it.each([
    [{ amount: 150000.5 }, 'amount'],
    [{ amount: 0 }, 'amount'],
    [{ amount: '150000' }, 'amount'],
    [{ currency: 'XXX' }, 'currency'],
    [{ currency: 'ID' }, 'currency'],
    [{ methods: ['nope'] }, 'methods.0'],
    [{ methods: ['qris', 'nope'] }, 'methods.1'],
    [{ methods: [] }, 'methods'],
    [{ expiresInSeconds: 59 }, 'expiresInSeconds'],
    [{ expiresInSeconds: 86401 }, 'expiresInSeconds'],
    [{ expiresInSeconds: 90.5 }, 'expiresInSeconds'],
  ])('%j → 400 INVALID_REQUEST naming %s', async (body, field) => {
    const res = await createSession(body);
    expect(res.status).toBe(400);
    expect(await problem(res)).toMatchObject({ code: 'INVALID_REQUEST', field });
  });

  it('accepts the lifetime bounds and defaults to 900 s and every channel', async () => {
    for (const expiresInSeconds of [60, 86400]) expect((await createSession({ expiresInSeconds })).status).toBe(201);
    const res = await t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ amount: 150000, currency: 'idr' }) });
    expect(res.status).toBe(201);
    const s = (await res.json()) as Created;
    expect(Date.parse(s.expiresAt)).toBe((Math.floor(t.clock.now / 1000) + 900) * 1000);
    expect(s.currency).toBe('IDR');
    expect(s.methods).toEqual(t.store.catalog.listForMerchant(t.approved.merchantId).map((c) => c.code));
  });

  it("another merchant's id → 403 MERCHANT_MISMATCH", async () => {
    const res = await createSession({ merchantId: t.pending.merchantId });
    expect(res.status).toBe(403);
    expect(await problem(res)).toMatchObject({ code: 'MERCHANT_MISMATCH' });
  });

  it('unsigned → 401 AUTH_HEADER_MISSING; a session cannot create sessions (403 SESSION_SCOPE)', async () => {
    const unsigned = await t.fetch('/v1/checkout/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":1,"currency":"IDR"}' });
    expect(unsigned.status).toBe(401);
    const s = await session();
    const res = await t.fetch('/v1/checkout/sessions', { method: 'POST', headers: bearer(s.clientSecret, { 'content-type': 'application/json' }), body: '{"amount":150000,"currency":"IDR"}' });
    expect(res.status).toBe(403);
    expect(await problem(res)).toMatchObject({ code: 'SESSION_SCOPE' });
    const mutation = await sessionGql(s.clientSecret, 'mutation { createCheckoutSession(input: { amount: 1000, currency: "IDR" }) { id } }');
    expect(((await mutation.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('SESSION_SCOPE');
  });

  it('the GraphQL mutation creates a session too, and is never answered twice the same', async () => {
    const q = 'mutation { createCheckoutSession(input: { amount: 150000, currency: "IDR", methods: ["qris"] }) { id clientSecret methods } }';
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const body = (await (await gql(t, q)).json()) as { data: { createCheckoutSession: { id: string; methods: string[] } } };
      expect(body.data.createCheckoutSession.methods).toEqual(['qris']);
      ids.add(body.data.createCheckoutSession.id);
    }
    expect(ids.size).toBe(3);
  });
});

describe('using a session', () => {
  it('lists only its methods on REST', async () => {
    const s = await session();
    const res = await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { code: string }[] };
    expect(body.data.map((c) => c.code).sort()).toEqual(['ovo', 'qris']);
  });
});

describe('session scope', () => {
  it('GraphQL lists its methods judged against its amount and currency, and shows the session', async () => {
    const s = await session({ amount: 500 });
    const res = await sessionGql(s.clientSecret, '{ checkoutSession { id amount currency methods expiresAt } paymentChannels { code availability { selectable reasons } } }');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { checkoutSession: unknown; paymentChannels: { code: string; availability: { reasons: string[] } }[] } };
    expect(body.data.checkoutSession).toEqual({ id: s.id, amount: 500, currency: 'IDR', methods: ['qris', 'ovo'], expiresAt: s.expiresAt });
    expect(body.data.paymentChannels.map((c) => c.code).sort()).toEqual(['ovo', 'qris']);
    // QRIS's minimum is 1,000 IDR in the demo data: judged against the session's 500.
    expect(body.data.paymentChannels.find((c) => c.code === 'qris')!.availability.reasons).toContain('AMOUNT_OUT_OF_RANGE');
  });

  it('an SVC1 caller has no checkoutSession', async () => {
    const body = (await (await gql(t, '{ checkoutSession { id } }')).json()) as { data: { checkoutSession: null } };
    expect(body.data.checkoutSession).toBeNull();
  });

  it.each([
    ['{ paymentChannels(filter: { amount: 1000 }) { code } }'],
    ['{ paymentChannels(filter: { currency: "USD" }) { code } }'],
    ['{ calculateFee(input: { amount: 1000, currency: "IDR", method: "qris" }) { fee } }'],
    ['{ calculateFee(input: { amount: 150000, currency: "USD", method: "qris" }) { fee } }'],
    ['{ calculateFee(input: { amount: 150000, currency: "IDR", method: "bca_va" }) { fee } }'],
    ['{ paymentChannels { code fee(amount: 1000) { fee } } }'],
  ])('%s → SESSION_SCOPE', async (query) => {
    const s = await session();
    const res = await sessionGql(s.clientSecret, query);
    const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('SESSION_SCOPE');
  });

  it('prices its own amount and currency', async () => {
    const s = await session();
    const res = await sessionGql(s.clientSecret, '{ calculateFee(input: { amount: 150000, currency: "IDR", method: "QRIS" }) { fee totalAmount } paymentChannels(filter: { amount: 150000, currency: "idr" }) { code fee(amount: 150000) { fee } } }');
    const body = (await res.json()) as { data: { calculateFee: { fee: number; totalAmount: number }; paymentChannels: { code: string; fee: { fee: number } | null }[] } };
    expect(body.data.calculateFee).toEqual({ fee: 1050, totalAmount: 151050 });
    expect(body.data.paymentChannels.find((c) => c.code === 'qris')!.fee).toEqual({ fee: 1050 });
  });

  it('other REST routes → 403 SESSION_SCOPE', async () => {
    const s = await session();
    const res = await t.fetch('/v1/payments/calculate', {
      method: 'POST',
      headers: bearer(s.clientSecret, { 'content-type': 'application/json' }),
      body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId }),
    });
    expect(res.status).toBe(403);
    expect(await problem(res)).toMatchObject({ code: 'SESSION_SCOPE' });
  });
});

describe('lifetime', () => {
  it('after expiresAt → 401 SESSION_EXPIRED on REST and GraphQL', async () => {
    const s = await session({ expiresInSeconds: 60 });
    const saved = t.clock.now;
    try {
      t.clock.now = Date.parse(s.expiresAt);
      const rest = await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret) });
      expect(rest.status).toBe(401);
      expect(await problem(rest)).toMatchObject({ code: 'SESSION_EXPIRED' });
      const res = await sessionGql(s.clientSecret, '{ paymentChannels { code } }');
      expect(res.status).toBe(401);
      expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('SESSION_EXPIRED');
      t.clock.now = Date.parse(s.expiresAt) - 1;
      expect((await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret) })).status).toBe(200);
    } finally {
      t.clock.now = saved;
    }
  });

  it.each([['garbage'], [''], ['cs_00000000000000000000000000000000_secret_AAAA'], ['x'.repeat(5000)]])('malformed %s → 401 SESSION_INVALID', async (secret) => {
    const res = await t.fetch('/v1/payments/channel', { headers: { Authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(401);
    expect(await problem(res)).toMatchObject({ code: 'SESSION_INVALID' });
  });

  it('a secret of another master key (another deployment) → 401 SESSION_INVALID', async () => {
    const other = await createTestApp();
    try {
      const res = await other.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ amount: 150000, currency: 'IDR' }), as: other.approved });
      const s = (await res.json()) as Created;
      const here = await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret) });
      expect(here.status).toBe(401);
      expect(await problem(here)).toMatchObject({ code: 'SESSION_INVALID' });
    } finally {
      await other.close();
    }
  });
});
