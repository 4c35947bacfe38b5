/**
 * Contract §13: what the parts of the service receive when tracing is on. The SDK itself is started by the
 * composition root (src/app/tracing.ts) and only then; everything else sees this interface and
 * `@opentelemetry/api`, and does nothing at all when it is handed none (tracing off: one `null` test at most,
 * decided at boot).
 */
import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import type { Counter } from 'prom-client';

/** Tracing of a server process (AppOptions.tracing); absent or null = off. */
export interface Tracing {
  tracer: Tracer;
  /** `gateway_trace_spans_dropped_total{reason}`: spans the collector never got; the app registers it. */
  droppedSpans: Counter<'reason'>;
  /**
   * A request's SERVER span, sampled before anything else is done for it: the configured sampler decides on
   * `parent` (a trusted balancer's context, or the root) and the trace id. Sampled: the tracer's recording span,
   * named and described by `describe` (called only then), with `links`. Unsampled (most requests at the
   * default ratio): a non-recording span that only carries the trace's ids (the parent's trace id, or a new
   * one, and a new span id) for the request's log line, at the cost of one object: no attributes, no
   * context to propagate, nothing queued.
   */
  requestSpan(parent: Context, links: Link[] | undefined, describe: () => { name: string; options: SpanOptions }): Span;
  /** Export what is buffered and stop. */
  shutdown(): Promise<void>;
}

/**
 * A CLIENT span for one call to a database or Redis, child of the active span, or undefined when nothing is
 * active: a call outside a request or a background span (a heartbeat's lease renewal) would only be a trace
 * of its own with one span. `attributes` must hold no value of the call (contract §13: statements without
 * values, never arguments).
 */
export function startClientSpan(tracer: Tracer, name: string, attributes: Attributes): Span | undefined {
  const parent = context.active();
  if (trace.getSpan(parent) === undefined) return undefined;
  return tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
}

/** End a span with ERROR and the error's class name only (a message may quote a value). */
export function endWithError(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', err instanceof Error ? err.name : 'Error');
  span.end();
}

/** Run `work` inside a new INTERNAL span (a background span when nothing is active), ending it with the work. */
export async function inSpan<T>(tracer: Tracer, name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const result = await work(span);
      span.end();
      return result;
    } catch (err) {
      endWithError(span, err);
      throw err;
    }
  });
}
