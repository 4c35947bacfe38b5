/**
 * Contract §13: the OpenTelemetry SDK of a server process, started once at boot from the validated
 * configuration (src/shared/config.ts `tracing`), and only when an OTLP endpoint is configured: with tracing
 * off this module's packages are never imported (dynamic imports below), so they cost neither memory nor
 * start-up, and the pipeline's hooks are never installed (src/app/app.ts).
 *
 * What it sets up: a tracer provider with the configured sampler, a batch span processor (spans leave in
 * batches from a timer, never on a request's path) and the OTLP/HTTP exporter (protobuf or JSON); the W3C
 * trace-context propagator (what `traceparent`/`tracestate` mean) and an AsyncLocalStorage context manager
 * (so a Redis command's CLIENT span finds the request's SERVER span as its parent across awaits).
 *
 * The resource is the service name, OTEL_RESOURCE_ATTRIBUTES and the SDK's own `telemetry.sdk.*`; no process
 * or environment detector runs (a command line or an environment may hold a secret, contract §13).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import type { TracingConfig } from '../shared/config.js';
import type { Tracing } from '../shared/tracing.js';

/** Finished spans waiting for export at most; past it a span is dropped (a collector slower than the traffic). */
const MAX_QUEUED_SPANS = 2048;

/** The longest one export may take before it counts as failed (ms); the spans' batch is then dropped. */
const EXPORT_TIMEOUT_MS = 5_000;

/** Start the SDK (dynamic imports: nothing of it is loaded when tracing is off). */
export async function startTracing(config: TracingConfig, logger: Logger): Promise<Tracing> {
  const [{ BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, AlwaysOnSampler, AlwaysOffSampler }, { defaultResource, resourceFromAttributes }, { W3CTraceContextPropagator, ExportResultCode }, { AsyncLocalStorageContextManager }, exporterModule] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
      import('@opentelemetry/context-async-hooks'),
      config.protocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
    ]);

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
    help: 'Spans not delivered to the OTLP collector (export failed or timed out); requests are never affected.',
    labelNames: ['reason'] as const,
    registers: [],
  });
  const exporter = new exporterModule.OTLPTraceExporter({ url: config.url, headers: config.headers, timeoutMillis: EXPORT_TIMEOUT_MS });
  // Counting wrapper: the SDK reports a failed export only to its diagnostic logger.
  let lastWarning = 0;
  const countingExporter: SpanExporter = {
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
    export: (spans, done) => {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          droppedSpans.inc({ reason: 'export_failed' }, spans.length);
          // One line a minute at most: an unreachable collector must not flood the log.
          const now = Date.now();
          if (now - lastWarning >= 60_000) {
            lastWarning = now;
            logger.warn({ err: result.error, spans: spans.length, url: config.url }, 'trace export failed; spans dropped (counted in gateway_trace_spans_dropped_total)');
          }
        }
        done(result);
      });
    },
  };

  const provider = new BasicTracerProvider({
    sampler,
    resource: defaultResource().merge(resourceFromAttributes({ ...config.resourceAttributes, 'service.name': config.serviceName })),
    spanProcessors: [new BatchSpanProcessor(countingExporter, { exportTimeoutMillis: EXPORT_TIMEOUT_MS, scheduledDelayMillis: config.batchDelayMs, maxQueueSize: MAX_QUEUED_SPANS, maxExportBatchSize: 512 })],
  });
  trace.setGlobalTracerProvider(provider);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  logger.info({ url: config.url, protocol: config.protocol, sampler: config.sampler, ratio: config.ratio }, 'tracing on: spans exported over OTLP');
  return {
    tracer: provider.getTracer('payment-gateway'),
    droppedSpans,
    shutdown: () => provider.shutdown().catch((err: unknown) => logger.warn({ err }, 'flushing the last spans failed')),
  };
}
