/**
 * Prometheus metrics: `GET /metrics` in the text exposition format, and the
 * per-request measurements behind it.
 *
 * - `http_requests_total{method,route,status}` and
 *   `http_request_duration_seconds{method,route,status}` (histogram) for
 *   every response, including early ones (404, auth failures, /metrics);
 * - `auth_failures_total{code}` for SVC1 failures on the protected routes;
 * - `gateway_catalogue_age_seconds`: seconds since the in-memory catalogue was
 *   last known current (about the poll interval normally; grows while the
 *   database cannot be reached, contract §6), read at scrape time;
 * - the usual process metrics (`process_*`, `nodejs_*`) when the caller
 *   enables them on its registry.
 *
 * Label cardinality is bounded: `route` is one of the known route templates
 * given by `routeOf` (anything else is `unmatched`), `method` one of the
 * standard methods or `OTHER`, `code` one of the contract's codes.
 *
 * Access: public unless a token is configured (METRICS_TOKEN), in which case
 * `Authorization: Bearer <token>` is required (compared in constant time).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AppError, AUTH_ERROR_CODES } from '../../shared/errors.js';
import { loggedStatus, requestStateOf } from '../request-state.js';
import { getOrHeadAnswer, getOrHeadOnly, problemResponse } from '../responses.js';

/** Options of {@link useMetrics}. */
export interface MetricsOptions {
  /** Registry the metrics are registered in and served from (one per app). */
  registry: Registry;
  /** Path of the exposition endpoint. */
  path: string;
  /** Bearer token required to read metrics; null = public. */
  token: string | null;
  /** Route template of a request path, from a fixed set (bounded label values). */
  routeOf: (pathname: string) => string;
  /** Seconds since the catalogue was last known current (the store's); absent: no gauge. */
  catalogueAgeSeconds?: () => number;
  /** Contract §15: full catalogue loads swapped in (start, a replaced database, a replica behind the pruned log); absent: no gauge. */
  catalogueReloads?: () => number;
  /**
   * Contract §13, while tracing is on: a sampled request's trace id (and span id) is kept as an exemplar of
   * the duration histogram, shown when /metrics is asked for OpenMetrics (`Accept: application/openmetrics-text`).
   */
  exemplars?: boolean;
}

/** The contract codes counted as authentication failures. */
export const AUTH_FAILURE_CODES: ReadonlySet<string> = new Set(AUTH_ERROR_CODES);

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Latency buckets in seconds: sub-millisecond in-process work up to slow uploads. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function useMetrics(options: MetricsOptions): Plugin {
  const { registry, path } = options;
  if (!path.startsWith('/')) throw new Error('useMetrics: path must start with "/"');
  if (options.token !== null && options.token.length < 16) throw new Error('useMetrics: token must be at least 16 characters');
  const expected = options.token === null ? null : digest(options.token);

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const exemplars = options.exemplars === true;
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration in seconds (first byte in to response ready), by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: BUCKETS,
    enableExemplars: exemplars,
    // prom-client refuses exemplars on a registry whose default format is Prometheus text; registered by
    // hand below instead (the text format leaves exemplars out, OpenMetrics prints them).
    registers: exemplars ? [] : [registry],
  });
  if (exemplars) registry.registerMetric(duration);
  const authFailures = new Counter({
    name: 'auth_failures_total',
    help: 'Rejected SVC1 authentication attempts by contract error code.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  // Gauges read from the store when /metrics is scraped (nothing per request); absent readers: no gauge.
  const readAtScrape = (name: string, help: string, read: (() => number) | undefined) => {
    if (read) new Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
  };
  readAtScrape(
    'gateway_catalogue_reloads',
    'Full catalogue loads swapped in since the process started (1 after start; more only when the database was replaced or restored, or the replica fell behind the pruned change log).',
    options.catalogueReloads,
  );
  readAtScrape(
    'gateway_catalogue_age_seconds',
    'Seconds since the in-memory catalogue was last known current; grows while the database cannot be reached (served up to MAX_STALENESS_SECONDS).',
    options.catalogueAgeSeconds,
  );

  /**
   * The counter and histogram children of one label set, bound once, so a request builds no label object
   * and no status string. prom-client's children still validate and hash the labels on every call (its
   * share of a cached REST list stayed ≈ 3 % in bench:profile); removing that means keeping the counts
   * here and handing them to the registry at scrape time (not done: about 3 % of a cached answer).
   * The key space is bounded (fixed methods × route templates × statuses), so the map stays small.
   */
  const bound = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  function childrenOf(method: string, route: string, status: number) {
    const key = `${method} ${route} ${status}`;
    let children = bound.get(key);
    if (children === undefined) {
      const labels = { method, route, status: String(status) };
      children = { count: requests.labels(labels), time: duration.labels(labels) };
      bound.set(key, children);
    }
    return children;
  }

  /**
   * The registry in OpenMetrics (exemplars included). prom-client renders a registry in its one content type and,
   * for OpenMetrics, renames counters in place (drops `_total`): the registry is switched for this rendering and
   * every name restored after, and renderings never overlap (a Prometheus scrape meanwhile waits its turn).
   */
  let rendering: Promise<unknown> = Promise.resolve();
  const switchable = registry as unknown as { setContentType(type: string): void };
  function openMetricsText(): Promise<string> {
    const turn = rendering.then(async () => {
      const names = registry.getMetricsAsArray().map((m) => [m, (m as unknown as { name: string }).name] as const);
      switchable.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
      try {
        return await registry.metrics();
      } finally {
        switchable.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
        for (const [metric, name] of names) (metric as unknown as { name: string }).name = name;
      }
    });
    rendering = turn.catch(() => undefined);
    return turn;
  }
  function prometheusText(): Promise<string> {
    const turn = rendering.then(() => registry.metrics());
    rendering = turn.catch(() => undefined);
    return turn;
  }

  function authorized(request: Request): boolean {
    if (expected === null) return true;
    const header = request.headers.get('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    // Hashing both sides gives equal-length buffers for the constant-time compare.
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  }

  /** GET /metrics (the registry's collection may wait). */
  async function serveMetrics(request: Request, serverContext: object, endResponse: (r: Response) => void, fetchAPI: { Response: typeof Response }): Promise<void> {
    const requestId = requestStateOf(serverContext)?.id ?? '';
    const refused = getOrHeadOnly(fetchAPI.Response, request.method, path, requestStateOf(serverContext));
    if (refused) return endResponse(refused);
    if (!authorized(request)) {
      const error = request.headers.has('authorization')
        ? new AppError('INVALID_API_KEY', 'The metrics token does not match METRICS_TOKEN.', {}, { 'WWW-Authenticate': 'Bearer realm="metrics"' })
        : new AppError('AUTH_HEADER_MISSING', `${path} requires Authorization: Bearer <METRICS_TOKEN>.`, {}, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
      const state = requestStateOf(serverContext);
      if (state) state.errorCode = error.code;
      endResponse(problemResponse(fetchAPI.Response, error, requestId));
      return;
    }
    const openMetrics = exemplars && (request.headers.get('accept') ?? '').includes('application/openmetrics-text');
    const body = openMetrics ? await openMetricsText() : exemplars ? await prometheusText() : await registry.metrics();
    const contentType = openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : registry.contentType;
    endResponse(getOrHeadAnswer(fetchAPI.Response, request.method, body, { status: 200, headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' } }));
  }

  return {
    // Synchronous for every other path: an async hook would make the rest of each request's hooks wait on a promise.
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      if (url.pathname === path) return serveMetrics(request, serverContext, endResponse, fetchAPI);
    },
    onResponse({ serverContext, response }) {
      const state = requestStateOf(serverContext);
      if (!state) return;
      const pathname = state.target.split('?')[0] ?? '';
      const route = options.routeOf(pathname);
      const children = childrenOf(METHODS.has(state.method) ? state.method : 'OTHER', route, loggedStatus(state, response.status));
      children.count.inc();
      const seconds = (performance.now() - state.startedAt) / 1000;
      const sampled = exemplars ? state.span?.spanContext() : undefined;
      // 0x01: the sampled flag; an unsampled trace id leads nowhere in a tracing backend.
      if (sampled !== undefined && (sampled.traceFlags & 1) === 1) {
        duration.observe({ labels: { method: METHODS.has(state.method) ? state.method : 'OTHER', route, status: String(response.status) }, value: seconds, exemplarLabels: { trace_id: sampled.traceId, span_id: sampled.spanId } as Record<string, string> });
      } else children.time.observe(seconds);
      if (route !== path && state.errorCode !== undefined && AUTH_FAILURE_CODES.has(state.errorCode)) authFailures.inc({ code: state.errorCode });
    },
  };
}
