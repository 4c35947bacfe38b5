/**
 * Contract §13 against real servers (`npm start`) exporting to an OTLP/HTTP receiver inside the test:
 * the SERVER span of a request with its attributes and its GraphQL phase spans, a public peer's
 * `traceparent` kept as a link and a trusted balancer's taken as the parent, trace ids in the request log
 * and as exemplars, an unreachable collector costing spans (counted) but no request, and no secret or
 * request value in any exported byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/app.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { PROJECT_ROOT, startServer, type RunningServer } from '../helpers/server.js';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { admin } from '../helpers/ops.js';
import { databaseUrlForDataDir, TEST_ENGINE } from '../helpers/engine.js';
import { DATABASE_FILE } from '../../src/storage/index.js';
import { CHANNELS_SUBSCRIPTION, openEventStream } from '../helpers/sse.js';

const SERVER_KIND = 2;
const INTERNAL_KIND = 1;
const CLIENT_KIND = 3;

let receiver: OtlpReceiver;
let protoReceiver: OtlpReceiver;
/** Untrusted peers, http/json, every trace sampled. */
let server: RunningServer;
/** 127.0.0.1 is a trusted balancer, http/protobuf, the default sampler (parent-based, 5 %). */
let trusting: RunningServer;
const roots: string[] = [];

/** Everything a request sent that must never be exported, gathered as the tests send it. */
const secrets = new Set<string>();

beforeAll(async () => {
  [receiver, protoReceiver] = await Promise.all([startOtlpReceiver(), startOtlpReceiver()]);
  const dirs = [makeTempDir('pgw-otel-'), makeTempDir('pgw-otel-')];
  roots.push(...dirs);
  [server, trusting] = await Promise.all([
    startServer(path.join(dirs[0]!, 'data'), {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'gw-under-test',
      LOG_FORMAT: 'json',
    }),
    startServer(path.join(dirs[1]!, 'data'), { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${protoReceiver.url}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '100', TRUSTED_PROXIES: '127.0.0.1', LOG_FORMAT: 'json' }),
  ]);
  for (const m of server.credentials().concat(trusting.credentials())) secrets.add(m.apiSecret);
}, 60_000);

afterAll(async () => {
  await Promise.all([server?.stop(), trusting?.stop()]);
  await Promise.all([receiver?.close(), protoReceiver?.close()]);
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

/** A signed request whose signature is remembered as a secret. */
async function signed(on: RunningServer, target: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const as = on.credentials().find((m) => m.kyc === 'approved')!;
  const method = init.method ?? 'GET';
  const body = init.body ?? '';
  const headers = signatureHeaders(as.apiKey, as.apiSecret, { method, target, body });
  for (const [name, value] of Object.entries(headers)) if (/signature/i.test(name)) secrets.add(value);
  return fetch(`${on.baseUrl}${target}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}), ...init.headers }, body: body || undefined });
}

/** The newest change-log row's `at` in the server's database (either engine). */
async function lastChangeAt(dataDir: string): Promise<string> {
  const url = databaseUrlForDataDir(path.resolve(dataDir));
  if (url !== undefined) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return ((await client.query('select at from change_log order by seq desc limit 1')).rows[0] as { at: string }).at;
    } finally {
      await client.end();
    }
  }
  const db = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    return (db.prepare('select at from change_log order by seq desc limit 1').get() as { at: string }).at;
  } finally {
    db.close();
  }
}

const serverSpanOf = (spans: ReceivedSpan[], requestId: string) => spans.find((s) => s.kind === SERVER_KIND && s.attributes['gateway.request_id'] === requestId);

describe('contract §13: traces', () => {
  it('a REST calculation: one SERVER span `POST /v1/payments/calculate` with the contract attributes; its trace id in the request log line', async () => {
    const res = await signed(server, '/v1/payments/calculate', {
      method: 'POST',
      body: JSON.stringify({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: server.credentials().find((m) => m.kyc === 'approved')!.merchantId, chargeFeeToCustomer: true }),
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const spans = await receiver.waitFor((all) => serverSpanOf(all, requestId) !== undefined);
    const span = serverSpanOf(spans, requestId)!;
    expect(span.name).toBe('POST /v1/payments/calculate');
    expect(span.service).toBe('gw-under-test');
    expect(span.parentSpanId).toBe('');
    expect(span.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/payments/calculate',
      'http.response.status_code': 200,
      'client.address': '127.0.0.1',
      'gateway.merchant_id': server.credentials().find((m) => m.kyc === 'approved')!.merchantId,
      'gateway.surface': 'rest',
    });
    expect(span.status.code ?? 0).not.toBe(2);
    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes(`"requestId":"${requestId}"`));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ trace_id: span.traceId, span_id: span.spanId });
  });

  it('GraphQL: graphql.parse, graphql.validate and graphql.execute under the SERVER span, with the operation type and name only', async () => {
    const query = 'query Fees($i: CalculateFeeInput!) { calculateFee(input: $i) { totalAmount quote { token } } }';
    // A refused variable value must not leave either (the scan below).
    const refused = await signed(server, '/graphql', { method: 'POST', body: JSON.stringify({ query, operationName: 'Fees', variables: { i: { amount: '150000.37', currency: 'IDR', method: 'QRIS' } } }) });
    expect(refused.status).toBe(400);
    secrets.add('150000.37');
    const res = await signed(server, '/graphql', { method: 'POST', body: JSON.stringify({ query, operationName: 'Fees', variables: { i: { amount: 150000, currency: 'IDR', method: 'QRIS' } } }) });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { data: { calculateFee: { quote: { token: string } } } };
    secrets.add(answer.data.calculateFee.quote.token);
    const requestId = res.headers.get('x-request-id')!;
    const spans = await receiver.waitFor((all) => {
      const root = serverSpanOf(all, requestId);
      return root !== undefined && all.filter((s) => s.parentSpanId === root.spanId).length >= 3;
    });
    const root = serverSpanOf(spans, requestId)!;
    expect(root.name).toBe('POST /graphql');
    expect(root.attributes['gateway.surface']).toBe('graphql');
    const children = spans.filter((s) => s.parentSpanId === root.spanId);
    for (const name of ['graphql.parse', 'graphql.validate', 'graphql.execute']) {
      const phase = children.find((s) => s.name === name);
      expect(phase, name).toBeDefined();
      expect(phase!.kind).toBe(INTERNAL_KIND);
      expect(phase!.traceId).toBe(root.traceId);
      expect(phase!.attributes).toEqual({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'Fees' });
      expect(phase!.startNs >= root.startNs && phase!.endNs <= root.endNs).toBe(true);
    }
    if (TEST_ENGINE === 'postgres') {
      // The server's first quote with its signing key records the key's TTL in Postgres before the token is
      // given: queries made by the request, so CLIENT spans under its SERVER span, their values parameters.
      const queries = (await receiver.waitFor((all) => all.some((s) => s.parentSpanId === root.spanId && s.kind === CLIENT_KIND))).filter((s) => s.parentSpanId === root.spanId && s.kind === CLIENT_KIND);
      expect(queries.every((q) => q.attributes['db.system.name'] === 'postgresql' && q.traceId === root.traceId)).toBe(true);
      expect(queries.some((q) => /^update/i.test(String(q.attributes['db.query.text'])) && String(q.attributes['db.query.text']).includes('$1'))).toBe(true);
    }
  });

  it('a public peer’s traceparent is only a link: a new trace, sampled by this server', async () => {
    const foreignTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await signed(server, '/v1/payments/channel', { headers: { traceparent: `00-${foreignTrace}-00f067aa0ba902b7-01` } });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const span = serverSpanOf(await receiver.waitFor((all) => serverSpanOf(all, requestId) !== undefined), requestId)!;
    expect(span.traceId).not.toBe(foreignTrace);
    expect(span.parentSpanId).toBe('');
    expect(span.links).toEqual([{ traceId: foreignTrace, spanId: '00f067aa0ba902b7' }]);
  });

  it('a trusted balancer’s traceparent is the parent (its sampled flag decides), exported as protobuf', async () => {
    const balancerTrace = '0af7651916cd43dd8448eb211c80319c';
    const res = await signed(trusting, '/v1/payments/channel', { headers: { traceparent: `00-${balancerTrace}-b7ad6b7169203331-01` } });
    expect(res.status).toBe(200);
    const traceBytes = Buffer.from(balancerTrace, 'hex');
    const parentBytes = Buffer.from('b7ad6b7169203331', 'hex');
    const deadline = Date.now() + 15_000;
    while (!protoReceiver.bodies.some((b) => b.bytes.includes(traceBytes)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const body = protoReceiver.bodies.find((b) => b.bytes.includes(traceBytes));
    expect(body, 'an export carrying the balancer’s trace id').toBeDefined();
    expect(body!.contentType).toBe('application/x-protobuf');
    expect(body!.bytes.includes(parentBytes)).toBe(true);
    expect(body!.bytes.includes(Buffer.from('GET /v1/payments/channel'))).toBe(true);
  });

  it('an unsampled request’s log line still names its trace: the balancer’s trace id and a span id of its own, nothing exported', async () => {
    const balancerTrace = '5d0c2a9e41f3b8c7a6e5d4c3b2a19081';
    // Flag 00: the balancer did not sample it, so neither does the replica (parent-based).
    const res = await signed(trusting, '/v1/payments/channel', { headers: { traceparent: `00-${balancerTrace}-1a2b3c4d5e6f7081-00` } });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    // Without a traceparent, at the default ratio: a trace id of its own whichever way it is sampled.
    const plain = await signed(trusting, '/v1/payments/channel');
    expect(plain.status).toBe(200);
    const lineOf = (id: string) => {
      const line = trusting
        .output()
        .split('\n')
        .find((l) => l.includes(`"requestId":"${id}"`));
      return line === undefined ? undefined : (JSON.parse(line) as { trace_id?: string; span_id?: string });
    };
    for (let i = 0; i < 50 && (lineOf(requestId) === undefined || lineOf(plain.headers.get('x-request-id')!) === undefined); i++) await new Promise((r) => setTimeout(r, 50));
    const line = lineOf(requestId)!;
    expect(line.trace_id).toBe(balancerTrace);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(line.span_id).not.toBe('1a2b3c4d5e6f7081');
    expect(lineOf(plain.headers.get('x-request-id')!)).toMatchObject({ trace_id: expect.stringMatching(/^[0-9a-f]{32}$/), span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    // Another exported batch has gone out since (the sampled request of the test above, or this server's
    // timer): none of them carries the unsampled trace.
    await new Promise((r) => setTimeout(r, 400));
    expect(protoReceiver.bodies.some((b) => b.bytes.includes(Buffer.from(balancerTrace, 'hex')))).toBe(false);
  });

  it('the request-duration histogram carries a trace id as an exemplar in OpenMetrics only; the text format is unchanged', async () => {
    await signed(server, '/v1/payments/channel');
    const open = await fetch(`${server.baseUrl}/metrics`, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } });
    expect(open.headers.get('content-type')).toContain('application/openmetrics-text');
    const openText = await open.text();
    expect(openText).toMatch(/^http_request_duration_seconds_bucket\{[^}]*route="\/v1\/payments\/channel"[^}]*\} \d+ # \{trace_id="[0-9a-f]{32}",span_id="[0-9a-f]{16}"\}/m);
    expect(openText.trimEnd().endsWith('# EOF')).toBe(true);
    const plain = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(plain).not.toContain('trace_id');
    expect(plain).toMatch(/^http_requests_total\{/m);
    expect(plain).toMatch(/^# TYPE gateway_trace_spans_dropped_total counter/m);
  });

  it('an unreachable collector loses spans, counted on /metrics, never a request', async () => {
    receiver.failWith = 503;
    try {
      for (let i = 0; i < 5; i++) expect((await signed(server, '/v1/payments/channel')).status).toBe(200);
      const deadline = Date.now() + 15_000;
      let dropped = 0;
      while (dropped === 0 && Date.now() < deadline) {
        const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
        dropped = Number(/^gateway_trace_spans_dropped_total\{reason="export_failed"\} (\d+)/m.exec(text)?.[1] ?? 0);
        if (dropped === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(dropped).toBeGreaterThan(0);
    } finally {
      receiver.failWith = null;
    }
  });

  it('a checkout session’s client secret and a refused request’s values never leave in a span', async () => {
    const as = server.credentials().find((m) => m.kyc === 'approved')!;
    const created = await signed(server, '/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ merchantId: as.merchantId, amount: 150000, currency: 'IDR' }) });
    expect(created.status).toBeLessThan(300);
    const clientSecret = ((await created.json()) as { clientSecret: string }).clientSecret;
    secrets.add(clientSecret);
    const listed = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${clientSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ paymentChannels { code } }' }),
    });
    expect(listed.status).toBe(200);
    expect(serverSpanOf(await receiver.waitFor((all) => serverSpanOf(all, listed.headers.get('x-request-id')!) !== undefined), listed.headers.get('x-request-id')!)!.attributes['gateway.surface']).toBe('graphql');
    // A refused signature's values: a wrong secret and a literal in the document.
    const bad = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...signatureHeaders(as.apiKey, 'sk_test_not-the-secret-zq81', { method: 'POST', target: '/graphql', body: '{"query":"{ x(literal: \\"LITERAL-zq81\\") }"}' }), 'content-type': 'application/json' },
      body: '{"query":"{ x(literal: \\"LITERAL-zq81\\") }"}',
    });
    expect(bad.status).toBe(401);
    secrets.add('LITERAL-zq81');
    const requestId = bad.headers.get('x-request-id')!;
    await receiver.waitFor((all) => serverSpanOf(all, requestId) !== undefined);
    expect(serverSpanOf(receiver.spans(), requestId)!.attributes['gateway.error_code']).toBe('SIGNATURE_MISMATCH');
  });

  it('an event stream’s SERVER span ends with its first event; a change is a catch-up span and one live.fan_out span naming the pages written', async () => {
    const as = server.credentials().find((m) => m.kyc === 'approved')!;
    const stream = await openEventStream(CHANNELS_SUBSCRIPTION, { as, fetch: (target, init) => fetch(`${server.baseUrl}${target}`, init) });
    try {
      await stream.waitFor((s) => s.events.length >= 1, 10_000, 'the first event');
      // Exported while the stream is still open: the span ended at the first event, not at the stream's end.
      await receiver.waitFor((all) => all.some((s) => s.kind === SERVER_KIND && s.name === 'POST /graphql' && s.attributes['gateway.surface'] === 'graphql' && all.some((c) => c.parentSpanId === s.spanId && c.name === 'graphql.subscribe')));
      const r = await admin(server.dataDir, ['channel', 'update', 'bca_va', '--status', 'maintenance']);
      expect(r.code, r.stderr).toBe(0);
      await stream.waitFor((s) => s.events.length >= 2, 10_000, 'the change’s event');
      const spans = await receiver.waitFor((all) => all.some((s) => s.name === 'live.fan_out') && all.some((s) => s.name === 'catalogue.catch_up'));
      const fanOut = spans.find((s) => s.name === 'live.fan_out')!;
      expect(fanOut.attributes['gateway.live.streams']).toBeGreaterThanOrEqual(1);
      // Measured from the change's commit: the span's end (the last write) less last_write_ms is its change-log row's `at`.
      expect(fanOut.attributes['gateway.live.measured_from']).toBe('commit');
      const lastWriteMs = fanOut.attributes['gateway.live.last_write_ms'] as number;
      const committedAt = Date.parse(await lastChangeAt(server.dataDir));
      expect(Math.abs(Number(fanOut.endNs) / 1e6 - lastWriteMs - committedAt)).toBeLessThan(1);
      // The commit came before the catalogue had the change (where the span starts).
      expect(committedAt).toBeLessThanOrEqual(Number(fanOut.startNs) / 1e6 + 1);
      expect(spans.find((s) => s.name === 'catalogue.catch_up')!.attributes['gateway.catalogue.changes']).toBeGreaterThanOrEqual(1);
    } finally {
      await stream.close();
    }
  }, 30_000);

  it('no exported byte (either protocol) holds an API secret, a signature, a client secret, a quote token or a request value', () => {
    const exported = receiver.bodies.concat(protoReceiver.bodies);
    expect(exported.length).toBeGreaterThan(0);
    expect(secrets.size).toBeGreaterThan(6);
    for (const { bytes } of exported) {
      for (const secret of secrets) expect(bytes.includes(Buffer.from(secret)), `exported bytes contain ${secret.slice(0, 12)}…`).toBe(false);
    }
  });

  it('tracing off: the bundle imports no OpenTelemetry SDK package at start (only on demand)', () => {
    const bundle = fs.readFileSync(path.join(PROJECT_ROOT, 'dist/main.mjs'), 'utf8');
    expect(bundle).not.toMatch(/^import [^\n]*from "@opentelemetry\/(sdk-|exporter-|resources|core|context-)/m);
    expect(bundle).toContain('import("@opentelemetry/sdk-trace-base")');
  });
});
