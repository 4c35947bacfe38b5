/**
 * The Node fast path (src/http/fast-path.ts) against the full Yoga pipeline
 * on the same app and data: identical answers (success and every error), and
 * caches that never serve anything stale after a change committed through
 * another connection (as the admin CLI or another worker would) or through
 * the server's own connection.
 */
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Plugin } from 'graphql-yoga';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/auth/svc1.js';
import { DATABASE_FILE } from '../../src/boot.js';
import { AppError } from '../../src/errors.js';
import { createNodeHandler, type FastPathStats } from '../../src/http/fast-path.js';
import { requestStateOf } from '../../src/http/request-state.js';
import { errorResponseFor } from '../../src/http/responses.js';
import { createSignatureVerifier } from '../../src/plugins/use-signature-auth.js';
import { BASE, createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let otherConnection: Database.Database | undefined;

/**
 * A commit made outside the server's own reads, as the admin CLI or another process would make it. On SQLite
 * a second connection to the file, with no waiting: the very next request must see it. On Postgres the same
 * SQL through the pool, then wait for the LISTEN/NOTIFY catch-up (its timing is tested end to end in
 * test/e2e/replicas.test.ts).
 */
async function other(statement: string): Promise<void> {
  if (otherConnection) otherConnection.exec(statement);
  else await t.execute(statement);
}

beforeAll(async () => {
  t = await createTestApp({ transport: 'node', bodyLimitBytes: 2048 });
  if (t.data.database) {
    otherConnection = new Database(path.join(t.dataDir, DATABASE_FILE));
    otherConnection.pragma('busy_timeout = 2000');
  }
});
afterAll(async () => {
  otherConnection?.close();
  await t.close();
});

interface Probe {
  target: string;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  /** Sign it (default), or send the headers as given. */
  sign?: boolean;
}

function build(p: Probe): RequestInit {
  const method = p.method ?? (p.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { ...(p.body !== undefined ? { 'content-type': 'application/json' } : {}), ...p.headers };
  const signed =
    p.sign === false
      ? {}
      : signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method, target: p.target, body: p.body ?? '', timestamp: String(Math.floor(t.clock.now / 1000)) });
  return { method, headers: { ...signed, ...headers }, body: p.body };
}

/** The same request through the Node fast path and through yoga.fetch. */
async function both(p: Probe) {
  const fastRes = await t.fetch(p.target, build(p));
  const yogaRes = await t.app.yoga.fetch(`${BASE}${p.target}`, build(p));
  const norm = async (r: Response) => {
    const text = await r.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: compare the text */
    }
    // Request ids differ per request by design.
    if (body && typeof body === 'object') {
      const b = body as Record<string, unknown>;
      delete b.requestId;
      for (const e of (b.errors as { extensions?: Record<string, unknown> }[] | undefined) ?? []) delete e.extensions?.requestId;
    }
    return {
      status: r.status,
      body,
      contentType: r.headers.get('content-type'),
      cacheControl: r.headers.get('cache-control'),
      retryAfter: r.headers.get('retry-after'),
      allow: r.headers.get('allow'),
      hasRequestId: r.headers.has('x-request-id'),
    };
  };
  return { fast: await norm(fastRes), yoga: await norm(yogaRes) };
}

const calcBody = (over: Record<string, unknown> = {}) =>
  JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId, chargeFeeToCustomer: true, ...over });

describe('fast path answers exactly like the Yoga pipeline', () => {
  beforeEach(() => {
    t.clock.now = Date.now();
  });

  const successes: [string, () => Probe][] = [
    ['REST channel list', () => ({ target: '/v1/payments/channel' })],
    ['REST channel list with a query string', () => ({ target: '/v1/payments/channel?x=1' })],
    ['REST calculate', () => ({ target: '/v1/payments/calculate', body: calcBody() })],
    ['GraphQL channels', () => ({ target: '/graphql', body: JSON.stringify({ query: '{ paymentChannels { id code name status imageUrl feeInfo { feePercentage feeValue minTransactions maxTransactions } } }' }) })],
    ['GraphQL calculateFee with variables', () => ({
      target: '/graphql',
      body: JSON.stringify({
        query: 'query Q($i: CalculateFeeInput!) { calculateFee(input: $i) { amount fee additionalFee totalAmount getBalance currency } }',
        variables: { i: { amount: 250000.0, currency: 'IDR', method: 'credit_card' } },
        operationName: 'Q',
      }),
    })],
    ['GraphQL with Accept graphql-response+json', () => ({ target: '/graphql', body: JSON.stringify({ query: '{ paymentChannels { code } }' }), headers: { accept: 'application/graphql-response+json' } })],
  ];
  for (const [name, probe] of successes) {
    it(`success: ${name}`, async () => {
      const before = t.app.fastPathStats.fast;
      const { fast, yoga } = await both(probe());
      expect(fast.status).toBe(200);
      expect(fast).toEqual(yoga);
      expect(t.app.fastPathStats.fast).toBe(before + 1); // answered by the fast path itself
    });
  }

  const failures: [string, () => Probe][] = [
    ['missing auth headers', () => ({ target: '/v1/payments/channel', sign: false })],
    ['bad signature', () => ({ target: '/graphql', body: JSON.stringify({ query: '{ paymentChannels { code } }' }), headers: { 'X-SERVICE-Signature': 'ab'.repeat(32) } })],
    ['unknown key', () => ({ target: '/v1/payments/channel', headers: { 'X-SERVICE-API-Key': 'pk_test_nope' } })],
    ['expired timestamp', () => ({ target: '/v1/payments/channel', headers: { 'X-SERVICE-Timestamp': '1000' } })],
    ['malformed JSON on REST', () => ({ target: '/v1/payments/calculate', body: '{"amount":' })],
    ['missing field on REST', () => ({ target: '/v1/payments/calculate', body: JSON.stringify({ amount: 1000, currency: 'IDR', merchantId: t.approved.merchantId }) })],
    ['amount out of range on REST', () => ({ target: '/v1/payments/calculate', body: calcBody({ amount: 1 }) })],
    ['merchant mismatch on REST', () => ({ target: '/v1/payments/calculate', body: calcBody({ merchantId: t.pending.merchantId }) })],
    ['text/plain on REST', () => ({ target: '/v1/payments/calculate', body: calcBody(), headers: { 'content-type': 'text/plain' } })],
    ['GraphQL syntax error', () => ({ target: '/graphql', body: JSON.stringify({ query: '{ paymentChannels { ' }) })],
    ['GraphQL validation error', () => ({ target: '/graphql', body: JSON.stringify({ query: '{ nope }' }) })],
    ['GraphQL resolver error', () => ({ target: '/graphql', body: JSON.stringify({ query: '{ calculateFee(input: {amount: 1, currency: "IDR", method: "qris"}) { fee } }' }) })],
    ['GraphQL not-JSON body', () => ({ target: '/graphql', body: 'query=1' })],
    ['GraphQL unknown parameter', () => ({ target: '/graphql', body: JSON.stringify({ query: '{ paymentChannels { code } }', foo: 1 }) })],
    ['GraphQL batch', () => ({ target: '/graphql', body: JSON.stringify([{ query: '{ paymentChannels { code } }' }]) })],
    ['GraphQL with Origin (CORS)', () => ({ target: '/graphql', body: JSON.stringify({ query: '{ paymentChannels { code } }' }), headers: { origin: 'http://shop.test' } })],
    ['wrong method on a REST route', () => ({ target: '/v1/payments/channel', method: 'POST', body: '{}' })],
  ];
  for (const [name, probe] of failures) {
    it(`failure: ${name}`, async () => {
      const before = t.app.fastPathStats.fast;
      const { fast, yoga } = await both(probe());
      // Errors: an error status, or (GraphQL execution errors) 200 with `errors`; CORS is a success with CORS headers.
      if (!name.includes('CORS')) expect(fast.status >= 400 || (fast.body as { errors?: unknown[] }).errors?.length).toBeTruthy();
      expect(fast).toEqual(yoga);
      expect(t.app.fastPathStats.fast).toBe(before); // never answered by the fast path
    });
  }

  it('body over the limit: 413 problem with the shared renderer', async () => {
    const body = JSON.stringify({ amount: 1, pad: 'x'.repeat(5000) });
    const { fast, yoga } = await both({ target: '/v1/payments/calculate', body });
    expect(fast.status).toBe(413);
    expect(fast).toEqual(yoga);
  });
});

describe('caches are invalidated by any committed change', () => {
  beforeEach(() => {
    t.clock.now = Date.now();
  });

  const listFees = async () => {
    const res = await t.fetch('/v1/payments/channel', build({ target: '/v1/payments/channel' }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { code: string; status: string; fee_info: { fee_percentage: number } }[] };
    return new Map(body.data.map((c) => [c.code, c]));
  };
  const gqlOvo = async () => {
    const body = JSON.stringify({ query: '{ paymentChannels { code feeInfo { feePercentage } } }' });
    const res = await t.fetch('/graphql', build({ target: '/graphql', body }));
    const json = (await res.json()) as { data: { paymentChannels: { code: string; feeInfo: { feePercentage: number } }[] } };
    return json.data.paymentChannels.find((c) => c.code === 'ovo')?.feeInfo.feePercentage;
  };

  it('a channel change committed by another connection is served on the next request (REST cache and GraphQL)', async () => {
    expect((await listFees()).get('ovo')?.fee_info.fee_percentage).toBe(1.5);
    const hits = t.app.fastPathStats.restListCacheHits;
    expect((await listFees()).get('ovo')?.fee_info.fee_percentage).toBe(1.5);
    expect(t.app.fastPathStats.restListCacheHits).toBe(hits + 1); // the second answer came from the cache
    expect(await gqlOvo()).toBe(1.5);

    await other("update channels set fee_percentage = '2.25' where code = 'ovo'");
    expect((await listFees()).get('ovo')?.fee_info.fee_percentage).toBe(2.25);
    expect(await gqlOvo()).toBe(2.25);

    await other("update channels set status = 'offline', fee_percentage = '1.5' where code = 'ovo'");
    const after = await listFees();
    expect(after.get('ovo')?.status).toBe('offline');
    expect(after.get('ovo')?.fee_info.fee_percentage).toBe(1.5);
    await other("update channels set status = 'active' where code = 'ovo'");
  });

  it('a change through the server process own connection is seen too', async () => {
    await listFees(); // warm the cache
    await t.execute("update channels set name = 'OVO Baru' where code = 'ovo'");
    const res = await t.fetch('/v1/payments/channel', build({ target: '/v1/payments/channel' }));
    const body = (await res.json()) as { data: { code: string; name: string }[] };
    expect(body.data.find((c) => c.code === 'ovo')?.name).toBe('OVO Baru');
    await t.execute("update channels set name = 'OVO' where code = 'ovo'");
  });

  it('a disabled channel disappears and calculate refuses it on the next request', async () => {
    const calc = () => t.fetch('/v1/payments/calculate', build({ target: '/v1/payments/calculate', body: calcBody({ method: 'OVO', amount: 50000 }) }));
    expect((await calc()).status).toBe(200);
    expect((await listFees()).has('ovo')).toBe(true);
    const ovo = "(select id from channels where code = 'ovo')";
    // The approved demo merchant has no OVO overrides, so re-enabling is a plain insert.
    await other(`delete from merchant_channels where merchant_id = '${t.approved.merchantId}' and channel_id = ${ovo}`);
    expect((await listFees()).has('ovo')).toBe(false);
    const refused = await calc();
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { code: string }).code).toBe('CHANNEL_NOT_FOUND');
    await other(`insert into merchant_channels (merchant_id, channel_id) select '${t.approved.merchantId}', id from channels where code = 'ovo'`);
    expect((await listFees()).has('ovo')).toBe(true);
  });

  it('KYC change of the merchant is seen on the next request (cached principal data)', async () => {
    expect((await listFees()).has('qris')).toBe(true);
    await other(`update merchants set kyc_status = 'pending' where id = '${t.approved.merchantId}'`);
    expect((await listFees()).has('qris')).toBe(false);
    await other(`update merchants set kyc_status = 'approved' where id = '${t.approved.merchantId}'`);
    expect((await listFees()).has('qris')).toBe(true);
  });

  it('a key revoked by another connection is refused on the very next request', async () => {
    const probe = () => t.fetch('/v1/payments/channel', build({ target: '/v1/payments/channel' }));
    expect((await probe()).status).toBe(200);
    expect((await probe()).status).toBe(200); // key material now cached
    await other(`update api_keys set revoked_at = '2026-01-01T00:00:00.000Z' where id = '${t.approved.apiKey}'`);
    const res = await probe();
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_API_KEY');
    const gql = await t.fetch('/graphql', build({ target: '/graphql', body: JSON.stringify({ query: '{ paymentChannels { code } }' }) }));
    expect(gql.status).toBe(401);
    await other(`update api_keys set revoked_at = null where id = '${t.approved.apiKey}'`);
    expect((await probe()).status).toBe(200);
  });
});

describe('result cache: identical requests, identical answers, never across inputs', () => {
  beforeEach(() => {
    t.clock.now = Date.now();
  });

  /** Sign and send exact body bytes (the test controls every byte and the Content-Type). */
  const sendBytes = (target: string, body: Buffer<ArrayBuffer>, contentType = 'application/json') =>
    t.fetch(target, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        ...signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'POST', target, body, timestamp: String(Math.floor(t.clock.now / 1000)) }),
      },
      body,
    });

  it('a repeated GraphQL query and REST calculation are answered from the cache, byte for byte', async () => {
    for (const [target, body] of [
      ['/graphql', JSON.stringify({ query: '{ calculateFee(input: { amount: 777000, currency: "IDR", method: "QRIS" }) { fee totalAmount } }' })],
      ['/v1/payments/calculate', calcBody({ amount: 777001 })],
    ] as const) {
      const first = await t.fetch(target, build({ target, body }));
      const hits = t.app.fastPathStats.resultCacheHits;
      const second = await t.fetch(target, build({ target, body }));
      expect(t.app.fastPathStats.resultCacheHits).toBe(hits + 1);
      expect(second.status).toBe(200);
      expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(await second.text()).toBe(await first.text());
    }
  });

  it('the same body with another Content-Type is not served from the cache (415 on REST)', async () => {
    const body = Buffer.from(calcBody({ amount: 777002 }));
    expect((await sendBytes('/v1/payments/calculate', body)).status).toBe(200);
    const res = await sendBytes('/v1/payments/calculate', body, 'text/plain');
    expect(res.status).toBe(415);
    expect(((await res.json()) as { code: string }).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('bytes that decode to the same text are different requests (invalid UTF-8 is never a cached success)', async () => {
    // "\uFFFD" spelled as valid UTF-8 (EF BF BD) vs a lone 0xFF byte, which a lenient decoder would turn into U+FFFD.
    const valid = Buffer.from(calcBody({ amount: 777003, note: '\uFFFD' }));
    const at = valid.indexOf(Buffer.from([0xef, 0xbf, 0xbd]));
    const invalid = Buffer.concat([valid.subarray(0, at), Buffer.from([0xff]), valid.subarray(at + 3)]);
    expect(invalid.toString('utf8')).toBe(valid.toString('utf8'));
    expect((await sendBytes('/v1/payments/calculate', valid)).status).toBe(200);
    const res = await sendBytes('/v1/payments/calculate', invalid);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_REQUEST');
  });

  it('another merchant with the same body gets its own answer (MERCHANT_MISMATCH, not the cached success)', async () => {
    const target = '/v1/payments/calculate';
    const body = calcBody({ amount: 777004 });
    expect((await t.fetch(target, build({ target, body }))).status).toBe(200);
    const as = t.pending;
    const res = await t.fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signatureHeaders(as.apiKey, as.apiSecret, { method: 'POST', target, body, timestamp: String(Math.floor(t.clock.now / 1000)) }) },
      body,
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('MERCHANT_MISMATCH');
  });
});

/** A real HTTP server on the fast path over the test app, with the given handler options (stats, hooks, ...). */
async function listenFastPath(extra: Partial<Parameters<typeof createNodeHandler>[0]>): Promise<{ server: Server; port: number }> {
  const handler = createNodeHandler({
    yoga: t.app.yoga,
    verifier: createSignatureVerifier({
      findActiveKey: (id) => t.store.catalog.findActiveKey(id),
      secretBox: t.data.secretBox,
      maxSkewSeconds: 300,
      bodyLimitBytes: 2048,
      isProtectedPath: () => true,
      now: () => t.clock.now,
    }),
    logger: pino({ level: 'silent' }),
    graphqlEndpoint: '/graphql',
    dataVersion: () => t.store.version(),
    ...extra,
  });
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

describe('ANSWER_CACHE_ENTRIES=0: every request executes', () => {
  let server: Server;
  let port = 0;
  const stats: FastPathStats = { fast: 0, fallback: 0, restListCacheHits: 0, resultCacheHits: 0 };
  beforeAll(async () => {
    ({ server, port } = await listenFastPath({ stats, answerCacheEntries: 0 }));
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('identical requests are both answered on the fast path, neither from the answer cache', async () => {
    t.clock.now = Date.now();
    const target = '/v1/payments/calculate';
    const body = calcBody({ amount: 777005 });
    const first = await fetch(`http://127.0.0.1:${port}${target}`, build({ target, body }));
    const second = await fetch(`http://127.0.0.1:${port}${target}`, build({ target, body }));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await second.text()).toBe(await first.text());
    expect(stats).toMatchObject({ fast: 2, fallback: 0, resultCacheHits: 0 });
  });
});

describe('other plugins hooks run on the fast path (rate limits, metrics)', () => {
  let server: Server;
  let port = 0;
  const seen: { status: number; principal?: string }[] = [];
  let refuse = false;
  let reroute = false;
  const stats: FastPathStats = { fast: 0, fallback: 0, restListCacheHits: 0, resultCacheHits: 0 };
  // Shaped like issue 4's key rate limit and a metrics plugin: onRequest after auth, onResponse counting.
  const probe: Plugin = {
    onRequest({ serverContext, endResponse, setRequest, request, fetchAPI }) {
      const state = requestStateOf(serverContext)!;
      if (refuse) endResponse(errorResponseFor(fetchAPI.Response, state, new AppError('RATE_LIMITED', 'slow down', { retryAfter: 1 }, { 'Retry-After': '1' })));
      if (reroute) setRequest(request);
    },
    onResponse({ serverContext, response }) {
      seen.push({ status: response.status, principal: requestStateOf(serverContext)?.principal?.merchantId });
      response.headers.set('X-Probe', 'seen');
    },
  };

  beforeAll(async () => {
    ({ server, port } = await listenFastPath({ stats, hookPlugins: [probe] }));
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const get = () => fetch(`http://127.0.0.1:${port}/v1/payments/channel`, build({ target: '/v1/payments/channel' }));

  it('onResponse sees the answer (with the principal) and may add headers', async () => {
    t.clock.now = Date.now();
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-probe')).toBe('seen');
    expect(seen.at(-1)).toEqual({ status: 200, principal: t.approved.merchantId });
    expect(stats.fast).toBe(1);
  });

  it('onRequest may refuse (429 problem, Retry-After, request id)', async () => {
    refuse = true;
    const res = await get();
    refuse = false;
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(((await res.json()) as { code: string }).code).toBe('RATE_LIMITED');
    expect(seen.at(-1)?.status).toBe(429);
  });

  it('setRequest hands the request to the full pipeline', async () => {
    reroute = true;
    const before = stats.fallback;
    const res = await get();
    reroute = false;
    expect(res.status).toBe(200);
    expect(stats.fallback).toBe(before + 1);
  });
});
