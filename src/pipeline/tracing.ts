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

/** The traced request's span and the context its work runs in, kept on the Node request while it is open. */
const SERVER_SPAN = Symbol('serverSpan');
interface Traced {
  [SERVER_SPAN]?: { span: Span; context: Context; ended: boolean };
}

/** http.request.method values (OpenTelemetry semantic conventions); anything else is `_OTHER`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** Options of {@link serverSpans}. */
export interface ServerSpanOptions {
  tracer: Tracer;
  trustedProxies: TrustedProxies | null;
  /** Route template of a path (the metrics' bounded set); `unmatched` for anything else. */
  routeOf: (pathname: string) => string;
}

/** What the transport calls when tracing is on. */
export interface ServerSpans {
  /** Start the request's SERVER span (once per request); its context is then {@link contextOf}'s. */
  start(req: IncomingMessage): void;
  /** The context the request's work runs in (its SERVER span active). */
  contextOf(req: IncomingMessage): Context;
  /** End the request's SERVER span with the status sent; later calls do nothing. */
  end(req: IncomingMessage, status: number): void;
}

/** The SERVER span of a request, for the pipeline's hooks (undefined when untraced). */
export function serverSpanOf(req: (IncomingMessage & Traced) | undefined): Span | undefined {
  return req?.[SERVER_SPAN]?.span;
}

export function serverSpans(options: ServerSpanOptions): ServerSpans {
  const { tracer, trustedProxies, routeOf } = options;
  return {
    start(req) {
      const method = METHODS.has(req.method ?? '') ? req.method! : '_OTHER';
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const route = routeOf(q === -1 ? url : url.slice(0, q));
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
      const known = route !== 'unmatched';
      const span = tracer.startSpan(
        known ? `${method} ${route}` : method,
        { kind: SpanKind.SERVER, attributes: known ? { 'http.request.method': method, 'http.route': route } : { 'http.request.method': method }, links },
        parent,
      );
      (req as IncomingMessage & Traced)[SERVER_SPAN] = { span, context: trace.setSpan(parent, span), ended: false };
    },
    contextOf(req) {
      return (req as IncomingMessage & Traced)[SERVER_SPAN]?.context ?? ROOT_CONTEXT;
    },
    end(req, status) {
      const traced = (req as IncomingMessage & Traced)[SERVER_SPAN];
      if (traced === undefined || traced.ended) return;
      traced.ended = true;
      traced.span.setAttribute('http.response.status_code', status);
      // Contract §13: ERROR for 5xx only; a 4xx is the client's mistake, not the server's failure.
      if (status >= 500) traced.span.setStatus({ code: SpanStatusCode.ERROR });
      traced.span.end();
    },
  };
}
