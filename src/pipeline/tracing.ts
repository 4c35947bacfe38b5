/**
 * Contract §13: a request's SERVER span, started by the Node transport when the request arrives (before its
 * fair turn, so a wait for the turn is inside it) and ended when its answer is written (an event stream's:
 * when its first event is written). Only built when tracing is on (src/app/app.ts); with tracing off the
 * transport never calls anything here.
 *
 * Context: a W3C `traceparent` (and `tracestate`) is the span's parent only when the socket peer is a
 * trusted balancer (TRUSTED_PROXIES, contract §6); from anyone else it becomes a span link, so a public
 * client can neither choose what is sampled nor join an operator's trace.
 *
 * Attributes here are the request line's (method, route template); what authentication and the pipeline
 * learn (merchant, surface, request id, error code, client address) is set by `useTracing`
 * (plugins/use-tracing.ts) from the request state. Nothing of a header value, a query string or a body is
 * recorded.
 */
import type { IncomingMessage } from 'node:http';
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span, type Tracer } from '@opentelemetry/api';
import { plainAddress, type TrustedProxies } from '../shared/client-address.js';
import type { Tracing } from '../shared/tracing.js';

/**
 * The request's span and, when it records, the context its work runs in, kept on the Node request while it
 * is open. An unsampled request's span only carries ids: it has no context (its work runs in the root context,
 * so nothing under it makes a span) and nothing to end.
 */
const SERVER_SPAN = Symbol('serverSpan');
interface Traced {
  [SERVER_SPAN]?: { span: Span; context: Context | undefined; ended: boolean };
}

/** http.request.method values (OpenTelemetry semantic conventions); anything else is `_OTHER`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** Options of {@link serverSpans}. */
export interface ServerSpanOptions {
  tracing: Pick<Tracing, 'requestSpan'>;
  trustedProxies: TrustedProxies | null;
  /** Route template of a path (the metrics' bounded set); `unmatched` for anything else. */
  routeOf: (pathname: string) => string;
}

/** What the transport calls when tracing is on. */
export interface ServerSpans {
  /**
   * Start the request's SERVER span (once per request). Returns the context its work runs in (the span
   * active) when the span records, undefined when the request is not sampled.
   */
  start(req: IncomingMessage): Context | undefined;
  /** The context the request's work runs in: its recording SERVER span active, else undefined. */
  contextOf(req: IncomingMessage): Context | undefined;
  /**
   * End the request's SERVER span with the status sent; later calls do nothing. `errorCode`: the contract
   * code of an answer the transport gives itself (shed by the fair lanes, a pipeline failure), which no
   * pipeline hook saw.
   */
  end(req: IncomingMessage, status: number, errorCode?: string): void;
}

/** The SERVER span of a request, for the pipeline's hooks (undefined when untraced). */
export function serverSpanOf(req: (IncomingMessage & Traced) | undefined): Span | undefined {
  return req?.[SERVER_SPAN]?.span;
}

export function serverSpans(options: ServerSpanOptions): ServerSpans {
  const { tracing, trustedProxies, routeOf } = options;
  return {
    start(req) {
      let parent = ROOT_CONTEXT;
      let links: Link[] | undefined;
      if (req.headers.traceparent !== undefined) {
        const extracted = propagation.extract(ROOT_CONTEXT, req.headers);
        const peer = req.socket.remoteAddress;
        if (trustedProxies !== null && peer !== undefined && trustedProxies.trusts(plainAddress(peer))) parent = extracted;
        else {
          const remote = trace.getSpanContext(extracted);
          if (remote !== undefined) links = [{ context: remote }];
        }
      }
      // Name and attributes are worked out only for a span that records.
      const span = tracing.requestSpan(parent, links, () => {
        const method = METHODS.has(req.method ?? '') ? req.method! : '_OTHER';
        const url = req.url ?? '/';
        const q = url.indexOf('?');
        const route = routeOf(q === -1 ? url : url.slice(0, q));
        const known = route !== 'unmatched';
        return {
          name: known ? `${method} ${route}` : method,
          options: { kind: SpanKind.SERVER, attributes: known ? { 'http.request.method': method, 'http.route': route } : { 'http.request.method': method } },
        };
      });
      const recording = span.isRecording();
      const context = recording ? trace.setSpan(parent, span) : undefined;
      (req as IncomingMessage & Traced)[SERVER_SPAN] = { span, context, ended: !recording };
      return context;
    },
    contextOf(req) {
      return (req as IncomingMessage & Traced)[SERVER_SPAN]?.context;
    },
    end(req, status, errorCode) {
      const traced = (req as IncomingMessage & Traced)[SERVER_SPAN];
      if (traced === undefined || traced.ended) return;
      traced.ended = true;
      traced.span.setAttribute('http.response.status_code', status);
      if (errorCode !== undefined) traced.span.setAttribute('gateway.error_code', errorCode);
      // Contract §13: ERROR for 5xx only; a 4xx is the client's mistake, not the server's failure.
      if (status >= 500) traced.span.setStatus({ code: SpanStatusCode.ERROR });
      traced.span.end();
    },
  };
}

/** How long after its last write a change's fan-out is taken as done (ms): no page of it wrote meanwhile. */
const FAN_OUT_QUIET_MS = 250;
/** A change that wrote to no page at all is closed after this long (ms). */
const FAN_OUT_EMPTY_MS = 1000;

/** `performance.now()` as epoch milliseconds (what a span's end time takes). */
const epochMs = (now: number) => performance.timeOrigin + now;

/**
 * Contract §13: one `live.fan_out` span per change that reached this replica while pages were open, from the
 * moment the change is in its catalogue to the last event written for it, with `gateway.live.streams` (pages
 * written) and `gateway.live.last_write_ms`: the time from the change's commit (its change-log row's `at`,
 * handed over by the store's change notification) to the last write, the figure contract §8b bounds by 1 s.
 * `gateway.live.measured_from` says which start it is: `commit`, or `catalogue` for a change without a commit
 * of its own (a full reload, a scheduled rule taking effect), measured from the moment the catalogue had it.
 * The commit time is the database's clock and the writes this replica's: on one machine, or clocks kept in
 * step (NTP), the skew is far below the bound.
 * A change is done when no page wrote for {@link FAN_OUT_QUIET_MS} (the span ends at the last write itself,
 * not then), or when the next change comes. Bound: at most one open span.
 */
export class FanOutSpans {
  /** Open streams now (set by the live-streams plugin). */
  openStreams: () => number = () => 0;
  #current: { span: Span; startedAt: number; committedAt: number | undefined; writes: number; lastWriteAt: number } | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly tracer: Tracer) {}

  /** A change is in the catalogue; `committedAt` (epoch ms) is its commit, when it has one. */
  changed(committedAt?: number): void {
    this.#finish();
    const open = this.openStreams();
    if (open === 0) return;
    const startedAt = performance.now();
    const span = this.tracer.startSpan('live.fan_out', { kind: SpanKind.INTERNAL, attributes: { 'gateway.live.open_streams': open } }, ROOT_CONTEXT);
    this.#current = { span, startedAt, committedAt, writes: 0, lastWriteAt: startedAt };
    this.#arm();
  }

  /** An event was written to a page. */
  wrote(): void {
    const current = this.#current;
    if (current === undefined) return;
    current.writes += 1;
    current.lastWriteAt = performance.now();
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const current = this.#current;
      if (current === undefined) return;
      const now = performance.now();
      if (current.writes > 0 ? now - current.lastWriteAt >= FAN_OUT_QUIET_MS : now - current.startedAt >= FAN_OUT_EMPTY_MS) this.#finish();
      else this.#arm();
    }, FAN_OUT_QUIET_MS);
    this.#timer.unref();
  }

  #finish(): void {
    const current = this.#current;
    if (current === undefined) return;
    this.#current = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    current.span.setAttribute('gateway.live.streams', current.writes);
    const from = current.committedAt === undefined ? epochMs(current.startedAt) : current.committedAt;
    current.span.setAttribute('gateway.live.last_write_ms', Math.round((epochMs(current.lastWriteAt) - from) * 100) / 100);
    current.span.setAttribute('gateway.live.measured_from', current.committedAt === undefined ? 'catalogue' : 'commit');
    current.span.end(epochMs(current.writes > 0 ? current.lastWriteAt : performance.now()));
  }
}
