/**
 * Contract §13: the OpenTelemetry SDK of a server process, started once at boot from the validated
 * configuration (src/shared/config.ts `tracing`), and only when an OTLP endpoint is configured: with tracing
 * off this module's packages are never imported (dynamic imports below), so they cost neither memory nor
 * start-up, and the pipeline's hooks are never installed (src/app/app.ts).
 *
 * What it sets up: a tracer provider with the configured sampler, a batch span processor (spans leave in
 * batches from a timer, never on a request's path) behind a gate that bounds its queue and counts what it
 * turns away, the OTLP/HTTP export (protobuf or JSON), run in a worker thread (./trace-export.ts: the
 * exporter's packages are never loaded in this thread), behind a wrapper that counts failed exports, an id
 * generator drawing from a pool of random bytes, and `requestSpan` (a request sampled once, before any span
 * work: src/shared/tracing.ts); the W3C
 * trace-context propagator (what `traceparent`/`tracestate` mean) and an AsyncLocalStorage context manager
 * (so a Redis command's CLIENT span finds the request's SERVER span as its parent across awaits).
 *
 * The resource is the service name, OTEL_RESOURCE_ATTRIBUTES and the SDK's own `telemetry.sdk.*`; no process
 * or environment detector runs (a command line or an environment may hold a secret, contract §13).
 */
import { randomFillSync } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT, trace, SpanKind, TraceFlags, type Attributes, type Context, type Link, type Span, type SpanOptions } from '@opentelemetry/api';
import type { IdGenerator, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import type { TracingConfig } from '../shared/config.js';
import type { Tracing } from '../shared/tracing.js';
import { WorkerExporter } from './trace-export.js';

/**
 * Finished spans waiting for export at most; past it a span is dropped and counted
 * (`gateway_trace_spans_dropped_total{reason="queue_full"}`): a collector slower than the traffic costs spans,
 * never memory. Exported for the test that drives the queue past it.
 */
export const MAX_QUEUED_SPANS = 2048;

/** What the sampler is shown of a request it decides on (nothing: see requestSpan), shared by every request. */
const NO_ATTRIBUTES: Attributes = Object.freeze({});
const NO_LINKS: Link[] = Object.freeze([]) as unknown as Link[];

/** Spans in one export request at most. */
const MAX_EXPORT_BATCH = 512;

/**
 * Exports in flight to the export worker at most (src/app/trace-export.ts fails one more at once). The batch
 * processor sends one batch at a time from its timer (it waits for each answer: BATCH_TIMEOUT_MS below), and
 * a flush sends the whole queue at once, 4 batches, while the timer's may still be out. Exported for the test
 * that drives exports past it.
 */
export const MAX_EXPORTS_IN_FLIGHT = Math.ceil(MAX_QUEUED_SPANS / MAX_EXPORT_BATCH) + 1;

/** The longest one export may take before it counts as failed (ms); the spans' batch is then dropped. */
const EXPORT_TIMEOUT_MS = 5_000;

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** A 32-bit word read from memory in the machine's byte order, as the same four bytes read big-endian (unsigned). */
function bigEndian(word: number): number {
  return (LITTLE_ENDIAN ? ((word & 0xff) << 24) | ((word & 0xff00) << 8) | ((word >>> 8) & 0xff00) | (word >>> 24) : word) >>> 0;
}

/**
 * How long the export worker's answer is awaited (ms): its exporter's own limit, retries included, and a
 * margin for the messages. The batch processor waits longer still, so that the answer (or this time-out)
 * always settles a batch first: the timer has one batch in flight at a time.
 */
const ANSWER_TIMEOUT_MS = EXPORT_TIMEOUT_MS + 1_000;
const BATCH_TIMEOUT_MS = ANSWER_TIMEOUT_MS + 1_000;

/** What tests change of the export worker (src/app/trace-export.ts): a stand-in module, its time limits. */
export interface TracingOptions {
  exportWorker?: URL;
  restartIntervalMs?: number;
  answerTimeoutMs?: number;
}

/**
 * Trace and span ids from a pool of random bytes (crypto-strength, refilled 4 KB at a time): an id costs a
 * slice of the pool in hex. `nextTraceId` hands a root span the trace id its request's sampling decision was
 * made on ({@link Tracing.requestSpan}): set just before `startSpan`, taken by it (synchronously) or cleared.
 */
export class PooledIds implements IdGenerator {
  nextTraceId: string | undefined;
  /**
   * The last id of {@link freshTraceId} as TraceIdRatioBasedSampler reads it: its four 32-bit words XORed
   * (unsigned). Taken from the bytes, so that a root request's decision needs no parse of the hex.
   */
  lastTraceWord = 0;
  /**
   * The pool as 32-bit words (its own buffer, so word-aligned; ids are 16 or 8 bytes, so an id always starts
   * on a word): a trace id's four words XORed are four array reads, not four `readUInt32BE` calls.
   */
  readonly #words = new Uint32Array(1024);
  readonly #pool = Buffer.from(this.#words.buffer);
  /**
   * The pool in hex, made once per refill: an id is a slice of it (a JS substring, 4× cheaper than a hex
   * conversion per id, which calls into C++). A slice keeps this 8 KB string alive while the id lives (a
   * log line, a span until its export): a few pools at a time.
   */
  #hex = '';
  #at = this.#pool.length;

  #refill(): void {
    randomFillSync(this.#pool);
    this.#hex = this.#pool.toString('hex');
    this.#at = 0;
  }

  #take(bytes: number): string {
    if (this.#at + bytes > this.#pool.length) this.#refill();
    const id = this.#hex.slice(2 * this.#at, 2 * (this.#at + bytes));
    this.#at += bytes;
    // All zeros is the W3C's invalid id (a chance of 2^-64 at least); its last digit made 1 keeps it random enough.
    return id.charCodeAt(id.length - 1) === 0x30 && /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id;
  }

  /** A new trace id, with {@link lastTraceWord} set for it. */
  freshTraceId(): string {
    if (this.#at + 16 > this.#pool.length) this.#refill();
    const words = this.#words;
    const at = this.#at >> 2;
    // XOR commutes with a byte swap: the words read in the machine's order, XORed, then read big-endian.
    const word = bigEndian(words[at]! ^ words[at + 1]! ^ words[at + 2]! ^ words[at + 3]!);
    const id = this.#take(16);
    // The all-zero id's replacement ends in 1: its words XOR to 1.
    this.lastTraceWord = word === 0 && id.endsWith('01') && /^0+1$/.test(id) ? 1 : word;
    return id;
  }

  generateTraceId(): string {
    const pending = this.nextTraceId;
    if (pending === undefined) return this.#take(16);
    this.nextTraceId = undefined;
    return pending;
  }

  generateSpanId(): string {
    return this.#take(8);
  }
}

/**
 * Contract §13's samplers decide a root request (no trusted parent) on its trace id alone: always, never, or
 * TraceIdRatioBasedSampler's rule (the id's four 32-bit words XORed, below the ratio's share of 2^32 − 1;
 * the whole range at 1). The same decision as the SDK's sampler for every id
 * (test/unit/tracing-sampler.test.ts), from the id's bytes: the SDK's parses the hex of every request again.
 */
export function rootDecision(sampler: TracingConfig['sampler'], ratio: number): (traceWord: number) => boolean {
  switch (sampler) {
    case 'always_on':
    case 'parentbased_always_on':
      return () => true;
    case 'always_off':
    case 'parentbased_always_off':
      return () => false;
    case 'traceidratio':
    case 'parentbased_traceidratio': {
      const bound = ratio >= 1 ? 0x100000000 : ratio <= 0 ? 0 : Math.floor(ratio * 0xffffffff);
      return (word) => word < bound;
    }
  }
}

/**
 * Start the SDK (dynamic imports: nothing of it is loaded when tracing is off) and the export worker; rejects
 * when the worker cannot load its exporter.
 */
export async function startTracing(config: TracingConfig, logger: Logger, options: TracingOptions = {}): Promise<Tracing> {
  const [{ BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, AlwaysOnSampler, AlwaysOffSampler, SamplingDecision }, { defaultResource, resourceFromAttributes }, { W3CTraceContextPropagator, ExportResultCode }, { AsyncLocalStorageContextManager }] =
    await Promise.all([import('@opentelemetry/sdk-trace-base'), import('@opentelemetry/resources'), import('@opentelemetry/core'), import('@opentelemetry/context-async-hooks')]);

  const root = (() => {
    switch (config.sampler) {
      case 'always_on':
      case 'parentbased_always_on':
        return new AlwaysOnSampler();
      case 'always_off':
      case 'parentbased_always_off':
        return new AlwaysOffSampler();
      case 'traceidratio':
      case 'parentbased_traceidratio':
        return new TraceIdRatioBasedSampler(config.ratio);
    }
  })();
  // A parent is only ever a trusted balancer's (src/pipeline/tracing.ts keeps anyone else's as a link).
  const sampler = config.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;

  const droppedSpans = new Counter({
    name: 'gateway_trace_spans_dropped_total',
    help: 'Spans not delivered to the OTLP collector: export failed or timed out (export_failed), or the export queue was full (queue_full); requests are never affected.',
    labelNames: ['reason'] as const,
    registers: [],
  });
  // Both reasons are on /metrics from the start (at 0), so an alert can watch either before it first happens.
  droppedSpans.inc({ reason: 'export_failed' }, 0);
  droppedSpans.inc({ reason: 'queue_full' }, 0);
  // One line a minute at most per reason: an unreachable or slow collector must not flood the log.
  const lastWarning = { export_failed: 0, queue_full: 0 };
  const warnOnce = (reason: keyof typeof lastWarning, fields: object, message: string) => {
    const now = Date.now();
    if (now - lastWarning[reason] < 60_000) return;
    lastWarning[reason] = now;
    logger.warn({ ...fields, url: config.url }, message);
  };

  /**
   * Sampled spans between their end and their export request: what the batch processor's queue holds (at most;
   * it hands a batch to the exporter right after taking it off the queue). The gate below keeps it at most
   * MAX_QUEUED_SPANS and counts what it turns away: the batch processor would drop those too, but only
   * tell its diagnostic logger.
   */
  let queued = 0;
  const resource = defaultResource().merge(resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName }));
  const exporter = await WorkerExporter.start({
    data: { url: config.url, headers: config.headers, protocol: config.protocol, resource: resource.attributes, timeoutMillis: EXPORT_TIMEOUT_MS },
    logger,
    answerTimeoutMs: options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS,
    maxInFlight: MAX_EXPORTS_IN_FLIGHT,
    restartIntervalMs: options.restartIntervalMs,
    module: options.exportWorker,
  });
  // Counting wrapper: the SDK reports a failed export only to its diagnostic logger.
  const countingExporter: SpanExporter = {
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
    export: (spans, done) => {
      queued = Math.max(0, queued - spans.length);
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          droppedSpans.inc({ reason: 'export_failed' }, spans.length);
          warnOnce('export_failed', { err: result.error, spans: spans.length }, 'trace export failed; spans dropped (counted in gateway_trace_spans_dropped_total)');
        }
        done(result);
      });
    },
  };
  const batch = new BatchSpanProcessor(countingExporter, { exportTimeoutMillis: BATCH_TIMEOUT_MS, scheduledDelayMillis: config.batchDelayMs, maxQueueSize: MAX_QUEUED_SPANS, maxExportBatchSize: MAX_EXPORT_BATCH });
  const gate: SpanProcessor = {
    onStart: (span, parent) => batch.onStart(span, parent),
    onEnd: (span) => {
      // An unsampled span is never queued (the batch processor ignores it as well).
      if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
      if (queued >= MAX_QUEUED_SPANS) {
        droppedSpans.inc({ reason: 'queue_full' });
        warnOnce('queue_full', { queued }, 'trace export queue full; spans dropped (counted in gateway_trace_spans_dropped_total)');
        return;
      }
      queued += 1;
      batch.onEnd(span);
    },
    forceFlush: () => batch.forceFlush(),
    shutdown: () => batch.shutdown(),
  };

  const ids = new PooledIds();
  const rootDecides = rootDecision(config.sampler, config.ratio);
  const provider = new BasicTracerProvider({
    sampler,
    idGenerator: ids,
    resource,
    spanProcessors: [gate],
  });
  const tracer = provider.getTracer('payment-gateway');
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  logger.info({ url: config.url, protocol: config.protocol, sampler: config.sampler, ratio: config.ratio }, 'tracing on: spans exported over OTLP');
  return {
    tracer,
    droppedSpans,
    requestSpan(parent: Context, links: Link[] | undefined, describe: () => { name: string; options: SpanOptions }): Span {
      const parentIds = parent === ROOT_CONTEXT ? undefined : trace.getSpanContext(parent);
      const traceId = parentIds?.traceId ?? ids.freshTraceId();
      // The configured samplers (OTEL_TRACES_SAMPLER's values) decide on the parent and the trace id alone: a
      // root request (most of them) by rootDecides, a balancer's child by the SDK's sampler.
      const sampled = parentIds === undefined ? rootDecides(ids.lastTraceWord) : sampler.shouldSample(parent, traceId, '', SpanKind.SERVER, NO_ATTRIBUTES, links ?? NO_LINKS).decision !== SamplingDecision.NOT_RECORD;
      if (sampled) {
        const { name, options } = describe();
        ids.nextTraceId = parentIds === undefined ? traceId : undefined;
        try {
          return tracer.startSpan(name, links === undefined ? options : { ...options, links }, parent);
        } finally {
          ids.nextTraceId = undefined;
        }
      }
      // Unsampled: what the SDK would return (a non-recording span with the trace's ids), without its work.
      return trace.wrapSpanContext({ traceId, spanId: ids.generateSpanId(), traceFlags: TraceFlags.NONE, traceState: parentIds?.traceState });
    },
    shutdown: () => provider.shutdown().catch((err: unknown) => logger.warn({ err }, 'flushing the last spans failed')),
  };
}
