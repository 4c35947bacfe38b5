/**
 * Contract §13, the OTLP export in a worker thread (src/app/trace-export.ts, src/app/trace-export-worker.ts):
 * - the bytes a collector receives, over either protocol, are those the OTLP exporter sends when it runs in
 *   this thread on the same spans (links, events, trace state, a remote parent, two scopes, dropped counts),
 *   with the configured headers;
 * - a worker that crashes or exits fails its exports; a new one starts with a later export, at most one per
 *   restart interval (driven past it); a worker that gives no answer in time fails its export and is stopped;
 * - at most MAX_EXPORTS_IN_FLIGHT exports are in flight (driven past it; a full queue's flush stays within it);
 * - a worker that cannot load its exporter stops the start; shutdown waits for the exports in flight.
 * Stand-in workers (data: URLs that wrap the real module or replace it) make the faults deterministic.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { ExportResultCode, TraceState, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WorkerExporter, type WorkerExporterOptions } from '../../src/app/trace-export.js';
import { MAX_EXPORTS_IN_FLIGHT } from '../../src/app/tracing.js';
import type { ExportWorkerData } from '../../src/app/trace-export-worker.js';

/** A collector that keeps every request's headers and body, and holds its answers while `hold` is set. */
async function collector() {
  const received: { headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  const held: http.ServerResponse[] = [];
  const state = { hold: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      if (state.hold) held.push(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    received,
    state,
    release() {
      state.hold = false;
      for (const res of held.splice(0)) res.writeHead(200).end();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A worker module from its source (a data: URL; it reaches packages only through the real module it imports). */
const standIn = (source: string) => new URL(`data:text/javascript,${encodeURIComponent(source)}`);
const REAL_WORKER = new URL('../../src/app/trace-export-worker.ts', import.meta.url).href;
/** The real worker, but it ends (`fault`) on a batch holding a span named `fault-now`. */
const faulty = (fault: string) =>
  standIn(`
    import { parentPort } from 'node:worker_threads';
    parentPort.on('message', (m) => { if (m.spans?.some((s) => s.name === 'fault-now')) { ${fault} } });
    await import(${JSON.stringify(REAL_WORKER)});
  `);
/** A worker that is ready at once and never answers an export. */
const silent = standIn(`import { parentPort } from 'node:worker_threads'; parentPort.postMessage({ ready: true }); parentPort.on('message', () => {});`);

const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'gw-unit', 'deployment.environment.name': 'test' }));
const logLines: { level: number; msg: string }[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line) as { level: number; msg: string }) });

/** Spans with everything the serializer reads: several kinds and scopes, a remote parent with trace state, links, events, an error status, dropped attributes. */
function sampleSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(memory)], spanLimits: { attributeCountLimit: 8 } });
  const tracer = provider.getTracer('payment-gateway');
  const other = provider.getTracer('other-scope', '1.2.3');
  const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED, isRemote: true, traceState: new TraceState('vendor=x,other=y') });
  const root = tracer.startSpan(
    'POST /graphql',
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': 'POST', 'http.response.status_code': 200, ratio: 0.25, ok: true, tags: ['a', 'b'], sizes: [1, 2, 3] },
      links: [{ context: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED, traceState: new TraceState('k=v') }, attributes: { why: 'peer' } }],
    },
    remote,
  );
  root.addEvent('first write', { bytes: 120 });
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream' });
  const inRoot = trace.setSpan(ROOT_CONTEXT, root);
  const child = tracer.startSpan('graphql.execute', { kind: SpanKind.INTERNAL }, inRoot);
  for (let i = 0; i < 12; i++) child.setAttribute(`a${i}`, i);
  child.end();
  other.startSpan('EVALSHA', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'redis' } }, inRoot).end();
  tracer.startSpan('catalogue.catch_up').end();
  root.end();
  const spans = memory.getFinishedSpans();
  expect(spans).toHaveLength(4);
  expect(spans.find((s) => s.name === 'graphql.execute')!.droppedAttributesCount).toBe(4);
  return spans;
}

function exportWith(exporter: { export(spans: ReadableSpan[], done: (r: ExportResult) => void): void }, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

let target: Awaited<ReturnType<typeof collector>>;
const started: WorkerExporter[] = [];
const data = (over: Partial<ExportWorkerData> = {}): ExportWorkerData => ({ url: target.url, headers: {}, protocol: 'http/json', resource: resource.attributes, timeoutMillis: 5_000, ...over });
async function start(over: Partial<WorkerExporterOptions> = {}): Promise<WorkerExporter> {
  const exporter = await WorkerExporter.start({ data: data(), logger, answerTimeoutMs: 30_000, maxInFlight: MAX_EXPORTS_IN_FLIGHT, ...over });
  started.push(exporter);
  return exporter;
}

beforeAll(async () => {
  target = await collector();
});
afterEach(async () => {
  target.release();
  await Promise.all(started.splice(0).map((e) => e.shutdown()));
  target.received.length = 0;
  logLines.length = 0;
});
afterAll(() => target.close());

describe('the bytes a collector receives', () => {
  it.each([
    ['http/json', JsonExporter, 'application/json'],
    ['http/protobuf', ProtoExporter, 'application/x-protobuf'],
  ] as const)('%s: the same bytes as the exporter sends from this thread, with the configured headers', async (protocol, Exporter, contentType) => {
    const spans = sampleSpans();
    const headers = { 'x-collector-key': 'k-123' };
    const inThread = new Exporter({ url: target.url, headers, timeoutMillis: 5_000 });
    expect((await exportWith(inThread, spans)).code).toBe(ExportResultCode.SUCCESS);
    await inThread.shutdown();
    const exporter = await start({ data: data({ protocol, headers }) });
    expect((await exportWith(exporter, spans)).code).toBe(ExportResultCode.SUCCESS);
    expect(target.received).toHaveLength(2);
    const [expected, actual] = target.received as [(typeof target.received)[number], (typeof target.received)[number]];
    expect(actual.headers['content-type']).toBe(contentType);
    expect(actual.headers['x-collector-key']).toBe('k-123');
    // The serialised trace state and the remote parent crossed too (they are in the bytes compared below).
    expect(actual.body.includes(Buffer.from('vendor=x,other=y'))).toBe(true);
    expect(actual.body.equals(expected.body)).toBe(true);
  });
});

describe('a worker that crashes, exits or hangs', () => {
  const faultSpan = () => {
    const memory = new InMemorySpanExporter();
    new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer('t').startSpan('fault-now').end();
    return memory.getFinishedSpans();
  };
  const okSpans = () => sampleSpans().slice(0, 1);

  it.each([
    ['throws', "throw new Error('boom');", /exited \(code 1\)/],
    ['exits', 'process.exit(7);', /exited \(code 7\)/],
  ])('%s: its export fails; a new worker starts with a later export, at most one per restart interval', async (_name, fault, reason) => {
    const bounded = await start({ module: faulty(fault), restartIntervalMs: 3_600_000 });
    const failed = await exportWith(bounded, faultSpan());
    expect(failed.code).toBe(ExportResultCode.FAILED);
    expect(failed.error?.message).toMatch(reason);
    // Within the interval: later exports fail at once, and no worker is started.
    for (let i = 0; i < 3; i++) {
      const later = await exportWith(bounded, okSpans());
      expect(later.code).toBe(ExportResultCode.FAILED);
      expect(later.error?.message).toMatch(/down/);
    }
    expect(bounded.starts).toBe(1);
    expect(logLines.some((l) => l.level === 40 && /trace export worker exited/.test(l.msg))).toBe(true);

    // Past the interval (here at once): the next export starts a new worker, which exports.
    const restarting = await start({ module: faulty(fault), restartIntervalMs: 0 });
    expect((await exportWith(restarting, faultSpan())).code).toBe(ExportResultCode.FAILED);
    const received = target.received.length;
    expect((await exportWith(restarting, okSpans())).code).toBe(ExportResultCode.SUCCESS);
    expect(restarting.starts).toBe(2);
    expect(target.received.length).toBe(received + 1);
    expect(logLines.some((l) => /starting a new trace export worker/.test(l.msg))).toBe(true);
  });

  it('an export without an answer in time fails and its worker is stopped; a new one exports', async () => {
    const hanging = standIn(`
      import { parentPort } from 'node:worker_threads';
      parentPort.on('message', (m) => { if (m.spans?.some((s) => s.name === 'fault-now')) for (;;); });
      await import(${JSON.stringify(REAL_WORKER)});
    `);
    // Long enough for a new worker to load its exporter and export on a loaded machine.
    const exporter = await start({ module: hanging, answerTimeoutMs: 5_000, restartIntervalMs: 0 });
    const failed = await exportWith(exporter, faultSpan());
    expect(failed.code).toBe(ExportResultCode.FAILED);
    expect(failed.error?.message).toMatch(/no answer .* within 5000 ms/);
    expect(logLines.some((l) => /gave no answer in time; it is stopped/.test(l.msg))).toBe(true);
    const later = await exportWith(exporter, okSpans());
    expect(later.error).toBeUndefined();
    expect(later.code).toBe(ExportResultCode.SUCCESS);
    expect(exporter.starts).toBe(2);
  });
});

describe('exports in flight are bounded', () => {
  it(`past ${MAX_EXPORTS_IN_FLIGHT} exports in flight, one more fails at once; those in flight fail at their time-out`, async () => {
    const exporter = await start({ module: silent, answerTimeoutMs: 300, restartIntervalMs: 3_600_000 });
    const results: (ExportResult | undefined)[] = [];
    const spans = sampleSpans();
    for (let i = 0; i < MAX_EXPORTS_IN_FLIGHT + 3; i++) exporter.export(spans, (r) => (results[i] = r));
    // Answered synchronously: exactly those past the bound.
    expect(results.slice(0, MAX_EXPORTS_IN_FLIGHT).every((r) => r === undefined)).toBe(true);
    const refused = results.slice(MAX_EXPORTS_IN_FLIGHT);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expect(r?.code).toBe(ExportResultCode.FAILED);
      expect(r?.error?.message).toMatch(/already in flight/);
    }
    await exporter.forceFlush();
    for (const r of results.slice(0, MAX_EXPORTS_IN_FLIGHT)) expect(r?.error?.message).toMatch(/no answer/);
  });
});

describe('start and shutdown', () => {
  it.each([
    ['refuses', `import { parentPort } from 'node:worker_threads'; parentPort.postMessage({ ready: false, error: 'no exporter here' });`, /did not start: no exporter here/],
    ['throws', `throw new Error('cannot load');`, /did not start: cannot load/],
    ['exits', `process.exit(3);`, /did not start: it exited with code 3/],
  ])('a worker that %s at start stops the start', async (_name, source, message) => {
    await expect(WorkerExporter.start({ data: data(), logger, answerTimeoutMs: 1_000, maxInFlight: 1, module: standIn(source) })).rejects.toThrow(message);
  });

  it('shutdown waits for the exports in flight, ends the worker, and later exports fail', async () => {
    const exporter = await start();
    target.state.hold = true;
    let result: ExportResult | undefined;
    exporter.export(sampleSpans(), (r) => (result = r));
    while (target.received.length === 0) await new Promise((r) => setTimeout(r, 10));
    let shut = false;
    const shutting = exporter.shutdown().then(() => (shut = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(shut).toBe(false);
    target.release();
    await shutting;
    expect(result?.code).toBe(ExportResultCode.SUCCESS);
    const later = await exportWith(exporter, sampleSpans());
    expect(later.code).toBe(ExportResultCode.FAILED);
    expect(later.error?.message).toMatch(/shut down/);
  });
});
