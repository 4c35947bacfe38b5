/**
 * SVC1 over the real pipeline, property-based: for random
 * method, target, query string, timestamp within the window and body, a
 * correctly signed request passes authentication; any single mutation of
 * any signed component fails with the code the contract's check order
 * gives. Requests go over a loopback socket with the target as sent.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sign } from '../../src/modules/auth/svc1.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { LEAK, serveRaw, type RawServer } from '../helpers/raw-http.js';

// Many sequential requests: generous on a shared, loaded machine (no timing is asserted).
vi.setConfig({ testTimeout: 60_000 });

let t: TestApp;
let raw: RawServer;
const NO_LIMITS = { keyRatePerSecond: 1e9, keyBurst: 1e9, authFailuresPerMinute: 1e9 };

beforeAll(async () => {
  t = await createTestApp({ app: { rateLimit: NO_LIMITS } });
  raw = await serveRaw(t);
});
afterAll(async () => {
  await raw.close();
  await t.close();
});

/** Characters a client may put in a query string (RFC 3986 query, percent-escapes included). */
const queryChar = fc.constantFrom(...'abcXYZ019-._~!$&\'()*+,;=:@/?%20%2F%E2%82%AC'.split(''));
const queryString = fc.string({ unit: queryChar, maxLength: 40 });

interface Req {
  method: 'GET' | 'POST';
  target: string;
  timestamp: string;
  apiKey: string;
  secret: string;
  body: string;
}

const request = fc
  .record({
    route: fc.constantFrom('/graphql', '/v1/payments/channel', '/v1/payments/calculate'),
    method: fc.constantFrom<'GET' | 'POST'>('GET', 'POST'),
    query: fc.option(queryString, { nil: undefined }),
    skew: fc.integer({ min: -299, max: 299 }),
    body: fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.json({ maxDepth: 3 })),
    merchant: fc.constantFrom<'approved' | 'pending'>('approved', 'pending'),
  })
  .map(({ route, method, query, skew, body, merchant }): Req => {
    const who = merchant === 'approved' ? t.approved : t.pending;
    return {
      method,
      target: query === undefined ? route : `${route}?${query}`,
      timestamp: String(Math.floor(t.clock.now / 1000) + skew),
      apiKey: who.apiKey,
      secret: who.apiSecret,
      body: method === 'GET' ? '' : body,
    };
  });

function send(r: Req, signature = sign(r.secret, { method: r.method, target: r.target, timestamp: r.timestamp, apiKey: r.apiKey, body: r.body })) {
  return raw.send(
    r.method,
    r.target,
    {
      'X-SERVICE-API-Key': r.apiKey,
      'X-SERVICE-Timestamp': r.timestamp,
      'X-SERVICE-Signature': signature,
      ...(r.method === 'POST' ? { 'Content-Type': 'application/json' } : {}),
    },
    r.body,
  );
}

function codeOf(body: string): string | undefined {
  const parsed = JSON.parse(body) as { code?: string; errors?: { extensions?: { code?: string } }[] };
  return parsed.code ?? parsed.errors?.[0]?.extensions?.code;
}

const AUTH_CODES = ['AUTH_HEADER_MISSING', 'TIMESTAMP_INVALID', 'TIMESTAMP_EXPIRED', 'SIGNATURE_MALFORMED', 'INVALID_API_KEY', 'SIGNATURE_MISMATCH'];

describe('sign-then-verify over HTTP', () => {
  it('a correctly signed request always passes authentication and never gets a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const res = await send(r);
        expect(res.status).not.toBe(401);
        expect(res.status).toBeLessThan(500);
        expect(res.body).not.toMatch(LEAK);
        if (res.body) expect(AUTH_CODES).not.toContain(codeOf(res.body));
      }),
      { numRuns: 150 },
    );
  });

  type Mutation = { name: string; apply: (r: Req, sig: string) => { req: Req; sig: string }; code: string };
  const flipHex = (c: string) => (c === '0' ? '1' : '0');
  const mutations: fc.Arbitrary<Mutation> = fc.oneof(
    fc.constant<Mutation>({ name: 'method', apply: (r, sig) => ({ req: { ...r, method: r.method === 'GET' ? 'POST' : 'GET', body: '' }, sig }), code: 'SIGNATURE_MISMATCH' }),
    fc.constant<Mutation>({ name: 'target: extra query', apply: (r, sig) => ({ req: { ...r, target: `${r.target}${r.target.includes('?') ? '&' : '?'}x=1` }, sig }), code: 'SIGNATURE_MISMATCH' }),
    fc.constant<Mutation>({ name: 'target: path case', apply: (r, sig) => ({ req: { ...r, target: r.target.replace('/graphql', '/graphqL').replace('/v1/payments', '/v1/Payments') }, sig }), code: 'NOT_FOUND_OR_MISMATCH' }),
    fc.integer({ min: 1, max: 200 }).map<Mutation>((d) => ({
      name: `timestamp ±${d} inside the window`,
      apply: (r, sig) => ({ req: { ...r, timestamp: String(Number(r.timestamp) + (Number(r.timestamp) * 1000 > t.clock.now ? -d : d)) }, sig }),
      code: 'SIGNATURE_MISMATCH',
    })),
    fc.integer({ min: 301, max: 10_000_000 }).map<Mutation>((d) => ({
      name: 'timestamp outside the window',
      apply: (r, sig) => ({ req: { ...r, timestamp: String(Math.floor(t.clock.now / 1000) + d * (d % 2 ? 1 : -1)) }, sig }),
      code: 'TIMESTAMP_EXPIRED',
    })),
    fc.constant<Mutation>({ name: 'timestamp in ms', apply: (r, sig) => ({ req: { ...r, timestamp: `${r.timestamp}000` }, sig }), code: 'TIMESTAMP_INVALID' }),
    fc.constant<Mutation>({ name: 'timestamp not digits', apply: (r, sig) => ({ req: { ...r, timestamp: `${r.timestamp}.0` }, sig }), code: 'TIMESTAMP_INVALID' }),
    fc.constant<Mutation>({ name: 'other merchant key', apply: (r, sig) => ({ req: { ...r, apiKey: r.apiKey === t.approved.apiKey ? t.pending.apiKey : t.approved.apiKey }, sig }), code: 'SIGNATURE_MISMATCH' }),
    fc.constant<Mutation>({ name: 'unknown key', apply: (r, sig) => ({ req: { ...r, apiKey: `${r.apiKey}0` }, sig }), code: 'INVALID_API_KEY' }),
    fc.nat({ max: 63 }).map<Mutation>((i) => ({
      name: `signature digit ${i}`,
      apply: (r, sig) => ({ req: r, sig: `${sig.slice(0, i)}${flipHex(sig[i]!)}${sig.slice(i + 1)}` }),
      code: 'SIGNATURE_MISMATCH',
    })),
    fc.constant<Mutation>({ name: 'signature truncated', apply: (r, sig) => ({ req: r, sig: sig.slice(0, 63) }), code: 'SIGNATURE_MALFORMED' }),
    fc.constant<Mutation>({ name: 'body byte appended', apply: (r, sig) => ({ req: { ...r, body: `${r.body} ` }, sig }), code: 'SIGNATURE_MISMATCH' }),
  );

  it('any single mutation of a signed component fails with the right code', async () => {
    await fc.assert(
      fc.asyncProperty(request, mutations, async (r, m) => {
        // GET bodies are not read by the server (fetch semantics), so only POST bodies are signed content.
        if (m.name === 'body byte appended') fc.pre(r.method === 'POST');
        const sig = sign(r.secret, { method: r.method, target: r.target, timestamp: r.timestamp, apiKey: r.apiKey, body: r.body });
        const { req, sig: mutatedSig } = m.apply(r, sig);
        // A mutated request is sent with the ORIGINAL key's secret-derived signature.
        const res = await send({ ...req, secret: r.secret }, mutatedSig);
        expect(res.body).not.toMatch(LEAK);
        if (m.code === 'NOT_FOUND_OR_MISMATCH') {
          // A changed path is either another (unknown) route or a mismatch; never accepted.
          expect([401, 404]).toContain(res.status);
          return;
        }
        expect(res.status).toBe(401);
        expect(codeOf(res.body)).toBe(m.code);
      }),
      { numRuns: 250 },
    );
  });
});
