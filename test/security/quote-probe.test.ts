/**
 * The quote findings of a hostile probe (contract §5, §9, §11), each with the attack that worked:
 * 1. a live event's quote was shared between two shoppers' pages and outlived the shorter session: live events
 *    now carry no quote (README "Decisions"), a query's quote is the caller's own, bounded by its session;
 * 2. quote work was free in the session cost model: a signature and a verification now cost work units, and a
 *    session may not verify quotes (GraphQL agrees with REST: 403 SESSION_SCOPE);
 * 3. a retired key was unpublished by the QUOTE_TTL_SECONDS of whichever server answered, not by the quotes it
 *    signed: each key records the longest TTL it signed with;
 * 4. one quote had several texts (padding, spare bits): verification takes the canonical base64url text only,
 *    on the gateway and in the SDK;
 * 5. QUOTE_INVALID details carried the JOSE library's codes, and REST verify ignored another merchant's
 *    `merchantId`: plain words, and 403 MERCHANT_MISMATCH on both surfaces.
 */
import { parse } from 'graphql';
import { decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { operationCost, LIST_SIGNING_UNITS } from '../../src/graphql/operation-cost.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { AdminService } from '../../src/modules/admin/service.js';
import { createQuoteVerifier } from '../../src/client/quotes.js';
import { GatewayError } from '../../src/client/errors.js';
import { createTestApp, gql, UNREACHABLE_RATE_LIMIT, type TestApp } from '../helpers/app.js';
import { openEventStream, type EventStreamReader } from '../helpers/sse.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';

const apps: TestApp[] = [];
const streams: EventStreamReader[] = [];
afterEach(async () => {
  await Promise.all(streams.splice(0).map((s) => s.close()));
  // Replicas (sharing an owner's database) close before their owner.
  for (const app of apps.splice(0).reverse()) await app.close();
  vi.useRealTimers();
});

async function app(options: Parameters<typeof createTestApp>[0] = {}): Promise<TestApp> {
  const created = await createTestApp(options);
  apps.push(created);
  return created;
}

let bodies = 0;
async function newSession(t: TestApp, body: Record<string, unknown> = {}, as: DemoMerchantCredentials = t.approved): Promise<{ clientSecret: string; expiresAt: string }> {
  const res = await t.signedFetch('/v1/checkout/sessions', {
    method: 'POST',
    as,
    // `reference` (signed, otherwise ignored) keeps two creations in one second from being one session.
    body: JSON.stringify({ merchantId: as.merchantId, amount: 150000, currency: 'IDR', reference: `probe-${bodies++}`, ...body }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { clientSecret: string; expiresAt: string };
}

function sessionPost(t: TestApp, secret: string, query: string, variables?: Record<string, unknown>): Promise<Response> {
  return t.fetch('/graphql', { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
}

async function quoteOf(t: TestApp, as: DemoMerchantCredentials = t.approved): Promise<{ token: string; expiresAt: string }> {
  const res = await t.signedFetch('/v1/payments/calculate', { method: 'POST', as, body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: as.merchantId, quote: true }) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { quote: string; quoteExpiresAt: string };
  return { token: body.quote, expiresAt: body.quoteExpiresAt };
}

async function verifyRest(t: TestApp, body: Record<string, unknown>, as: DemoMerchantCredentials = t.approved): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await t.signedFetch('/v1/payments/quotes/verify', { method: 'POST', as, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface GqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: Record<string, unknown> }[];
}

async function verifyGql(t: TestApp, token: string, merchantId?: string): Promise<GqlBody> {
  const query = 'query($t: String!, $m: ID) { verifyQuote(token: $t, merchantId: $m) { quoteId totalAmount } }';
  return (await (await gql(t, query, { t: token, m: merchantId ?? null })).json()) as GqlBody;
}

describe('1. a quote belongs to one shopper and one session', () => {
  // `fee` too: OVO's fee is the merchant's (its total does not move), and an event only follows a change of what
  // the page selected.
  const QUOTE_SUBSCRIPTION = 'subscription { paymentChannelsChanged { code fee(amount: 150000) { fee totalAmount quote { id expiresAt } } } }';

  it('two sessions differing only in lifetime never receive the same quote id, nor one expiring after their session, before or after a change', async () => {
    const t = await app({ app: { liveUpdates: { heartbeatMs: 1000 } } });
    const admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'quote-probe', now: () => t.clock.now });
    const sessions = [await newSession(t, { expiresInSeconds: 3600 }), await newSession(t, { expiresInSeconds: 120 })];
    expect(Date.parse(sessions[1]!.expiresAt)).toBeLessThan(Date.parse(sessions[0]!.expiresAt));
    for (const s of sessions) {
      const stream = await openEventStream(QUOTE_SUBSCRIPTION, { as: t.approved, fetch: t.streamFetch, headers: { Authorization: `Bearer ${s.clientSecret}` } });
      expect(stream.status).toBe(200);
      streams.push(stream);
    }
    for (const s of streams) await s.waitFor((r) => r.results().length >= 1, 5000, 'the first event');
    await admin.updateChannel('ovo', { feePercentage: '1.6' });
    for (const s of streams) await s.waitFor((r) => r.results().length >= 2, 5000, 'the event of the change');

    const quotesOf = (stream: EventStreamReader) =>
      stream
        .results()
        .flatMap((r: { data: { paymentChannelsChanged: { code: string; fee: { totalAmount: number; quote: { id: string; expiresAt: string } | null } | null }[] } }) => r.data.paymentChannelsChanged)
        .map((c) => c.fee?.quote)
        .filter((q): q is { id: string; expiresAt: string } => q != null);
    const [long, short] = streams.map(quotesOf) as [{ id: string; expiresAt: string }[], { id: string; expiresAt: string }[]];
    const shortIds = new Set(short.map((q) => q.id));
    for (const q of long) expect(shortIds.has(q.id), `quote ${q.id} sent to both sessions`).toBe(false);
    streams.forEach((stream, i) => {
      for (const q of quotesOf(stream)) expect(Date.parse(q.expiresAt), `a quote of session ${i} outlives it`).toBeLessThanOrEqual(Date.parse(sessions[i]!.expiresAt));
    });
    // The decision (README "Decisions"): a live event carries no quote at all; the price is still there.
    for (const stream of streams) {
      const last = stream.results().at(-1) as { data: { paymentChannelsChanged: { code: string; fee: { fee: number; totalAmount: number; quote: unknown } | null }[] } };
      const ovo = last.data.paymentChannelsChanged.find((c) => c.code === 'ovo')!.fee!;
      expect(ovo).toMatchObject({ fee: 2400, totalAmount: 150000, quote: null });
    }
  });

  it('a page asks for its quote when the customer chooses: each session gets its own, never past its own end', async () => {
    const t = await app();
    const sessions = [await newSession(t, { expiresInSeconds: 3600 }), await newSession(t, { expiresInSeconds: 120 })];
    const q = '{ calculateFee(input: { amount: 150000, currency: "IDR", method: "OVO" }) { totalAmount quote { id token expiresAt } } }';
    const quotes = [];
    for (const s of sessions) {
      const body = (await (await sessionPost(t, s.clientSecret, q)).json()) as { data: { calculateFee: { quote: { id: string; token: string; expiresAt: string } } } };
      quotes.push(body.data.calculateFee.quote);
    }
    expect(quotes[0]!.id).not.toBe(quotes[1]!.id);
    expect(Date.parse(quotes[0]!.expiresAt)).toBe(Math.floor(t.clock.now / 1000) * 1000 + 900_000);
    expect(Date.parse(quotes[1]!.expiresAt)).toBeLessThanOrEqual(Date.parse(sessions[1]!.expiresAt));
    // Past the short session's end its quote is expired, on every surface.
    t.clock.now = Date.parse(sessions[1]!.expiresAt) + 1000;
    expect((await verifyRest(t, { quote: quotes[1]!.token })).body).toMatchObject({ code: 'QUOTE_EXPIRED' });
    expect((await verifyRest(t, { quote: quotes[0]!.token })).status).toBe(200);
  });
});

describe('2. quote work is costed', () => {
  const schema = buildSchema();
  const cost = (query: string) => operationCost(schema, parse(query));
  const SIGN = '{ calculateFee(input: { amount: 150000, currency: "IDR", method: "QRIS" }) { totalAmount quote { id } } }';

  it('a signature and a verification have their own work units (README "Limits")', () => {
    expect(cost('{ calculateFee(input: { amount: 150000, currency: "IDR", method: "QRIS" }) { totalAmount } }')).toBe(1);
    expect(cost(SIGN)).toBe(2);
    expect(cost('query($t: String!) { verifyQuote(token: $t) { quoteId } }')).toBe(1);
    const aliased = `query($t: String!) { ${Array.from({ length: 15 }, (_, i) => `v${i}: verifyQuote(token: $t) { quoteId }`).join(' ')} }`;
    expect(cost(aliased)).toBe(15);
    // A quote for every channel of a list: a signing pass over the list.
    expect(cost('{ paymentChannels { code fee(amount: 150000) { totalAmount quote { token } } } }')).toBe(1 + 2 + LIST_SIGNING_UNITS);
    // A live event signs nothing (its quote is null): the subscription costs what it cost.
    expect(cost('subscription { paymentChannelsChanged { code fee(amount: 150000) { totalAmount quote { id } } } }')).toBe(cost('subscription { paymentChannelsChanged { code fee(amount: 150000) { totalAmount } } }'));
  });

  it('a session past its budget with quote work alone: 20 quotes spend a burst of 40 units, the 21st is 429', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t = await app({ app: { rateLimit: { ...UNREACHABLE_RATE_LIMIT, sessionRatePerSecond: 20, sessionBurst: 40 } } });
    const { clientSecret } = await newSession(t);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await sessionPost(t, clientSecret, SIGN)).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
    const refused = (await (await sessionPost(t, clientSecret, SIGN)).json()) as GqlBody;
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', scope: 'session' });
  });

  it('a key spends a unit per verification: 15 aliased verifications are 15 units, not 1', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t = await app({ app: { rateLimit: { ...UNREACHABLE_RATE_LIMIT, keyRatePerSecond: 1, keyBurst: 40 } } });
    const { token } = await quoteOf(t);
    const aliased = `query($t: String!) { ${Array.from({ length: 15 }, (_, i) => `v${i}: verifyQuote(token: $t) { quoteId }`).join(' ')} }`;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await gql(t, aliased, { t: token })).status);
    // 2 (the quote) + 15 + 15 = 32 of 40: the third would be 47.
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('sessions may not verify quotes: GraphQL answers 403 SESSION_SCOPE before it executes, as REST does', async () => {
    const t = await app();
    const { clientSecret } = await newSession(t);
    const { token } = await quoteOf(t);
    const verify = vi.spyOn(t.app.services.quotes, 'verify');
    for (const query of ['query($t: String!) { verifyQuote(token: $t) { quoteId } }', `query($t: String!) { checkoutSession { id } ...V } fragment V on Query { verifyQuote(token: $t) { quoteId } }`]) {
      const res = await sessionPost(t, clientSecret, query, { t: token });
      expect(res.status, query).toBe(403);
      const body = (await res.json()) as GqlBody;
      expect(body.data ?? null).toBeNull();
      expect(body.errors?.[0]?.extensions.code).toBe('SESSION_SCOPE');
    }
    expect(verify).not.toHaveBeenCalled();
    const rest = await t.fetch('/v1/payments/quotes/verify', { method: 'POST', headers: { authorization: `Bearer ${clientSecret}`, 'content-type': 'application/json' }, body: JSON.stringify({ quote: token }) });
    expect(rest.status).toBe(403);
    expect(await rest.json()).toMatchObject({ code: 'SESSION_SCOPE' });
  });
});

describe('3. a retired key is published until the last quote it signed has expired', () => {
  async function published(t: TestApp): Promise<string[]> {
    return ((await (await t.fetch('/.well-known/jwks.json')).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
  }

  it('a 1-hour quote, a restart with QUOTE_TTL_SECONDS 60, a rotation: two minutes later it still verifies and its key is published, until it expires', async () => {
    const before = await app({ app: { quotes: { ttlSeconds: 3600 } } });
    const hour = await quoteOf(before);
    const kid = decodeProtectedHeader(hour.token).kid!;
    expect(Date.parse(hour.expiresAt) - before.clock.now).toBeGreaterThan(3590_000);
    // The restart: the same data, QUOTE_TTL_SECONDS=60 (also a replica of a rolling change).
    const after = await app({ sharedData: before, app: { quotes: { ttlSeconds: 60 } } });
    after.clock.now = before.clock.now;
    expect(Date.parse((await quoteOf(after)).expiresAt) - after.clock.now).toBeLessThanOrEqual(60_000);
    const admin = new AdminService(after.store.admin, after.data.secretBox, { actor: 'quote-probe', now: () => after.clock.now });
    const rotated = await admin.rotateQuoteKey();
    expect(rotated.retired?.id).toBe(kid);
    await after.sync();

    after.clock.now += 120_000;
    expect(await published(after)).toEqual([rotated.signing.id, kid]);
    expect((await verifyRest(after, { quote: hour.token })).status).toBe(200);
    after.clock.now = Date.parse(hour.expiresAt) - 1000;
    expect(await published(after)).toContain(kid);
    expect((await verifyRest(after, { quote: hour.token })).status).toBe(200);
    // Once it has expired (and the margin for replicas' clocks has passed), the key leaves the set.
    after.clock.now = Date.parse(hour.expiresAt) + 61_000;
    expect(await published(after)).toEqual([rotated.signing.id]);
    // What the operator sees (`quote-keys list`): the key's longest TTL and when it leaves the set.
    expect(rotated.retired?.maxTtlSeconds).toBe(3600);
    expect((await admin.listQuoteKeys()).find((k) => k.id === kid)?.publishedUntil).toBe(new Date(Date.parse(rotated.retired!.retiredAt!) + (3600 + 60) * 1000).toISOString());
  });

  it('replicas with different TTLs: the longest one any of them signed with holds, whichever answers', async () => {
    const short = await app({ app: { quotes: { ttlSeconds: 60 } } });
    const long = await app({ sharedData: short, app: { quotes: { ttlSeconds: 7200 } } });
    long.clock.now = short.clock.now;
    await quoteOf(short);
    const token = (await quoteOf(long)).token;
    const admin = new AdminService(short.store.admin, short.data.secretBox, { actor: 'quote-probe', now: () => short.clock.now });
    const rotated = await admin.rotateQuoteKey();
    await short.sync();
    short.clock.now += 3600_000;
    expect(await published(short)).toContain(rotated.retired!.id);
    expect((await verifyRest(short, { quote: token })).status).toBe(200);
  });
});

describe('4. one spelling per token', () => {
  const SAME_BITS = (token: string): string => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const signature = token.split('.')[2]!;
    // An Ed25519 signature is 64 bytes: 86 characters, the last carrying 2 bits of data and 4 spare ones.
    expect(signature.length % 4).toBe(2);
    const last = alphabet.indexOf(signature.at(-1)!);
    return `${token.slice(0, -1)}${alphabet[last ^ 0x01]}`;
  };

  it('a changed last character with the same significant bits, `==` appended, or a padded header is QUOTE_INVALID on REST, GraphQL and in the SDK', async () => {
    const t = await app();
    const { token } = await quoteOf(t);
    const [h, p, s] = token.split('.') as [string, string, string];
    // The standard alphabet's spelling differs only when the signature holds a '-' or '_' (random per key).
    const standardAlphabet = /[-_]/.test(s) ? [`${h}.${p}.${s.replace(/-/g, '+').replace(/_/g, '/')}`] : [];
    const variants = [SAME_BITS(token), `${token}==`, `${h}=.${p}.${s}`, ...standardAlphabet];
    const sdk = createQuoteVerifier({ baseUrl: 'http://gateway.test', fetch: (url) => t.fetch(new URL(url instanceof Request ? url.url : url).pathname), now: () => t.clock.now });
    for (const variant of variants) {
      expect(variant).not.toBe(token);
      const rest = await verifyRest(t, { quote: variant });
      expect(rest.status, variant).toBe(422);
      expect(rest.body).toMatchObject({ code: 'QUOTE_INVALID', field: 'quote' });
      expect((await verifyGql(t, variant)).errors?.[0]?.extensions.code).toBe('QUOTE_INVALID');
      const offline = await sdk.verifyQuote(variant).then(
        () => null,
        (err: unknown) => err,
      );
      expect(offline).toBeInstanceOf(GatewayError);
      expect((offline as GatewayError).code).toBe('QUOTE_INVALID');
    }
    // The text as issued still verifies everywhere.
    expect((await verifyRest(t, { quote: token })).status).toBe(200);
    expect((await verifyGql(t, token)).data?.verifyQuote).toBeTruthy();
    expect((await sdk.verifyQuote(token)).totalAmount).toBe(151050);
  });
});

describe('5. plain details, and the merchant rule of contract §5', () => {
  it('QUOTE_INVALID details never carry the JOSE library’s codes (unknown key, bad signature, another algorithm), on the gateway or in the SDK', async () => {
    const t = await app();
    const { token } = await quoteOf(t);
    const [h, p, s] = token.split('.') as [string, string, string];
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
    const reheader = (extra: Record<string, unknown>) => `${Buffer.from(JSON.stringify({ ...header, ...extra })).toString('base64url')}.${p}.${s}`;
    const flipped = `${h}.${p}.${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    const sdk = createQuoteVerifier({ baseUrl: 'http://gateway.test', fetch: (url) => t.fetch(new URL(url instanceof Request ? url.url : url).pathname), now: () => t.clock.now });
    const cases: [string, RegExp][] = [
      [reheader({ kid: 'qk_nobody' }), /not signed by a key this gateway publishes/],
      [flipped, /signature does not match/],
      [reheader({ alg: 'HS256' }), /not signed with EdDSA/],
      ['not-a-token', /not a fee quote/],
    ];
    for (const [bad, plain] of cases) {
      const rest = await verifyRest(t, { quote: bad });
      expect(rest.body.code, bad).toBe('QUOTE_INVALID');
      expect(String(rest.body.detail)).toMatch(plain);
      expect(String(rest.body.detail)).not.toMatch(/ERR_|JWKS_|JWS_|JWT_|JOSE/);
      const g = await verifyGql(t, bad);
      expect(g.errors?.[0]?.message).toBe(rest.body.detail);
      const offline = (await sdk.verifyQuote(bad).catch((err: unknown) => err)) as GatewayError;
      expect(offline.code).toBe('QUOTE_INVALID');
      expect(offline.message).not.toMatch(/ERR_|JWKS_|JWS_|JWT_|JOSE/);
    }
  });

  it('REST verify with another merchant’s merchantId is 403 MERCHANT_MISMATCH; GraphQL agrees; the caller’s own id verifies', async () => {
    const t = await app();
    const { token } = await quoteOf(t);
    const other = await verifyRest(t, { quote: token, merchantId: t.pending.merchantId });
    expect(other.status).toBe(403);
    expect(other.body).toMatchObject({ code: 'MERCHANT_MISMATCH', field: 'merchantId' });
    // Checked before the token: the same answer for a bad token.
    expect((await verifyRest(t, { quote: 'not-a-token', merchantId: t.pending.merchantId })).body).toMatchObject({ code: 'MERCHANT_MISMATCH' });
    expect((await verifyGql(t, token, t.pending.merchantId)).errors?.[0]?.extensions.code).toBe('MERCHANT_MISMATCH');
    const own = await verifyRest(t, { quote: token, merchantId: t.approved.merchantId });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ merchantId: t.approved.merchantId });
    expect((await verifyGql(t, token, t.approved.merchantId)).data?.verifyQuote).toBeTruthy();
    // A merchantId that is not a string is the usual INVALID_REQUEST.
    expect((await verifyRest(t, { quote: token, merchantId: 42 })).status).toBe(400);
  });
});
