/**
 * GET /metrics (public by default, bearer token when configured, bounded
 * labels), the request log line (fields, nothing secret), and /ready
 * turning not-ready when a shutdown begins. In-process against a temp DB.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app/app.js';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { bootData, type BootedData } from '../../src/app/boot.js';
import { createLogger } from '../../src/shared/logger.js';
import { BASE, makeTempDir } from '../helpers/app.js';

interface Harness {
  app: App;
  data: BootedData;
  lines: string[];
}

const open: { data: BootedData; dir: string }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.data.store.close();
    fs.rmSync(o.dir, { recursive: true, force: true });
  }
});

async function harness(metricsToken: string | null = null): Promise<Harness> {
  const dir = makeTempDir('pgw-metrics-');
  const data = await bootData({ dataDir: dir, masterKey: randomBytes(32), seedDemoData: true });
  open.push({ data, dir });
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const logger = createLogger({ logLevel: 'info', logFormat: 'json' }, sink);
  const app = createApp({ store: data.store, secretBox: data.secretBox, logger, maxSkewSeconds: 300, bodyLimitBytes: 100 * 1024, metrics: { token: metricsToken } });
  return { app, data, lines };
}

function signed(h: Harness, method: 'GET' | 'POST', target: string, body = '', tamper = false) {
  const who = h.data.seeded![0]!;
  const headers: Record<string, string> = signatureHeaders(who.apiKey, who.apiSecret, { method, target, body });
  if (tamper) headers['X-SERVICE-Signature'] = headers['X-SERVICE-Signature']!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
  if (body) headers['content-type'] = 'application/json';
  return { res: h.app.yoga.fetch(`${BASE}${target}`, { method, headers, body: body || undefined }), headers, who };
}

describe('/metrics', () => {
  it('counts requests by route template and status, auth failures by code; raw paths never become labels', async () => {
    const h = await harness();
    expect((await signed(h, 'GET', '/v1/payments/channel').res).status).toBe(200);
    expect((await signed(h, 'GET', '/v1/payments/channel', '', true).res).status).toBe(401);
    expect((await h.app.yoga.fetch(`${BASE}/v1/payments/channel`)).status).toBe(401);
    expect((await h.app.yoga.fetch(`${BASE}/wp-admin/secret-probe-123`)).status).toBe(404);
    expect((await h.app.yoga.fetch(`${BASE}/images/channels/qris.svg`)).status).toBe(200);

    const res = await h.app.yoga.fetch(`${BASE}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('http_requests_total{method="GET",route="/v1/payments/channel",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/v1/payments/channel",status="401"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/images/channels/:file",status="200"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/v1/payments/channel",status="200"} 1');
    expect(text).toContain('auth_failures_total{code="SIGNATURE_MISMATCH"} 1');
    expect(text).toContain('auth_failures_total{code="AUTH_HEADER_MISSING"} 1');
    expect(text).not.toContain('secret-probe-123');
    expect(text).not.toContain('qris.svg');

    expect((await h.app.yoga.fetch(`${BASE}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('with METRICS_TOKEN requires the bearer token', async () => {
    const token = 'metrics-token-0123456789';
    const h = await harness(token);
    const none = await h.app.yoga.fetch(`${BASE}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect((await h.app.yoga.fetch(`${BASE}/metrics`, { headers: { Authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401);
    const ok = await h.app.yoga.fetch(`${BASE}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(text).toContain('http_requests_total{method="GET",route="/metrics",status="401"} 2');
    expect(text).not.toContain('auth_failures_total{'); // metrics-token failures are not merchant auth failures
  });
});

describe('request logs', () => {
  it('one JSON line per request with the request fields, never a secret, signature or body', async () => {
    const h = await harness();
    const body = JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: h.data.seeded![0]!.merchantId, note: 'BODY-MARKER-7f3a' });
    const a = signed(h, 'POST', '/v1/payments/calculate', body);
    const ok = await a.res;
    expect(ok.status).toBe(200);
    const b = signed(h, 'POST', '/graphql', JSON.stringify({ query: '{ paymentChannels { code } }', variables: { m: 'BODY-MARKER-7f3a' } }), true);
    expect((await b.res).status).toBe(401);

    const requestLines = h.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requestLines).toHaveLength(2);
    expect(requestLines[0]).toMatchObject({
      method: 'POST', route: '/v1/payments/calculate', status: 200, merchantId: h.data.seeded![0]!.merchantId, requestId: ok.headers.get('x-request-id'),
    });
    expect(typeof requestLines[0].durationMs).toBe('number');
    expect(requestLines[1]).toMatchObject({ route: '/graphql', status: 401, errorCode: 'SIGNATURE_MISMATCH' });

    const all = h.lines.join('\n');
    for (const secret of h.data.seeded!.map((m) => m.apiSecret)) expect(all).not.toContain(secret);
    expect(all).not.toContain(a.headers['X-SERVICE-Signature']);
    expect(all).not.toContain(b.headers['X-SERVICE-Signature']);
    expect(all).not.toContain('BODY-MARKER-7f3a');
  });

  it('redacts secret-looking fields if anything ever logs them', () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) });
    createLogger({ logLevel: 'info', logFormat: 'json' }, sink).info({ apiSecret: 'sk_test_x', req: { headers: { 'x-service-signature': 'ab' }, body: '{}' } }, 'oops');
    expect(lines.join('')).not.toMatch(/sk_test_x|x-service-signature|"\{\}"/);
  });
});

describe('public pages in metrics and logs', () => {
  it('GraphiQL page loads, /docs and /v1/openapi.json are counted under their own route and logged', async () => {
    const h = await harness();
    const page = await h.app.yoga.fetch(`${BASE}/graphql`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-request-id')).toBeTruthy();
    expect((await h.app.yoga.fetch(`${BASE}/docs`)).status).toBe(200);
    expect((await h.app.yoga.fetch(`${BASE}/v1/openapi.json`)).status).toBe(200);

    const text = await (await h.app.yoga.fetch(`${BASE}/metrics`)).text();
    expect(text).toContain('http_requests_total{method="GET",route="/graphql",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/docs",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/v1/openapi.json",status="200"} 1');
    expect(text).not.toContain('route="unmatched"');

    const requestLines = h.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requestLines[0]).toMatchObject({ method: 'GET', route: '/graphql', status: 200, requestId: page.headers.get('x-request-id') });
    expect(requestLines.map((l) => l.route)).toEqual(['/graphql', '/docs', '/v1/openapi.json', '/metrics']);
  }, 60_000);
});

describe('/ready during shutdown', () => {
  it('answers 503 once a shutdown has begun, while other requests are still served', async () => {
    const h = await harness();
    expect((await h.app.yoga.fetch(`${BASE}/ready`)).status).toBe(200);
    h.app.beginShutdown();
    expect((await h.app.yoga.fetch(`${BASE}/ready`)).status).toBe(503);
    expect((await h.app.yoga.fetch(`${BASE}/health`)).status).toBe(200);
    expect((await signed(h, 'GET', '/v1/payments/channel').res).status).toBe(200);
  });
});
