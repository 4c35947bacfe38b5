/**
 * Every answer carries `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and a
 * Content-Security-Policy with `frame-ancestors 'none'`; the pages (GraphiQL, /docs) carry their own strict
 * policy (scripts and styles by hash where the page allows it, never 'unsafe-eval', never inline scripts
 * without a hash), every other answer the policy under which nothing runs. Over real HTTP through the
 * app's Node listener, on every surface: data, errors, images, event streams, 304s, Yoga's health
 * answers, and the answers Node writes itself (400, 431). The pages in a browser:
 * test/e2e/graphiql-chromium.test.ts.
 */
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTemplateOf } from '../../src/shared/routes.js';
import { cspHash, inlineElementsOf, NOT_A_PAGE_POLICY } from '../../src/shared/security-headers.js';
import { observeClientErrors } from '../../src/pipeline/transport/client-errors.js';
import { CHANNELS_SUBSCRIPTION, openEventStream } from '../helpers/sse.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let limited: TestApp;
beforeAll(async () => {
  t = await createTestApp({ transport: 'node' });
  // One request per key and one failed authentication per address: the limiters' 429s are reachable.
  limited = await createTestApp({ transport: 'node', app: { rateLimit: { keyRatePerSecond: 0.001, keyBurst: 1, authFailuresPerMinute: 1 } } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await limited?.close();
});

/** The headers every answer carries, whatever it is. */
function expectEveryAnswerHeaders(headers: Headers, what: string): void {
  expect(headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(headers.get('x-frame-options'), what).toBe('DENY');
  expect(headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
}

/** An answer that is not a page: nothing may run or load in it. */
function expectNotAPage(res: Response, what: string): void {
  expectEveryAnswerHeaders(res.headers, what);
  expect(res.headers.get('content-security-policy'), what).toBe(NOT_A_PAGE_POLICY);
}

const CALC = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: '3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13' });

describe('API answers: nosniff, not framed, nothing runs', () => {
  it('data, errors and public answers on every surface', async () => {
    const merchantCalc = JSON.stringify({ ...JSON.parse(CALC), merchantId: t.approved.merchantId });
    const cases: [string, () => Promise<Response>, number][] = [
      ['REST list', () => t.signedFetch('/v1/payments/channel'), 200],
      ['REST calculate', () => t.signedFetch('/v1/payments/calculate', { method: 'POST', body: merchantCalc }), 200],
      ['GraphQL query', () => t.signedFetch('/graphql', { method: 'POST', body: '{"query":"{ paymentChannels { code } }"}' }), 200],
      ['REST without signature (401)', () => t.fetch('/v1/payments/channel'), 401],
      ['GraphQL without signature (401)', () => t.fetch('/graphql', { method: 'POST', body: '{"query":"{ paymentChannels { code } }"}', headers: { 'content-type': 'application/json' } }), 401],
      ['REST bad body (400)', () => t.signedFetch('/v1/payments/calculate', { method: 'POST', body: '{"amount":' }), 400],
      ['GraphQL syntax error (400)', () => t.signedFetch('/graphql', { method: 'POST', body: '{"query":"{"}' }), 400],
      ['wrong method (405)', () => t.signedFetch('/v1/payments/channel', { method: 'DELETE' }), 405],
      ['unknown route (404)', () => t.signedFetch('/v1/payments/nope'), 404],
      ['body over the limit (413)', () => t.signedFetch('/v1/payments/calculate', { method: 'POST', body: `{"pad":"${'x'.repeat(200 * 1024)}"}` }), 413],
      ['channel image (SVG)', () => t.fetch('/images/channels/qris.svg'), 200],
      ['unknown image (404)', () => t.fetch('/images/channels/nope.svg'), 404],
      ['OpenAPI document', () => t.fetch('/v1/openapi.json'), 200],
      ['favicon', () => t.fetch('/favicon.ico'), 200],
      ['health (Yoga)', () => t.fetch('/health'), 200],
      ['readiness', () => t.fetch('/ready'), 200],
      ['metrics', () => t.fetch('/metrics'), 200],
      ['GraphiQL page without Accept: text/html (an API request, 401)', () => t.fetch('/graphql'), 401],
    ];
    for (const [what, send, status] of cases) {
      const res = await send();
      expect(res.status, what).toBe(status);
      expectNotAPage(res, what);
    }
  });

  it('304s of API answers (ETag)', async () => {
    const first = await t.signedFetch('/v1/payments/channel');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await t.signedFetch('/v1/payments/channel', { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expectNotAPage(again, 'REST 304');
  });

  it('the limiters\' 429s (per key, and the address budget that replaces a 401)', async () => {
    expect((await limited.signedFetch('/v1/payments/channel')).status).toBe(200);
    const perKey = await limited.signedFetch('/v1/payments/channel');
    expect(perKey.status).toBe(429);
    expectNotAPage(perKey, 'per-key 429');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await limited.signedFetch('/v1/payments/channel', { as: { ...limited.approved, apiSecret: 'sk_test_wrong' } });
      statuses.push(res.status);
      expectNotAPage(res, `failed authentication ${i + 1} (${res.status})`);
    }
    expect(statuses).toContain(429);
  });

  it('an event stream', async () => {
    const stream = await openEventStream(CHANNELS_SUBSCRIPTION, { as: t.approved, fetch: (target, init) => t.streamFetch(target, init) });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toContain('text/event-stream');
      expectEveryAnswerHeaders(stream.headers, 'SSE');
      expect(stream.headers.get('content-security-policy')).toBe(NOT_A_PAGE_POLICY);
    } finally {
      await stream.close();
    }
  });
});

describe('the pages: their own strict policy', () => {
  const HTML = { Accept: 'text/html', 'Accept-Encoding': 'identity' };

  it('GraphiQL: its inline scripts by hash, no eval, no inline script without a hash; the 304 carries the same', async () => {
    const res = await t.fetch('/graphql', { headers: HTML });
    expect(res.status).toBe(200);
    const html = await res.text();
    expectEveryAnswerHeaders(res.headers, 'GraphiQL');
    const policy = res.headers.get('content-security-policy')!;
    const directives = new Map(policy.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    // Exactly the page's inline scripts, by the hash of the bytes served.
    const { scripts } = inlineElementsOf(html);
    expect(scripts.length).toBe(2);
    expect(directives.get('script-src')?.sort()).toEqual(scripts.map(cspHash).sort());
    expect(policy).not.toContain('unsafe-eval');
    expect(directives.get('script-src')).not.toContain("'unsafe-inline'");
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('worker-src')).toEqual(['blob:']);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'none'"]);

    const notModified = await t.fetch('/graphql', { headers: { ...HTML, 'If-None-Match': res.headers.get('etag')! } });
    expect(notModified.status).toBe(304);
    expectEveryAnswerHeaders(notModified.headers, 'GraphiQL 304');
    expect(notModified.headers.get('content-security-policy')).toBe(policy);
  }, 60_000);

  it('/docs: no script at all, its one inline style by hash', async () => {
    const res = await t.fetch('/docs');
    expect(res.status).toBe(200);
    const html = await res.text();
    expectEveryAnswerHeaders(res.headers, '/docs');
    const { scripts, styles } = inlineElementsOf(html);
    expect(scripts).toEqual([]);
    expect(res.headers.get('content-security-policy')).toBe(
      `default-src 'none'; style-src ${styles.map(cspHash).join(' ')}; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    // A HEAD and a refused method carry them too.
    expectEveryAnswerHeaders((await t.fetch('/docs', { method: 'HEAD' })).headers, '/docs HEAD');
    const post = await t.fetch('/docs', { method: 'POST' });
    expect(post.status).toBe(405);
    expectNotAPage(post, '/docs POST');
  });
});

describe('answers Node writes itself, outside the pipeline', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer(t.app.handler);
    observeClientErrors(server, { logger: pino({ level: 'silent' }), registry: t.app.metricsRegistry, routeOf: routeTemplateOf });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** Send raw bytes; resolve with everything the server wrote before closing. */
  function rawExchange(bytes: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(bytes));
      let got = '';
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
  }

  it.each([
    ['400 (unparsable request)', 'NOT-HTTP\r\n\r\n', 400],
    ['431 (headers over the limit)', `GET /v1/payments/channel HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('%s', async (_what, bytes, status) => {
    const answer = await rawExchange(bytes);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    const head = answer.split('\r\n\r\n')[0]!.toLowerCase();
    expect(head).toContain('\r\nx-content-type-options: nosniff\r\n');
    expect(head).toContain('\r\nx-frame-options: deny\r\n');
    expect(head).toContain(`\r\ncontent-security-policy: ${NOT_A_PAGE_POLICY.toLowerCase()}\r\n`);
  });
});
