/**
 * `npx tsx bench/tracing-cost.ts [--ratio 0.05] [--requests 200000]`: the CPU that tracing adds to one request,
 * measured in one process without the rest of a request around it: what the transport and the pipeline do for a
 * request when it is not sampled (its sampling decision, ids, the log line's two fields) and when it is (SERVER
 * span, three GraphQL phase spans with their attributes, the span ends, and their export: protobuf to an OTLP
 * receiver in this process, timed with the rest). A CPU-time figure per request that a shared machine's load
 * moves far less than it moves a whole server's (`bench:ab`): the cost at a ratio is
 * `(1 − ratio) × unsampled + ratio × sampled`, to set beside the server's CPU per request with tracing off.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { context, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import pino from 'pino';
import { startTracing } from '../src/app/tracing.js';
import { serverSpanOf, serverSpans } from '../src/pipeline/tracing.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : (args[at + 1] ?? fallback);
};
const requests = Number(option('requests', '200000'));
const ratio = Number(option('ratio', '0.05'));

// The receiver: reads each export request and answers 200 (its CPU is this process's too; left out below).
let receiverCpu = 0;
const receiver = http.createServer((req, res) => {
  const t0 = process.cpuUsage();
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    const d = process.cpuUsage(t0);
    receiverCpu += d.user + d.system;
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;

const logger = pino({ level: 'silent' });
const line = pino({ level: 'info' }, { write: () => undefined });

// The default sampler (parentbased_traceidratio) at ratio 0 and 1: every request takes the path a request
// takes at the default ratio, unsampled or sampled.
async function measure(ratio: 0 | 1, n: number): Promise<number> {
  const tracing = await startTracing({ url, protocol: 'http/protobuf', headers: {}, serviceName: 'bench', resourceAttributes: {}, sampler: 'parentbased_traceidratio', ratio, batchDelayMs: 200 }, logger);
  const spans = serverSpans({ tracing, trustedProxies: null, routeOf: (p) => p });
  const tracer = tracing.tracer;
  const req = () => ({ method: 'POST', url: '/graphql', headers: { host: 'x' }, socket: { remoteAddress: '127.0.0.1' } }) as unknown as IncomingMessage;
  const one = () => {
    const r = req();
    const own = spans.start(r);
    const work = () => {
      const span = serverSpanOf(r)!;
      if (span.isRecording()) {
        const parent = trace.setSpan(ROOT_CONTEXT, span);
        for (const name of ['graphql.parse', 'graphql.validate', 'graphql.execute']) tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: { 'graphql.operation.type': 'query', 'graphql.operation.name': 'Fees' } }, parent).end();
        span.setAttribute('gateway.request_id', 'b3c1f2de-9a8b-4c7d-8e6f-5a4b3c2d1e0f');
        span.setAttribute('gateway.surface', 'graphql');
        span.setAttribute('client.address', '127.0.0.1');
        span.setAttribute('gateway.merchant_id', 'mch_demo_approved');
      }
      const ids = span.spanContext();
      line.info({ requestId: 'b3c1f2de', status: 200, trace_id: ids.traceId, span_id: ids.spanId }, 'request');
    };
    if (own === undefined) work();
    else context.with(own, work);
    spans.end(r, 200);
  };
  for (let i = 0; i < Math.min(n, 5000); i++) one();
  tracing.tracer.startSpan('warm').end();
  receiverCpu = 0;
  const t0 = process.cpuUsage();
  // In slices, so the batch processor's timer and exports run between them as they would between requests.
  for (let done = 0; done < n; ) {
    const slice = Math.min(200, n - done);
    for (let i = 0; i < slice; i++) one();
    done += slice;
    await new Promise((r) => setImmediate(r));
  }
  await tracing.shutdown();
  const d = process.cpuUsage(t0);
  return (d.user + d.system - receiverCpu) / n;
}

// The same request without tracing's part: the log line alone, as with tracing off.
function baseline(n: number): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) line.info({ requestId: 'b3c1f2de', status: 200 }, 'request');
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / n;
}

const rows: string[] = [];
for (let round = 1; round <= 3; round++) {
  const base = baseline(requests);
  const unsampled = (await measure(0, requests)) - base;
  const sampled = (await measure(1, Math.max(2000, Math.round(requests / 10)))) - base;
  rows.push(`round ${round}: unsampled +${unsampled.toFixed(2)} µs, sampled +${sampled.toFixed(2)} µs, at ratio ${ratio}: +${((1 - ratio) * unsampled + ratio * sampled).toFixed(2)} µs per request`);
  process.stdout.write(`${rows[rows.length - 1]}\n`);
}
receiver.close();
