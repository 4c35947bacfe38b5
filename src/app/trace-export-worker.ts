/**
 * Contract §13: the OTLP export of a server's spans (encoding and HTTP sending), run in a worker thread that
 * src/app/trace-export.ts starts. A worker has an isolate of its own: the exporter's HTTP client
 * (ClientRequest, IncomingMessage, sockets) and protobuf writer never run in the server's isolate, so they
 * never widen the hidden classes and inline caches of the node:http, net and stream code that the server's
 * own request path runs there (which would deoptimise it and cost every request more).
 *
 * Input (`workerData`): {@link ExportWorkerData}. Messages in: `{ id, spans }` per batch (answered
 * `{ id, ok, error? }`), `{ shutdown: true }` at the end. Out first: `{ ready: true }` once the exporter is
 * made, or `{ ready: false, error }`. On the shutdown message (or the port closing) the worker ends after the
 * exports under way, and after its exporter's shutdown.
 *
 * This module imports only `node:` modules and packages, and only erasable TypeScript: from src/ Node runs it
 * as it is (type stripping; under tsx, tsx's loader); `npm run build` bundles it beside the server's bundle
 * (scripts/build.mjs).
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Attributes, HrTime, Link, SpanContext, SpanStatus } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';

/** A span context as plain data: its trace state in its W3C serialised form (a TraceState is a class). */
export interface PlainContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: string | undefined;
  isRemote?: boolean | undefined;
}

/**
 * A finished span as plain data (structured-cloned to the worker): what the OTLP serializer of
 * @opentelemetry/otlp-transformer reads of a ReadableSpan. The parent is in the span's trace.
 */
export interface PlainSpan {
  name: string;
  kind: number;
  context: PlainContext;
  parentSpanId?: string | undefined;
  parentIsRemote?: boolean | undefined;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  attributes: Attributes;
  droppedAttributesCount: number;
  status: SpanStatus;
  events: TimedEvent[];
  droppedEventsCount: number;
  links: { context: PlainContext; attributes?: Attributes | undefined; droppedAttributesCount?: number | undefined }[];
  droppedLinksCount: number;
  scope: { name: string; version?: string | undefined; schemaUrl?: string | undefined };
}

export interface ExportWorkerData {
  /** The OTLP/HTTP traces URL (config.tracing.url). */
  url: string;
  headers: Record<string, string>;
  protocol: 'http/protobuf' | 'http/json';
  /** The server's resource: its attributes as the tracer provider has them (service name, SDK, OTEL_RESOURCE_ATTRIBUTES). */
  resource: Attributes;
  /** The exporter's limit for one export, retries included (ms). */
  timeoutMillis: number;
}

export type ToExportWorker = { id: number; spans: PlainSpan[] } | { shutdown: true };
export type FromExportWorker = { ready: true } | { ready: false; error: string } | { id: number; ok: boolean; error?: string };

/** Instrumentation scopes kept for reuse at most (see load). */
const MAX_SCOPES = 64;

type Exporter = { export(spans: ReadableSpan[], done: (result: ExportResult) => void): void; shutdown(): Promise<void> };

interface Loaded {
  exporter: Exporter;
  rebuild: (span: PlainSpan) => ReadableSpan;
  succeeded: (result: ExportResult) => boolean;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The exporter of `init`'s protocol, and how a plain span becomes the ReadableSpan it reads. */
async function load(init: ExportWorkerData): Promise<Loaded> {
  const [{ TraceState, ExportResultCode }, { resourceFromAttributes }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    init.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
  ]);
  // One resource object for every span, and one scope object per scope: the protobuf serializer groups spans
  // by their identity (as the SDK's spans share their tracer's). The scopes are the server's tracers, a
  // handful; past MAX_SCOPES a scope gets an object per span (valid OTLP, only less grouped).
  const resource = resourceFromAttributes(init.resource);
  const scopes = new Map<string, PlainSpan['scope']>();
  const scopeOf = (s: PlainSpan['scope']): PlainSpan['scope'] => {
    const key = `${s.name}@${s.version ?? ''}:${s.schemaUrl ?? ''}`;
    const known = scopes.get(key);
    if (known !== undefined) return known;
    if (scopes.size < MAX_SCOPES) scopes.set(key, s);
    return s;
  };
  const context = (p: PlainContext): SpanContext => ({
    traceId: p.traceId,
    spanId: p.spanId,
    traceFlags: p.traceFlags,
    ...(p.traceState !== undefined ? { traceState: new TraceState(p.traceState) } : {}),
    ...(p.isRemote !== undefined ? { isRemote: p.isRemote } : {}),
  });
  const rebuild = (p: PlainSpan): ReadableSpan => {
    const ctx = context(p.context);
    const links: Link[] = p.links.map((l) => ({
      context: context(l.context),
      ...(l.attributes !== undefined ? { attributes: l.attributes } : {}),
      ...(l.droppedAttributesCount !== undefined ? { droppedAttributesCount: l.droppedAttributesCount } : {}),
    }));
    return {
      name: p.name,
      kind: p.kind,
      spanContext: () => ctx,
      parentSpanContext:
        p.parentSpanId === undefined ? undefined : { traceId: ctx.traceId, spanId: p.parentSpanId, traceFlags: ctx.traceFlags, ...(p.parentIsRemote !== undefined ? { isRemote: p.parentIsRemote } : {}) },
      startTime: p.startTime,
      endTime: p.endTime,
      duration: p.duration,
      ended: true,
      status: p.status,
      attributes: p.attributes,
      links,
      events: p.events,
      resource,
      instrumentationScope: scopeOf(p.scope),
      droppedAttributesCount: p.droppedAttributesCount,
      droppedEventsCount: p.droppedEventsCount,
      droppedLinksCount: p.droppedLinksCount,
    };
  };
  const exporter = new OTLPTraceExporter({ url: init.url, headers: init.headers, timeoutMillis: init.timeoutMillis });
  // The exporter's transport imports node:http(s) on its first send. Importing it as an ES module evaluates all
  // of its exports, which loads undici and http2 (about 90 ms of this thread's CPU): done here, before `ready`,
  // so the first batch does not pay it. The transport's own import then finds the module loaded.
  await import(new URL(init.url).protocol === 'https:' ? 'node:https' : 'node:http');
  return { exporter, rebuild, succeeded: (result) => result.code === ExportResultCode.SUCCESS };
}

function serve(port: MessagePort, init: ExportWorkerData): void {
  const loading = load(init);
  loading.then(
    () => port.postMessage({ ready: true } satisfies FromExportWorker),
    (err: unknown) => port.postMessage({ ready: false, error: describe(err) } satisfies FromExportWorker),
  );
  let underWay = 0;
  let closing = false;
  let ending = false;
  const finish = () => {
    if (!closing || underWay > 0 || ending) return;
    ending = true;
    // The exporter's sockets would keep the thread alive: it ends here. Every export was answered already, so
    // an exporter that fails to shut down (or never loaded) has nothing left to tell anyone.
    void loading
      .then(({ exporter }) => exporter.shutdown())
      .catch(() => undefined)
      .finally(() => process.exit(0));
  };
  // Listening from the start: a batch that arrives while the exporter loads waits for it here.
  port.on('message', (m: ToExportWorker) => {
    if ('shutdown' in m) {
      closing = true;
      finish();
      return;
    }
    underWay += 1;
    const settle = (ok: boolean, error?: string) => {
      underWay -= 1;
      port.postMessage((ok ? { id: m.id, ok } : { id: m.id, ok, error: error ?? 'export failed' }) satisfies FromExportWorker);
      finish();
    };
    loading.then(
      ({ exporter, rebuild, succeeded }) => {
        let spans: ReadableSpan[];
        try {
          spans = m.spans.map(rebuild);
        } catch (err) {
          settle(false, `a span could not be rebuilt: ${describe(err)}`);
          return;
        }
        exporter.export(spans, (result) => settle(succeeded(result), result.error?.message));
      },
      (err: unknown) => settle(false, `the exporter did not load: ${describe(err)}`),
    );
  });
  port.on('close', () => {
    closing = true;
    finish();
  });
}

if (parentPort !== null) serve(parentPort, workerData as ExportWorkerData);
