/**
 * Checkout sessions over HTTP (contract §9): creation, Bearer use on the list, GraphQL and the stream,
 * scope, expiry, revocation, origins and CORS, limits. Runs in-process, and on Postgres through a real
 * server with TEST_DB=postgres TEST_TRANSPORT=node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, UNREACHABLE_RATE_LIMIT, type TestApp } from '../helpers/app.js';
import { CHANNELS_SUBSCRIPTION, openEventStream } from '../helpers/sse.js';
import { AdminService } from '../../src/modules/admin/service.js';

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
  const res = await t.signedFetch('/v1/checkout/sessions', {
    method: 'POST',
    body: JSON.stringify({ merchantId: as.merchantId, amount: 150000, currency: 'IDR', methods: ['qris', 'OVO'], ...body }),
    as,
  });
  // Creation is idempotent by the signed request: the next call signs another timestamp, so it is another request.
  t.clock.now += 1000;
  return res;
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
    [{ currency: 'USD' }, 'currency'],
    [{ methods: ['nope'] }, 'methods'],
    [{ methods: ['qris', 'nope'] }, 'methods'],
    [{ methods: 'qris' }, 'methods'],
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
    expect(mutation.status).toBe(403);
    expect(((await mutation.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('SESSION_SCOPE');
  });

  it('the GraphQL mutation creates a session too: each signed request its own, a replay the same one', async () => {
    const q = 'mutation { createCheckoutSession(input: { amount: 150000, currency: "IDR", methods: ["qris"] }) { id clientSecret expiresAt methods } }';
    type Answer = { data: { createCheckoutSession: { id: string; clientSecret: string; expiresAt: string; methods: string[] } } };
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const body = (await (await gql(t, q)).json()) as Answer;
      expect(body.data.createCheckoutSession.methods).toEqual(['qris']);
      ids.add(body.data.createCheckoutSession.id);
      t.clock.now += 1000;
    }
    expect(ids.size).toBe(3);
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const replay = () => t.signedFetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: q }), timestamp });
    const first = ((await (await replay()).json()) as Answer).data.createCheckoutSession;
    const second = ((await (await replay()).json()) as Answer).data.createCheckoutSession;
    expect(second).toEqual(first);
    expect(ids.has(first.id)).toBe(false);
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
  ])('%s → 403 SESSION_SCOPE', async (query) => {
    const s = await session();
    const res = await sessionGql(s.clientSecret, query);
    expect(res.status).toBe(403);
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

  it.each([['garbage'], [''], ['cs_00000000000000000000000000000000_secret_AAAA'], ['x'.repeat(5000)], [`a${' '.repeat(8000)}b`]])('malformed %s → 401 SESSION_INVALID', async (secret) => {
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

describe('origins and CORS', () => {
  const allowed = 'http://localhost:4100';
  const foreign = 'https://evil.example';

  it('an allowed origin gets the CORS headers; SVC1 never does', async () => {
    const s = await session();
    const res = await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret, { Origin: allowed }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    const gqlRes = await sessionGql(s.clientSecret, '{ paymentChannels { code } }', undefined, { Origin: 'http://127.0.0.1:4100' });
    expect(gqlRes.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4100');

    const signed = await t.signedFetch('/v1/payments/channel', { headers: { Origin: allowed } });
    expect(signed.status).toBe(200);
    expect(signed.headers.get('access-control-allow-origin')).toBeNull();
    const signedGql = await t.signedFetch('/graphql', { method: 'POST', body: '{"query":"{ paymentChannels { code } }"}', headers: { Origin: allowed } });
    expect(signedGql.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('another origin → 403 ORIGIN_NOT_ALLOWED without CORS headers; no Origin (an app) is served', async () => {
    const s = await session();
    for (const origin of [foreign, 'http://localhost:4101', 'null']) {
      const res = await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret, { Origin: origin }) });
      expect(res.status).toBe(403);
      expect(await problem(res)).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    const gqlRes = await sessionGql(s.clientSecret, '{ paymentChannels { code } }', undefined, { Origin: foreign });
    expect(gqlRes.status).toBe(403);
    expect(((await gqlRes.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('ORIGIN_NOT_ALLOWED');
    expect((await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret) })).status).toBe(200);
  });

  it("origins are per merchant: another merchant's allowed origin is refused", async () => {
    await t.execute(`insert into merchant_origins (merchant_id, origin) values ('${t.pending.merchantId}', 'https://pending.example')`);
    const s = await session();
    const res = await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret, { Origin: 'https://pending.example' }) });
    expect(res.status).toBe(403);
    await t.execute(`delete from merchant_origins where merchant_id = '${t.pending.merchantId}'`);
  });

  it('an expired session can still be told apart by an allowed page (CORS on the 401); a forged one cannot', async () => {
    const s = await session({ expiresInSeconds: 60 });
    const saved = t.clock.now;
    try {
      t.clock.now = Date.parse(s.expiresAt) + 1000;
      const res = await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret, { Origin: allowed }) });
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
    } finally {
      t.clock.now = saved;
    }
    // The second-to-last character changed, always to another one: all of its bits are the token's (a fixed
    // replacement such as "AA" is the token itself about once in a thousand sessions).
    const secret = s.clientSecret;
    const forged = await t.fetch('/v1/payments/channel', { headers: bearer(`${secret.slice(0, -2)}${secret.at(-2) === 'A' ? 'B' : 'A'}${secret.at(-1)}`, { Origin: allowed }) });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('preflight: 204 with methods, headers and max-age; Access-Control-Allow-Origin only for an origin a merchant allows', async () => {
    for (const path of ['/graphql', '/v1/payments/channel']) {
      const res = await t.fetch(path, { method: 'OPTIONS', headers: { Origin: allowed, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' } });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
      expect(res.headers.get('access-control-allow-methods')).toContain('GET');
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      // The browser refuses a page of this origin: no Access-Control-Allow-Origin.
      const refused = await t.fetch(path, { method: 'OPTIONS', headers: { Origin: foreign, 'Access-Control-Request-Method': 'POST' } });
      expect(refused.status).toBe(204);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
    expect((await t.fetch('/graphql', { method: 'OPTIONS', headers: { Origin: allowed } })).headers.get('access-control-allow-methods')).toBe('GET, POST');
  });

  it('an origin added or removed by an operator takes effect without a restart', async () => {
    const s = await session();
    const shop = 'https://shop.example';
    expect((await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret, { Origin: shop }) })).status).toBe(403);
    await t.execute(`insert into merchant_origins (merchant_id, origin) values ('${t.approved.merchantId}', '${shop}')`);
    expect((await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret, { Origin: shop }) })).status).toBe(200);
    await t.execute(`delete from merchant_origins where origin = '${shop}'`);
    expect((await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret, { Origin: shop }) })).status).toBe(403);
  });
});

describe('revocation, limits and logs', () => {
  it("revoking the creating key ends its sessions (401 SESSION_INVALID) and their open streams; other keys' sessions live on", async () => {
    const admin = new AdminService(t.store.admin, t.data.secretBox);
    const key = await admin.createKey(t.approved.merchantId);
    await t.sync();
    const as = { ...t.approved, apiKey: key.apiKey, apiSecret: key.apiSecret };
    const doomed = (await (await createSession({}, as)).json()) as Created;
    const other = await session();
    expect((await t.fetch('/v1/payments/channel', { headers: bearer(doomed.clientSecret) })).status).toBe(200);
    const stream = await openEventStream(CHANNELS_SUBSCRIPTION, { as, fetch: t.streamFetch, headers: bearer(doomed.clientSecret, { Origin: 'http://localhost:4100' }) });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('access-control-allow-origin')).toBe('http://localhost:4100');
    await stream.waitFor((s) => s.results().length >= 1, 2000, 'the first event');
    expect(stream.results()[0].data.paymentChannelsChanged.map((c: { code: string }) => c.code).sort()).toEqual(['ovo', 'qris']);

    await admin.revokeKey(key.apiKey);
    await stream.waitFor((s) => s.isEnded(), 1000, 'the stream to end');
    expect(stream.results().at(-1).errors[0].extensions.code).toBe('SESSION_INVALID');
    await t.sync();
    const res = await t.fetch('/v1/payments/channel', { headers: bearer(doomed.clientSecret) });
    expect(res.status).toBe(401);
    expect(await problem(res)).toMatchObject({ code: 'SESSION_INVALID' });
    expect((await t.fetch('/v1/payments/channel', { headers: bearer(other.clientSecret) })).status).toBe(200);
  });

  it('a stream ends when its session expires (last event SESSION_EXPIRED)', async () => {
    const saved = t.clock.now;
    let s: Created;
    try {
      // Created 58.5 s "ago" (expiry is in whole seconds): it expires 0.5 to 1.5 s from now.
      t.clock.now = Date.now() - 58_500;
      s = await session({ expiresInSeconds: 60 });
    } finally {
      t.clock.now = saved;
    }
    t.clock.now = Date.now();
    const stream = await openEventStream(CHANNELS_SUBSCRIPTION, { as: t.approved, fetch: t.streamFetch, headers: bearer(s.clientSecret) });
    expect(stream.status).toBe(200);
    await stream.waitFor((r) => r.isEnded(), 3000, 'the stream to end at expiry');
    expect(stream.results().at(-1).errors[0].extensions.code).toBe('SESSION_EXPIRED');
  });

  it('at most 2 open event streams per session (the third → 429), its own budget, not the key’s', async () => {
    const s = await session();
    const open = () => openEventStream(CHANNELS_SUBSCRIPTION, { as: t.approved, fetch: t.streamFetch, headers: bearer(s.clientSecret) });
    const held = [await open(), await open()];
    for (const h of held) expect(h.status).toBe(200);
    const third = await open();
    expect(third.status).toBe(429);
    await third.close();
    const another = await session();
    const fine = await openEventStream(CHANNELS_SUBSCRIPTION, { as: t.approved, fetch: t.streamFetch, headers: bearer(another.clientSecret) });
    expect(fine.status).toBe(200);
    for (const h of [...held, fine]) await h.close();
  });

  // A missing Accept, `*/*` (fetch's default) and lists open streams too; each takes one of the 2 slots.
  it.each([null, '*/*', 'application/json, text/event-stream', 'text/event-stream', 'application/json'].flatMap((accept) => (['POST', 'GET'] as const).map((method) => ({ accept, method }))))(
    'a session stream takes one of its 2 slots whatever it accepts: Accept $accept, $method',
    async ({ accept, method }) => {
      const s = await session();
      const open = () => openEventStream('subscription { paymentChannelsChanged { code } }', { as: t.approved, fetch: t.streamFetch, headers: bearer(s.clientSecret), accept, method });
      const held = [await open(), await open()];
      expect(held.map((h) => h.status)).toEqual([200, 200]);
      expect(held[0]!.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const third = await open();
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      await third.close();
      for (const h of held) await h.close();
    },
  );

  it('at most 40 requests at once per session (20/s sustained), then 429 RATE_LIMITED; another session is unaffected', async () => {
    const s = await session();
    const statuses: number[] = [];
    for (let i = 0; i < 41; i++) statuses.push((await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret) })).status);
    expect(statuses.slice(0, 40).every((x) => x === 200)).toBe(true);
    expect(statuses[40]).toBe(429);
    const other = await session();
    expect((await t.fetch('/v1/payments/channel', { headers: bearer(other.clientSecret) })).status).toBe(200);
  });

  it('never logs a client secret: the request line names the session id only', async () => {
    const logLines: string[] = [];
    const logged = await createTestApp({ logLines });
    try {
      const res = await logged.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ amount: 150000, currency: 'IDR' }) });
      const s = (await res.json()) as Created;
      await logged.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret) });
      await logged.fetch('/v1/payments/calculate', { method: 'POST', headers: bearer(s.clientSecret, { 'content-type': 'application/json' }), body: '{}' });
      await logged.fetch('/v1/payments/channel', { headers: bearer(`${s.clientSecret}x`) });
      const text = logLines.join('\n');
      expect(text).not.toContain(s.clientSecret.slice(s.id.length));
      expect(text).not.toContain('_secret_');
      // The list and the refused calculate; the forged secret names no session.
      expect(logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.sessionId === s.id)).toHaveLength(2);
    } finally {
      await logged.close();
    }
  });

  it('invalid and expired secrets spend the failed-authentication address budget', async () => {
    const gated = await createTestApp({ app: { rateLimit: { ...UNREACHABLE_RATE_LIMIT, authFailuresPerMinute: 3 }, clientAddress: () => '203.0.113.7' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await gated.fetch('/v1/payments/channel', { headers: { Authorization: 'Bearer cs_nope' } })).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await gated.close();
    }
  });
});

describe('HTTP caching with a session', () => {
  it('a revalidated list (304) from an allowed origin keeps its CORS headers', async () => {
    const s = await session();
    const headers = bearer(s.clientSecret, { Origin: 'http://localhost:4100' });
    const first = await t.fetch('/v1/payments/channel', { headers });
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await t.fetch('/v1/payments/channel', { headers: { ...headers, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('access-control-allow-origin')).toBe('http://localhost:4100');
  });
});

describe('a replayed creation mints nothing (contract §9, amended 2026-11-25)', () => {
  const body = (amount = 150000) => JSON.stringify({ merchantId: t.approved.merchantId, amount, currency: 'IDR', methods: ['qris', 'OVO'] });
  const create = (timestamp: string, amount?: number) => t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: body(amount), timestamp });

  it('the same signed request inside the window returns the same session: id, client secret and expiry', async () => {
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const first = await create(timestamp);
    expect(first.status).toBe(201);
    const created = (await first.json()) as Created;
    t.clock.now += 120_000; // still inside the ±300 s window
    for (let i = 0; i < 3; i++) {
      const replay = await create(timestamp);
      expect(replay.status).toBe(201);
      expect(await replay.json()).toEqual(created);
    }
    // The lifetime counts from the signed timestamp: a replay never extends it.
    expect(Date.parse(created.expiresAt)).toBe((Number(timestamp) + 900) * 1000);
    t.clock.now += 300_000; // past the window: the replay is refused, nothing is created
    const late = await create(timestamp);
    expect(late.status).toBe(401);
    expect((await problem(late)).code).toBe('TIMESTAMP_EXPIRED');
  });

  it('two different signed requests get different sessions (another body, another timestamp)', async () => {
    const timestamp = Math.floor(t.clock.now / 1000);
    const a = (await (await create(String(timestamp))).json()) as Created;
    const b = (await (await create(String(timestamp), 150001)).json()) as Created;
    const c = (await (await create(String(timestamp - 1))).json()) as Created;
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect(new Set([a.clientSecret, b.clientSecret, c.clientSecret]).size).toBe(3);
  });

  it('a merchant tells two identical carts apart in the same second with any member of its own in the body (signed, otherwise ignored)', async () => {
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const withReference = (reference: string) =>
      t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR', reference }), timestamp });
    const [a, b] = [await withReference('order-1'), await withReference('order-2')];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(((await a.json()) as Created).id).not.toBe(((await b.json()) as Created).id);
  });

  it('a replay creates no second budget: the replayed secret spends the same session budget', async () => {
    const timestamp = String(Math.floor(t.clock.now / 1000));
    const s = (await (await create(timestamp, 150002)).json()) as Created;
    for (let i = 0; i < 40; i++) expect((await t.fetch('/v1/payments/channel', { headers: bearer(s.clientSecret) })).status).toBe(200);
    const again = (await (await create(timestamp, 150002)).json()) as Created;
    expect(again.clientSecret).toBe(s.clientSecret);
    const refused = await t.fetch('/v1/payments/channel', { headers: bearer(again.clientSecret) });
    expect(refused.status).toBe(429);
    expect((await problem(refused)).code).toBe('RATE_LIMITED');
  });

  it('a creation whose signed timestamp plus lifetime is already past is refused, not issued expired', async () => {
    const timestamp = String(Math.floor(t.clock.now / 1000) - 200);
    const res = await t.signedFetch('/v1/checkout/sessions', {
      method: 'POST',
      body: JSON.stringify({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR', expiresInSeconds: 60 }),
      timestamp,
    });
    expect(res.status).toBe(400);
    expect(await problem(res)).toMatchObject({ code: 'INVALID_REQUEST', field: 'expiresInSeconds' });
  });
});
