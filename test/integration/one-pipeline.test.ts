/**
 * One request path: every request, on either transport, goes
 * through the same Yoga pipeline. Checked three ways:
 * - a real Node server (src/pipeline/transport/node-transport.ts) answers exactly like
 *   `yoga.fetch` on the same app and data, success and every error;
 * - a probe plugin sees the same hooks, in the same order, for the same
 *   request on both transports, and `onResponse` exactly once per request,
 *   for every kind of route and outcome;
 * - the answer caches never serve anything stale after a change committed
 *   through another connection (as the admin CLI or another worker would
 *   make it) or through the server's own connection.
 */
import { createServer, request as httpRequest } from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createYoga, type Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import pino from 'pino';
import { assembleApp, createAppParts } from '../../src/app/app.js';
import { DATABASE_FILE } from '../../src/storage/index.js';
import type { GraphQLContext } from '../../src/graphql/context.js';
import { createNodeListener } from '../../src/pipeline/transport/node-transport.js';
import { requestStateOf } from '../../src/pipeline/request-state.js';
import { buildSchema } from '../../src/graphql/schema.js';
import { BASE, createTestApp, type TestApp, type Transport } from '../helpers/app.js';

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
  if (t.sqlTarget.engine === 'sqlite') {
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

/** The same request through the real Node server and through yoga.fetch. */
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

describe('the Node transport answers exactly like yoga.fetch', () => {
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
      const { fast, yoga } = await both(probe());
      expect(fast.status).toBe(200);
      expect(fast).toEqual(yoga);
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
      const { fast, yoga } = await both(probe());
      // Errors: an error status, or (GraphQL execution errors) 200 with `errors`; CORS is a success with CORS headers.
      if (!name.includes('CORS')) expect(fast.status >= 400 || (fast.body as { errors?: unknown[] }).errors?.length).toBeTruthy();
      expect(fast).toEqual(yoga);
    });
  }

  it('body over the limit: 413 problem with the shared renderer', async () => {
    const body = JSON.stringify({ amount: 1, pad: 'x'.repeat(5000) });
    const { fast, yoga } = await both({ target: '/v1/payments/calculate', body });
    expect(fast.status).toBe(413);
    expect(fast).toEqual(yoga);
  });
});

describe('a body left unread ends the connection', () => {
  it('413 past the body limit says Connection: close, and the next request on a new connection is answered', async () => {
    const big = JSON.stringify({ amount: 1, pad: 'x'.repeat(64 * 1024) });
    const port = t.port!;
    const answer = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/payments/calculate', headers: { ...build({ target: '/v1/payments/calculate', body: big }).headers as Record<string, string>, connection: 'keep-alive' } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      });
      req.on('error', reject);
      req.end(big);
    });
    expect(answer).toEqual({ status: 413, connection: 'close' });
    expect((await t.fetch('/v1/payments/channel', build({ target: '/v1/payments/channel' }))).status).toBe(200);
  });

  it('a request without a body answered in the same tick keeps its connection (Node marks it complete only afterwards)', async () => {
    const yoga = createYoga({ schema: buildSchema(), logging: false, plugins: [{ onRequest: ({ endResponse, fetchAPI }) => endResponse(new fetchAPI.Response('ok')) }] });
    const server = createServer(createNodeListener({ yoga: yoga as never, logger: pino({ level: 'silent' }) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const answer = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'GET', path: '/anything', headers: { connection: 'keep-alive' } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer).toEqual({ status: 200, connection: 'keep-alive' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
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
    const hits = t.app.answerCacheStats.restListHits;
    expect((await listFees()).get('ovo')?.fee_info.fee_percentage).toBe(1.5);
    expect(t.app.answerCacheStats.restListHits).toBe(hits + 1); // the second answer came from the cache
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
      const hits = t.app.answerCacheStats.resultHits;
      const first = await t.fetch(target, build({ target, body }));
      // Kept from its second sighting on (the doorkeeper): the second request executes, the third is a hit.
      expect(await (await t.fetch(target, build({ target, body }))).text()).toBe(await first.clone().text());
      expect(t.app.answerCacheStats.resultHits).toBe(hits);
      const second = await t.fetch(target, build({ target, body }));
      expect(t.app.answerCacheStats.resultHits).toBe(hits + 1);
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

describe('ANSWER_CACHE_ENTRIES=0: every request executes', () => {
  it('identical requests are both executed, neither answered from the cache', async () => {
    const off = await createTestApp({ transport: 'node', app: { answerCacheEntries: 0 } });
    try {
      const target = '/v1/payments/calculate';
      const body = JSON.stringify({ amount: 777005, currency: 'IDR', method: 'QRIS', merchantId: off.approved.merchantId });
      const first = await off.signedFetch(target, { method: 'POST', body });
      const second = await off.signedFetch(target, { method: 'POST', body });
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(await second.text()).toBe(await first.text());
      expect(off.app.answerCacheStats.resultHits).toBe(0);
    } finally {
      await off.close();
    }
  });
});

/** Hook calls per request (by X-Request-Id), as a plugin appended to the pipeline sees them. */
function hookProbe(): { plugin: Plugin; calls: Map<string, string[]> } {
  const calls = new Map<string, string[]>();
  // Keyed by the request id the test sends (kept by useRequestContext). Yoga's own health check answers
  // before any of the service's plugins, so there the client's header is the key.
  const note = (id: string | undefined | null, hook: string) => {
    const key = id ?? 'unknown';
    calls.set(key, [...(calls.get(key) ?? []), hook]);
  };
  const idOf = (serverContext: object, request?: Request) => requestStateOf(serverContext)?.id ?? request?.headers.get('x-request-id');
  const plugin: Plugin = {
    onRequest: ({ serverContext, request }) => note(idOf(serverContext, request), 'onRequest'),
    onRequestParse: ({ serverContext, request }) => note(idOf(serverContext, request), 'onRequestParse'),
    onParams: ({ context, request }) => note(idOf(context, request), 'onParams'),
    onExecute: ({ args }) => note((args.contextValue as unknown as GraphQLContext).requestId, 'onExecute'),
    onResultProcess: ({ serverContext, request }) => note(idOf(serverContext, request), 'onResultProcess'),
    onResponse: ({ serverContext, request }) => note(idOf(serverContext, request), 'onResponse'),
  };
  return { plugin, calls };
}

describe('one pipeline: the same hooks run for the same request on both transports', () => {
  const transports: Transport[] = ['in-process', 'node'];
  const apps = new Map<Transport, { t: TestApp; calls: Map<string, string[]> }>();
  beforeAll(async () => {
    for (const transport of transports) {
      const probe = hookProbe();
      apps.set(transport, { t: await createTestApp({ transport, app: { plugins: [probe.plugin] } }), calls: probe.calls });
    }
  });
  afterAll(async () => {
    for (const { t: app } of apps.values()) await app.close();
  });

  const gql = (query: string) => ({ method: 'POST', body: JSON.stringify({ query }) });
  /** [name, target, init, sign, expected status]: every kind of route and outcome. */
  const cases: [string, string, RequestInit, boolean, number][] = [
    ['REST list', '/v1/payments/channel', {}, true, 200],
    ['REST list again (answer cache)', '/v1/payments/channel', {}, true, 200],
    ['REST calculate', '/v1/payments/calculate', { method: 'POST', body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS' }) }, true, 400],
    ['GraphQL query', '/graphql', gql('{ paymentChannels { code } }'), true, 200],
    ['GraphQL query again (kept now)', '/graphql', gql('{ paymentChannels { code } }'), true, 200],
    ['GraphQL query a third time (answer cache)', '/graphql', gql('{ paymentChannels { code } }'), true, 200],
    ['GraphQL syntax error', '/graphql', gql('{ paymentChannels {'), true, 400],
    ['GraphQL resolver error', '/graphql', gql('{ calculateFee(input: {amount: 1, currency: "IDR", method: "qris"}) { fee } }'), true, 200],
    ['unsigned GraphQL', '/graphql', gql('{ paymentChannels { code } }'), false, 401],
    ['unknown path', '/nope', {}, false, 404],
    ['health', '/health', {}, false, 200],
    ['readiness', '/ready', {}, false, 200],
    ['metrics', '/metrics', {}, false, 200],
    ['OpenAPI document', '/v1/openapi.json', {}, false, 200],
    ['GraphiQL page', '/graphql', { headers: { accept: 'text/html' } }, false, 200],
    ['channel image', '/images/channels/ovo.svg', {}, false, 200],
  ];

  it('every request gets exactly one onResponse, and the same hook sequence through yoga.fetch and the Node server', async () => {
    for (const transport of transports) {
      const { t: app } = apps.get(transport)!;
      for (const [name, target, init, sign] of cases) {
        const headers = new Headers(init.headers);
        headers.set('x-request-id', `${transport}-${name.replace(/\W+/g, '-')}`);
        if (init.body !== undefined) headers.set('content-type', 'application/json');
        const res = sign ? await app.signedFetch(target, { ...init, headers }) : await app.fetch(target, { ...init, headers });
        await res.arrayBuffer();
        const expected = cases.find((c) => c[0] === name)![4];
        expect(res.status, `${transport}: ${name}`).toBe(expected);
      }
    }
    const sequences = (transport: Transport) => cases.map(([name]) => apps.get(transport)!.calls.get(`${transport}-${name.replace(/\W+/g, '-')}`) ?? []);
    const inProcess = sequences('in-process');
    expect(sequences('node')).toEqual(inProcess);
    for (const [i, calls] of inProcess.entries()) expect(calls.filter((c) => c === 'onResponse'), cases[i]![0]).toHaveLength(1);
    // An executed GraphQL request passes every stage exactly once; an answer-cache hit ends in onRequest.
    expect(inProcess[3]).toEqual(['onRequest', 'onRequestParse', 'onParams', 'onExecute', 'onResultProcess', 'onResponse']);
    expect(inProcess[4]).toEqual(inProcess[3]);
    expect(inProcess[5]).toEqual(['onResponse']);
    expect(inProcess[8]).toEqual(['onResponse']); // refused by the signature plugin before any later hook
  });
});

describe('assembling an app around part of its pipeline (the benchmark ablations compose their apps this way)', () => {
  it('an app without the metrics plugin has no /metrics route and serves the rest; a part breaking the order is refused', async () => {
    const options = { store: t.store, secretBox: t.data.secretBox, logger: pino({ level: 'silent' }), maxSkewSeconds: 300, bodyLimitBytes: 1024 };
    const parts = createAppParts(options);
    const without = assembleApp(parts, parts.pipeline.filter((e) => e.name !== 'metrics'));
    try {
      expect(without.pluginNames).not.toContain('metrics');
      expect((await without.yoga.fetch(new URL('http://gateway.test/metrics'))).status).toBe(404);
      expect((await without.yoga.fetch(new URL('http://gateway.test/health'))).status).toBe(200);
    } finally {
      await without.close();
    }
    expect((await t.fetch('/metrics')).status).toBe(200);
    const swapped = createAppParts(options);
    const names = swapped.pipeline.map((e) => e.name);
    const reordered = swapped.pipeline.slice();
    const [i, j] = [names.indexOf('httpCaching'), names.indexOf('requestContext')];
    [reordered[i], reordered[j]] = [reordered[j]!, reordered[i]!];
    expect(() => assembleApp(swapped, reordered)).toThrow(/httpCaching must come before requestContext/);
  });
});
