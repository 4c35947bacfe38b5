/**
 * Malformed input at the edge, past authentication: every route of the route table
 * (src/shared/routes.ts), every parameter (query string, headers, body), fuzzed with fast-check, sent over a
 * real socket to the service's own Node transport. Each request is SVC1-signed over the exact bytes sent
 * (target and body) with the test merchant's key, or carries a checkout session's Bearer secret, so the
 * fuzz reaches parsing, routing and execution rather than stopping at a 401.
 *
 * Invariants of every answer: no 5xx, no internals in the body; and no error-level (50) log line for the
 * whole run: a client's malformed input is the client's 4xx, never an "unexpected" failure with a stack.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { IMAGE_PREFIX, REST_ROUTES, ROUTES, GRAPHQL_ENDPOINT } from '../../src/shared/routes.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { LEAK, serveRaw, type RawResponse, type RawServer } from '../helpers/raw-http.js';

// Thousands of sequential requests on a shared, loaded machine: no timing is asserted.
vi.setConfig({ testTimeout: 300_000 });

const logLines: string[] = [];
let t: TestApp;
let raw: RawServer;
let clientSecret: string;
/** Statuses answered per caller kind: evidence that the fuzz got past authentication. */
const statuses = { signed: new Map<number, number>(), session: new Map<number, number>() };

beforeAll(async () => {
  t = await createTestApp({
    logLines,
    // No budget may turn a fuzzed request into a 429 before it reaches what is fuzzed.
    app: { rateLimit: { keyRatePerSecond: 1e9, keyBurst: 1e9, authFailuresPerMinute: 1e9, sessionRatePerSecond: 1e9, sessionBurst: 1e9 } },
  });
  raw = await serveRaw(t);
  const created = await t.signedFetch('/v1/checkout/sessions', {
    method: 'POST',
    body: JSON.stringify({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR', methods: ['qris', 'ovo'] }),
  });
  expect(created.status).toBe(201);
  clientSecret = ((await created.json()) as { clientSecret: string }).clientSecret;
  // The merchant allows one web origin, so a fuzzed Origin can also be an allowed one.
  await t.execute(`INSERT INTO merchant_origins (merchant_id, origin) VALUES ('${t.approved.merchantId}', 'https://shop.example') ON CONFLICT DO NOTHING`);
});
afterAll(async () => {
  await raw?.close();
  await t?.close();
});

function assertSafe(res: RawResponse, context: string): void {
  const where = `${context} → ${res.status} ${res.body.slice(0, 300)}`;
  expect(res.status, where).toBeGreaterThanOrEqual(200);
  expect(res.status, where).toBeLessThan(500);
  // Error answers only: the public pages and the component's source legitimately contain words like TypeError.
  if (res.status >= 400) expect(LEAK.test(res.body), `${where} leaks internals`).toBe(false);
  for (const secret of [t.approved.apiSecret, t.pending.apiSecret, clientSecret]) expect(res.body.includes(secret), `${where} echoes a secret`).toBe(false);
}

/** Error-level lines logged so far (pino level 50 and above). */
function errorLines(): string[] {
  return logLines.filter((l) => Number((JSON.parse(l) as { level: number }).level) >= 50);
}

// ---- arbitraries -------------------------------------------------------------------------------------

/** Characters a raw request target may carry (Node's client refuses controls and spaces), `%` included unescaped. */
const TARGET_CHARS = [...'%{}[]"\'\\<>;,/?:@&=+$!*()~._-|^`abcxyzQRIS0129'];
/** A query-string value: percent-encoded text or JSON, raw characters (broken escapes such as `%zz`), or a known troublemaker. */
const paramValue = fc.oneof(
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.jsonValue({ maxDepth: 3 }).map((v) => encodeURIComponent(JSON.stringify(v))),
  fc.string({ unit: fc.constantFrom(...TARGET_CHARS), maxLength: 30 }),
  fc.constantFrom('%7Bx', '%5B', '%7B%7D', '%5B%5D', 'null', '1', '%22s%22', '%', '%zz', '%C3%28', '%00', '%FF%FE', '', '%7B__typename%7D', '1e309', '-0', `${'%5B'.repeat(3000)}`),
  // Contract §14's parameters with values that mean something (a channel, a group, a language, a zone, an instant, a list past its bound).
  fc.constantFrom('bca_va', 'QRIS,ovo', 'virtual_account,ewallet', 'id', 'en', 'Asia/Jakarta', '%2B07:00', '150000', '2026-11-27T11:41:58Z', Array(60).fill('ovo').join(','), ',,', '%3Cb%3E'),
);
/** Parameter names: the route's own, and anything else. */
const paramName = (known: readonly string[]) => fc.oneof(fc.constantFrom(...known), fc.string({ unit: fc.constantFrom(...'abcdefqxyz_[]%.'), minLength: 1, maxLength: 12 }));
const queryString = (known: readonly string[]) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom('', '?', '?&', '?=&=') },
    { weight: 6, arbitrary: fc.array(fc.tuple(paramName(known), paramValue), { minLength: 1, maxLength: 5 }).map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`) },
  );

/** Header values Node's client sends as given: tab, printable ASCII and latin-1 bytes. */
const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 10 }),
  fc.constantFrom('', '\t', '*', 'application/json', 'application/json; charset=utf-16', 'text/event-stream', 'application/graphql-response+json', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', '"etag"', 'W/"x", *', 'null', 'https://shop.example', 'https://evil.example', 'gzip, br;q=0', 'bytes=0-1', 'x'.repeat(8000)),
);
/** The headers a route reads (or might): each absent or fuzzed. Authentication headers are set by the caller kind. */
const FUZZED_HEADERS = ['Content-Type', 'Accept', 'If-None-Match', 'X-Request-Id', 'Origin', 'Accept-Encoding', 'Cache-Control', 'Access-Control-Request-Method', 'Access-Control-Request-Headers', 'Range', 'X-Forwarded-For', 'Cookie', 'Last-Event-ID'] as const;
const headers = fc.record(Object.fromEntries(FUZZED_HEADERS.map((h) => [h, headerValue])) as Record<(typeof FUZZED_HEADERS)[number], typeof headerValue>, { requiredKeys: [] });

/** A JSON object like `valid` with each member kept, dropped, or replaced by any JSON value; or anything at all. */
function bodyLike(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const member = (value: unknown) => fc.oneof({ weight: 3, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) });
  const mutated = fc.record(Object.fromEntries(Object.entries(valid).map(([k, v]) => [k, member(v)]))).map((o) => JSON.stringify(o));
  return fc.oneof(
    { weight: 4, arbitrary: mutated },
    { weight: 1, arbitrary: fc.json({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '[', 'null', '{"a":1,"a":2}', '\u0000', `${'['.repeat(20_000)}`) },
  );
}

const CALCULATE_OP = 'query($input: CalculateFeeInput!) { calculateFee(input: $input) { fee totalAmount getBalance } }';
const GRAPHQL_DOCUMENTS = [
  '{ paymentChannels { code status feeInfo { feeValue } } }',
  CALCULATE_OP,
  '{ __typename }',
  '{ checkoutSession { id amount } }',
  'query Q($f: PaymentChannelFilter) { paymentChannels(filter: $f) { code availability { selectable reasons } } }',
  'mutation { createCheckoutSession(input: { amount: 150000, currency: "IDR" }) { id } }',
  'subscription { paymentChannelsChanged { code } }',
  'query I($l: String, $p: String, $a: Decimal, $e: String, $z: String, $f: PaymentChannelFilter) { paymentChannels(filter: $f) { instructions(locale: $l, payCode: $p, amount: $a, expiresAt: $e, timeZone: $z) { sections { key title steps } unfilled } } }',
];
const graphqlBody = fc.oneof(
  { weight: 4, arbitrary: fc.record({ query: fc.oneof(fc.constantFrom(...GRAPHQL_DOCUMENTS), fc.string({ maxLength: 80 })), variables: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }), operationName: fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }), extensions: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }) }, { requiredKeys: ['query'] }).map((b) => JSON.stringify(b)) },
  { weight: 2, arbitrary: bodyLike({ query: CALCULATE_OP, variables: { input: { amount: 150000, currency: 'IDR', method: 'qris' } } }) },
);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;

interface RouteCase {
  /** What the case is called in failures. */
  name: string;
  /** The path sent (an image route gets a file name). */
  path: (rng: string) => string;
  /** Its own method(s); another method is also tried. */
  methods: readonly string[];
  params: readonly string[];
  body: fc.Arbitrary<string>;
}

/** Every route of the route table, each with the parameters and body it takes. */
function routeCases(): RouteCase[] {
  const anyBody = fc.oneof(fc.constant(''), fc.json({ maxDepth: 2 }));
  return ROUTES.map((route): RouteCase => {
    const rest = REST_ROUTES.find((r) => r.path === route.path);
    if (route.path === GRAPHQL_ENDPOINT) return { name: route.path, path: () => route.path, methods: ['GET', 'POST'], params: ['query', 'variables', 'extensions', 'operationName'], body: graphqlBody };
    if (rest?.name === 'calculateFee') {
      const valid = { amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: '', chargeFeeToCustomer: true };
      return { name: route.path, path: () => route.path, methods: [rest.method], params: ['merchantId', 'amount'], body: fc.constant(null).chain(() => bodyLike({ ...valid, merchantId: t.approved.merchantId })) };
    }
    if (rest?.name === 'createCheckoutSession') {
      return { name: route.path, path: () => route.path, methods: [rest.method], params: ['merchantId'], body: fc.constant(null).chain(() => bodyLike({ merchantId: t.approved.merchantId, amount: 150000, currency: 'IDR', methods: ['qris'], expiresInSeconds: 900 })) };
    }
    // A GET route's own query parameters (contract §14: the list's code/exclude/group, the instructions' parameters), and others.
    if (rest) return { name: route.path, path: () => route.path, methods: [rest.method], params: [...(rest.query ?? []).map((q) => q.name), 'merchantId', 'status'], body: anyBody };
    if (route.path === IMAGE_PREFIX) return { name: `${route.path}*`, path: (rng) => `${route.path}${rng}`, methods: ['GET'], params: ['v'], body: anyBody };
    return { name: route.path, path: () => route.path, methods: ['GET'], params: ['token', 'format', 'v'], body: anyBody };
  });
}

/** A path segment for prefix routes (image names): real ones, traversal attempts, odd bytes. */
const segment = fc.oneof(fc.constantFrom('qris.svg', 'QRIS.SVG', '..%2F..%2Fpackage.json', '%00.svg', 'x', '', '.svg', 'qris.svg%3F', '%2e%2e/'), fc.string({ unit: fc.constantFrom(...TARGET_CHARS), maxLength: 20 }));

type Caller = 'signed' | 'session' | 'anonymous';

function send(caller: Caller, method: string, target: string, extra: Record<string, string>, body: string): Promise<RawResponse> {
  const sent = method === 'GET' || method === 'HEAD' ? '' : body;
  const auth: Record<string, string> =
    caller === 'signed'
      ? signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method, target, body: sent, timestamp: String(Math.floor(t.clock.now / 1000)) })
      : caller === 'session'
        ? { Authorization: `Bearer ${clientSecret}` }
        : {};
  return raw.send(method, target, { 'Content-Type': 'application/json', ...extra, ...auth }, sent);
}

describe('every route, every parameter, past authentication: nothing answers 5xx', () => {
  it('the reported cases: malformed GET variables / extensions → 400 INVALID_REQUEST naming the parameter, no error log', async () => {
    const before = errorLines().length;
    for (const [query, field] of [
      ['variables=%7Bx', 'variables'],
      ['extensions=%7Bx', 'extensions'],
      ['variables=%5B', 'variables'],
      ['variables=1', 'variables'],
      ['extensions=%5B%5D', 'extensions'],
    ] as const) {
      for (const caller of ['signed', 'session'] as const) {
        const res = await send(caller, 'GET', `/graphql?query=%7B__typename%7D&${query}`, { Accept: 'application/json' }, '');
        expect(res.status, `${caller} ${query}: ${res.body}`).toBe(400);
        const error = (JSON.parse(res.body) as { errors: { message: string; extensions: { code: string; field?: string } }[] }).errors[0]!;
        expect(error.extensions).toMatchObject({ code: 'INVALID_REQUEST', field });
        expect(error.message).toContain(`"${field}"`);
      }
    }
    expect(errorLines().slice(before)).toEqual([]);
  });

  it('contract §14 bounds: more than 50 codes, a pay_code with markup, an unknown locale, a zone that is not IANA → 400 naming the field, no error log', async () => {
    const before = errorLines().length;
    const many = Array.from({ length: 51 }, (_, i) => `c${i}`).join(',');
    for (const [target, field] of [
      [`/v1/payments/channel?code=${many}`, 'code'],
      [`/v1/payments/channel?exclude=${many}`, 'exclude'],
      ['/v1/payments/channel?group=virtual_account,%3Cb%3E', 'group'],
      ['/v1/payments/instruction?code=qris&pay_code=%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'pay_code'],
      ['/v1/payments/instruction?code=qris&locale=fr', 'locale'],
      ['/v1/payments/instruction?code=qris&time_zone=GMT%2B7', 'time_zone'],
      ['/v1/payments/instruction?code=qris&time_zone=%2B07:00', 'time_zone'],
      [`/v1/payments/instruction?code=${many}`, 'code'],
    ] as const) {
      for (const caller of ['signed', 'session'] as const) {
        const res = await send(caller, 'GET', target, { Accept: 'application/json' }, '');
        expect(res.status, `${caller} ${target}: ${res.body}`).toBe(400);
        expect(JSON.parse(res.body), `${caller} ${target}`).toMatchObject({ code: 'INVALID_REQUEST', field });
      }
    }
    const graph = await send('signed', 'POST', '/graphql', { Accept: 'application/json' }, JSON.stringify({ query: GRAPHQL_DOCUMENTS.at(-1), variables: { p: '<b>', f: { codes: ['qris'] } } }));
    expect(JSON.parse(graph.body).errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'payCode' });
    expect(errorLines().slice(before)).toEqual([]);
  });

  for (const caller of ['signed', 'session'] as const) {
    it(`${caller} requests: fuzzed query strings, headers and bodies on every route`, async () => {
      for (const route of routeCases()) {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...route.methods) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
            segment,
            queryString(route.params),
            headers,
            route.body,
            async (method, rng, query, extra, body) => {
              const target = `${route.path(rng)}${query}`;
              const res = await send(caller, method, target, extra, body);
              statuses[caller].set(res.status, (statuses[caller].get(res.status) ?? 0) + 1);
              assertSafe(res, `${caller} ${method} ${target.slice(0, 120)} headers=${JSON.stringify(extra).slice(0, 200)} body=${body.slice(0, 120)}`);
            },
          ),
          // Per route: ~1,300 requests in all, a few seconds on an idle machine.
          { numRuns: caller === 'signed' ? 80 : 50 },
        );
      }
      // Most fuzzed requests must be judged past authentication (a 401 would mean the fuzz only probed the signature check).
      const counts = [...statuses[caller].entries()];
      const total = counts.reduce((n, [, c]) => n + c, 0);
      const unauthenticated = counts.filter(([s]) => s === 401).reduce((n, [, c]) => n + c, 0);
      const served = counts.filter(([s]) => s >= 200 && s < 300).reduce((n, [, c]) => n + c, 0);
      expect(unauthenticated / total, JSON.stringify(counts)).toBeLessThan(0.5);
      expect(served, JSON.stringify(counts)).toBeGreaterThan(0);
    });
  }

  it('anonymous and wrongly signed requests too (a bad signature is a 401, never a 5xx)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routeCases()), fc.constantFrom(...METHODS), segment, queryString(['query', 'variables']), headers, fc.string({ maxLength: 100 }), async (route, method, rng, query, extra, body) => {
        const target = `${route.path(rng)}${query}`;
        const res = await send('anonymous', method, target, { ...extra, 'X-SERVICE-API-Key': t.approved.apiKey, 'X-SERVICE-Timestamp': String(Math.floor(t.clock.now / 1000)), 'X-SERVICE-Signature': 'f'.repeat(64) }, body);
        assertSafe(res, `anonymous ${method} ${target.slice(0, 120)}`);
      }),
      { numRuns: 150 },
    );
  });

  it('logged no error-level line: every fuzzed input was answered as the client’s mistake', () => {
    expect(errorLines().map((l) => l.slice(0, 500))).toEqual([]);
  });
});
