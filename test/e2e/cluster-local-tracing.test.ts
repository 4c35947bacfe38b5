/**
 * Contract §13 through the real cluster: `npm run cluster:local --otlp URL` (HAProxy, three replicas, Postgres,
 * Redis) exporting to an OTLP/HTTP receiver inside the test. One GraphQL request through HAProxy is one
 * trace: the balancer's trace id (made by HAProxy, written in its log line), the replica's SERVER span under
 * HAProxy's span id, its graphql.* spans and the Redis CLIENT span of its budget. One change made by the admin
 * CLI is a live.fan_out span on every replica with an open page.
 *
 * The request's trace is shown with `npm run trace:show`'s waterfall, and written to TRACE_CAPTURE as OTLP JSON
 * when that variable is set (docs/OPERATIONS.md shows the waterfall of such a capture).
 *
 * One pass (npm test): it runs on Postgres in every pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import { makeTempDir } from '../helpers/app.js';
import { clusterMerchant, startClusterLocal, type LocalCluster } from '../helpers/cluster-local.js';
import { localServicesSkipReason } from '../helpers/local-services.js';
import { admin } from '../helpers/ops.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { CHANNELS_SUBSCRIPTION, openEventStream, type EventStreamReader } from '../helpers/sse.js';
import { waterfall } from '../../scripts/trace-show.js';

type OtlpJson = { resourceSpans: { resource?: unknown; scopeSpans: { scope?: unknown; spans: { traceId: string }[] }[] }[] };

/** An export request cut down to one trace's spans. */
function onlyTrace(e: OtlpJson, traceId: string): OtlpJson {
  return {
    resourceSpans: e.resourceSpans
      .map((rs) => ({ ...rs, scopeSpans: rs.scopeSpans.map((ss) => ({ ...ss, spans: ss.spans.filter((s) => s.traceId === traceId) })).filter((ss) => ss.spans.length > 0) }))
      .filter((rs) => rs.scopeSpans.length > 0),
  };
}

const skip = localServicesSkipReason('postgres', 'redis', 'haproxy');
const SERVER_KIND = 2;
const CLIENT_KIND = 3;

let cluster: LocalCluster | undefined;
let receiver: OtlpReceiver | undefined;
let workDir: string | undefined;

beforeAll(async () => {
  if (skip) return;
  receiver = await startOtlpReceiver();
  workDir = makeTempDir('pgw-cluster-otel-');
  cluster = await startClusterLocal({
    dataDir: path.join(workDir, 'cluster'),
    args: ['--otlp', receiver.url],
    // Every trace kept (the default ratio would keep 1 in 20), as JSON, exported every 200 ms.
    env: { LOG_LEVEL: 'warn', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200' },
  });
}, 150_000);

afterAll(async () => {
  await cluster?.stop();
  await receiver?.close();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
}, 60_000);

/** The cluster's env file as variables (DATABASE_URL, MASTER_KEY, DATA_DIR…), for the admin CLI. */
function clusterEnv(): Record<string, string> {
  const text = fs.readFileSync(cluster!.ready.envFile, 'utf8');
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).replace(/^'(.*)'$/, '$1')]),
  );
}

describe.skipIf(skip)('contract §13 through cluster:local', () => {
  it('one GraphQL request through HAProxy: the balancer’s trace id (in its log), the replica’s SERVER span, graphql.* and the Redis CLIENT span', async () => {
    const who = clusterMerchant(cluster!.ready);
    const body = JSON.stringify({ query: 'query Checkout($i: CalculateFeeInput!) { calculateFee(input: $i) { totalAmount } }', operationName: 'Checkout', variables: { i: { amount: 150000, currency: 'IDR', method: 'QRIS' } } });
    const res = await fetch(`${cluster!.ready.balancer}/graphql`, {
      method: 'POST',
      headers: { ...signatureHeaders(who.apiKey, who.apiSecret, { method: 'POST', target: '/graphql', body }), 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const spans = await receiver!.waitFor((all) => {
      const root = all.find((s) => s.kind === SERVER_KIND && s.attributes['gateway.request_id'] === requestId);
      return root !== undefined && ['graphql.parse', 'graphql.validate', 'graphql.execute'].every((n) => all.some((s) => s.parentSpanId === root.spanId && s.name === n)) && all.some((s) => s.parentSpanId === root.spanId && s.kind === CLIENT_KIND);
    });
    const root = spans.find((s) => s.kind === SERVER_KIND && s.attributes['gateway.request_id'] === requestId)!;
    expect(root.name).toBe('POST /graphql');
    // The parent is HAProxy's (the replica trusts it: TRUSTED_PROXIES), so the trace is the balancer's.
    expect(root.parentSpanId).toMatch(/^[0-9a-f]{16}$/);
    expect(root.attributes['client.address']).toBe('127.0.0.1');
    expect(String(root.resource['service.instance.id'])).toMatch(/^replica\d$/);
    const redis = spans.find((s) => s.parentSpanId === root.spanId && s.kind === CLIENT_KIND)!;
    expect(redis.attributes['db.system.name']).toBe('redis');
    expect(redis.traceId).toBe(root.traceId);
    const log = () => fs.readFileSync(path.join(cluster!.ready.haproxy.dir, 'haproxy.log'), 'utf8');
    for (let i = 0; i < 50 && !log().includes(`trace_id=${root.traceId}`); i++) await new Promise((r) => setTimeout(r, 100));
    expect(log()).toContain(`trace_id=${root.traceId}`);
    // The trace's spans as OTLP JSON export requests, one per line (what `npm run trace:show` reads).
    const capture = receiver!.bodies
      .filter((b) => b.contentType.startsWith('application/json'))
      .map((b) => onlyTrace(JSON.parse(b.bytes.toString('utf8')) as OtlpJson, root.traceId))
      .filter((e) => e.resourceSpans.length > 0);
    const shown = waterfall(capture as unknown as Parameters<typeof waterfall>[0], root.traceId).join('\n');
    for (const name of ['POST /graphql', 'graphql.parse', 'graphql.validate', 'graphql.execute', 'EVALSHA']) expect(shown).toContain(name);
    if (process.env.TRACE_CAPTURE) fs.writeFileSync(process.env.TRACE_CAPTURE, `${capture.map((e) => JSON.stringify(e)).join('\n')}\n`);
  });

  it('one change by the admin CLI: a live.fan_out span on every replica with an open page', async () => {
    const who = clusterMerchant(cluster!.ready);
    const streams: EventStreamReader[] = [];
    try {
      for (const replica of cluster!.ready.replicas) {
        const stream = await openEventStream(CHANNELS_SUBSCRIPTION, { as: who, fetch: (target, init) => fetch(`${replica.url}${target}`, init) });
        streams.push(stream);
        await stream.waitFor((s) => s.events.length >= 1, 10_000, `the first event from ${replica.url}`);
      }
      const before = receiver!.spans().length;
      const r = await admin(cluster!.ready.dataDir, ['channel', 'update', 'bca_va', '--fee-value', '4321'], clusterEnv());
      expect(r.code, r.stderr).toBe(0);
      for (const stream of streams) await stream.waitFor((s) => s.events.length >= 2, 10_000, 'the change’s event');
      const spans = await receiver!.waitFor((all) => new Set(all.slice(before).filter((s) => s.name === 'live.fan_out').map((s) => s.resource['service.instance.id'])).size === 3);
      for (const fanOut of spans.slice(before).filter((s) => s.name === 'live.fan_out')) {
        expect(fanOut.attributes['gateway.live.streams']).toBeGreaterThanOrEqual(1);
        // Timed from the change's commit (its change-log row in Postgres), which came before any replica had it.
        expect(fanOut.attributes['gateway.live.measured_from']).toBe('commit');
        expect(fanOut.attributes['gateway.live.last_write_ms'] as number).toBeGreaterThanOrEqual(Number(fanOut.endNs - fanOut.startNs) / 1e6 - 1);
      }
      // Each replica's catch-up read the change from Postgres: a span with its queries under it.
      const catchUp = spans.slice(before).find((s) => s.name === 'catalogue.catch_up');
      expect(catchUp).toBeDefined();
      expect(spans.some((s) => s.parentSpanId === catchUp!.spanId && s.kind === CLIENT_KIND && s.attributes['db.system.name'] === 'postgresql')).toBe(true);
    } finally {
      await Promise.all(streams.map((s) => s.close()));
    }
  }, 30_000);
});
