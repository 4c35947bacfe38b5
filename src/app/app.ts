/**
 * Assembly of the service: repositories → services → Yoga with the plugin
 * pipeline. `createApp` does no network I/O, so tests drive the returned
 * `yoga.fetch` in-process against a temporary database.
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import { createYoga, useReadinessCheck, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { SecretBox } from '../modules/auth/secret-box.js';
import type { Store } from '../storage/index.js';
import type { Catalog } from '../modules/catalogue/catalog.js';
import type { GraphQLContext, Services } from '../graphql/context.js';
import { AppError } from '../shared/errors.js';
import type { DataVersion } from '../shared/versioned-cache.js';
import { createMaskError } from '../pipeline/error-normalizer.js';
import { createNodeListener, type NodeHandler } from '../pipeline/transport/node-transport.js';
import { FairLanes } from '../pipeline/transport/fair-lanes.js';
import { nodeRequestOf } from '../pipeline/transport/node-request.js';
import type { SessionClaims } from '../modules/auth/client-secret.js';
import type { IncomingMessage } from 'node:http';
import { useAnswerCache, type AnswerCacheStats } from '../pipeline/plugins/use-answer-cache.js';
import { requestStateOf } from '../pipeline/request-state.js';
import { useDatabaseHealth } from '../pipeline/plugins/use-database-health.js';
import { DEFAULT_ABUSE_LIMITS, useAbuseLimits, type AbuseLimitOptions } from '../pipeline/plugins/use-abuse-limits.js';
import { buildOpenApiDocument } from '../modules/docs/openapi-document.js';
import { createApiDocs } from '../pipeline/plugins/use-api-docs.js';
import { useSecurityHeaders } from '../pipeline/plugins/use-security-headers.js';
import { DOCS_PATH, GRAPHQL_ENDPOINT, HEALTH_PATH, IMAGE_PREFIX, METRICS_PATH, OPENAPI_PATH, PUBLIC_PATHS, READY_PATH, REST_PREFIX, REST_ROUTE_BY_PATH, REST_ROUTES, routeTemplateOf } from '../shared/routes.js';
import { SESSION_KEY_LABEL, SessionService } from '../modules/sessions/service.js';
import { useCheckoutCors } from '../pipeline/plugins/use-checkout-cors.js';
import { useHttpCaching } from '../pipeline/plugins/use-http-caching.js';
import { useChannelImages } from '../pipeline/plugins/use-channel-images.js';
import { useCheckoutComponent } from '../pipeline/plugins/use-checkout-component.js';
import { useMetrics } from '../pipeline/plugins/use-metrics.js';
import { useRequestContext, type ClientAddressResolver } from '../pipeline/plugins/use-request-context.js';
import type { TrustedProxies } from '../shared/client-address.js';
import { useRateLimit, type RateLimitOptions } from '../pipeline/plugins/use-rate-limit.js';
import type { SharedRateLimitStore } from '../pipeline/budgets/rate-limit-budgets.js';
import { useRestAdapter } from '../pipeline/plugins/use-rest-adapter.js';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_STREAMS_PER_KEY, useLiveStreams } from '../pipeline/plugins/use-live-streams.js';
import { ChangeFeed } from '../modules/live/change-feed.js';
import { sessionSecretOf, useSignatureAuth, type KeyCacheStats, type SignatureAuthOptions } from '../pipeline/plugins/use-signature-auth.js';
import { useStandardVariableCoercion } from '../pipeline/plugins/use-standard-variable-coercion.js';
import { useIntrospectionPolicy } from '../pipeline/plugins/use-introspection-policy.js';
import { assertPluginOrder, ORDER_CONSTRAINTS } from './pipeline-order.js';
import type { ChannelRepository } from '../modules/catalogue/records.js';
import { buildSchema } from '../graphql/schema.js';
import { ChannelService } from '../modules/channels/service.js';
import { InstructionService } from '../modules/channels/instructions.js';
import { FeeService, sessionCustomerTotal } from '../modules/pricing/service.js';
import { QUOTE_TTL, QuoteService } from '../modules/quotes/service.js';
import { useJwks } from '../pipeline/plugins/use-jwks.js';
import { useTracing } from '../pipeline/plugins/use-tracing.js';
import { FanOutSpans, serverSpans } from '../pipeline/tracing.js';
import type { Tracing } from '../shared/tracing.js';


/** Metrics settings of an app. */
export interface AppMetricsOptions {
  /** Registry to use (default: a new one per app, so in-process apps do not share counters). */
  registry?: Registry;
  /** Bearer token required by GET /metrics; null/absent = public. */
  token?: string | null;
  /** Also collect the default process metrics (`process_*`, `nodejs_*`); on in the server, off by default. */
  collectDefault?: boolean;
}

/** What the app needs from its environment. */
export interface AppOptions {
  /** Most checkout-session requests waiting for their merchant's turn (pipeline/transport/fair-lanes.ts; default 10,000). */
  maxQueuedSessionRequests?: number;
  /** The database (either engine) and its in-memory catalogue. */
  store: Store<Catalog>;
  secretBox: SecretBox;
  logger: Logger;
  maxSkewSeconds: number;
  bodyLimitBytes: number;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /** Prometheus metrics at GET /metrics (see src/pipeline/plugins/use-metrics.ts). */
  metrics?: AppMetricsOptions;
  /** GraphQL document and execution limits (default {@link DEFAULT_ABUSE_LIMITS}). */
  abuseLimits?: AbuseLimitOptions;
  /** Per-key and failed-authentication rate limits (default {@link DEFAULT_RATE_LIMIT}); `redisUrl` shares them across replicas. */
  rateLimit?: RateLimitOptions;
  /**
   * TRUSTED_PROXIES (contract §6): balancers whose `X-Forwarded-For` names the client address the address
   * budget and the request log use; null/absent = none (the socket peer).
   */
  trustedProxies?: TrustedProxies | null;
  /**
   * Replaces the socket-based client address: the in-process transport (`yoga.fetch`) has no socket, so
   * tests say which address a request comes from.
   */
  clientAddress?: ClientAddressResolver;
  /** Successful answers kept per (API key, exact request) until the data changes; 0 = none (default 10,000). */
  answerCacheEntries?: number;
  /** Contract §15: verified keys and REST channel lists kept (KEY_CACHE_ENTRIES, REST_LIST_CACHE_ENTRIES). */
  caches?: { keys?: number; restLists?: number };
  /** GraphQL subscriptions over Server-Sent Events (contract §8); defaults in {@link LiveUpdateOptions}. */
  liveUpdates?: LiveUpdateOptions;
  /**
   * Fee quotes (contract §11): `issuer` is the JWT `iss` (the public base URL; a function, since a server learns
   * its port when it listens; default `http://localhost`), `ttlSeconds` QUOTE_TTL_SECONDS (default 900).
   */
  quotes?: { issuer?: () => string; ttlSeconds?: number };
  /** Further Yoga plugins, after all of the service's own: they run for every request on every transport. */
  plugins?: Plugin[];
  /**
   * Contract §13: OpenTelemetry tracing (src/app/tracing.ts starts it); absent/null = off, and then no hook of
   * tracing is installed and the transport does no tracing work per request.
   */
  tracing?: Tracing | null;
}

/** One plugin of the pipeline, by the name src/app/pipeline-order.ts speaks of. */
export interface PipelineEntry {
  name: string;
  plugin: Plugin;
}

/**
 * Everything of an app but Yoga itself: the services and what they hold, and the pipeline, in order. createApp
 * assembles Yoga around the whole pipeline; the benchmark's ablations assemble it around a part of it.
 */
export interface AppParts {
  options: AppOptions;
  services: Services;
  metricsRegistry: Registry;
  answerCacheStats: AnswerCacheStats;
  keyCacheStats: KeyCacheStats;
  rateLimit: { store: SharedRateLimitStore | null; close(): void };
  /** Read by the readiness check: set once a graceful shutdown began. */
  lifecycle: { shuttingDown: boolean };
  pipeline: PipelineEntry[];
  /** Fair turns of checkout-session requests per merchant, in the Node listener (pipeline/transport/fair-lanes.ts). */
  fairness: { lanes: FairLanes; laneOf: (req: IncomingMessage) => string | null };
}

/** Settings of the live channel updates (contract §8). */
export interface LiveUpdateOptions {
  /** Open event streams per API key (SUBSCRIPTIONS_PER_KEY; default 10): across replicas with REDIS_URL, else per process. */
  maxStreamsPerKey?: number;
  /** Heartbeat comment interval in ms (default 15,000). */
  heartbeatMs?: number;
  /** Open event streams per process (MAX_OPEN_STREAMS; default 15,000): one more → 503 + Retry-After. */
  maxOpenStreams?: number;
  /** Bytes that may wait for a client that stopped reading before its stream is cut off (default 64 KiB). */
  maxPendingBytes?: number;
  /** Lease of a Redis-shared stream slot in ms, renewed by each heartbeat (default 3 heartbeats: 45 s). */
  streamLeaseMs?: number;
  /** How often an idle SQLite catalogue is caught up while streams are open, ms (default {@link DEFAULT_CATCH_UP_MS}). */
  catchUpIntervalMs?: number;
  /** Groups of streams keeping their newest answer for streams that open later (default 256; tests drive the bound). */
  warmGroups?: number;
}

/**
 * How often an idle SQLite server catches its catalogue up while streams are open (ms): the longest a commit by
 * another process (the admin CLI, another replica) waits before the streams hear of it, out of the 1 s from
 * commit to every page (contract §8b). 50, not 200: at 15,000 pages the pages' answers take most of that second
 * (docs/PERFORMANCE.md); a catch-up of an unchanged database is one stat and one `data_version` read (tens of
 * µs, 20 times a second).
 */
export const DEFAULT_CATCH_UP_MS = 50;

/** 50 req/s sustained, bursts of 100 per API key; 20 failed authentications per minute per address. */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { keyRatePerSecond: 50, keyBurst: 100, authFailuresPerMinute: 20 };

/** The assembled service. */
export interface App {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  services: Services;
  /** The database and catalogue the app serves from. */
  store: Store<Catalog>;
  /** The registry GET /metrics serves. */
  metricsRegistry: Registry;
  /** The pipeline's plugins in the order they run (logged at start; checked against src/app/pipeline-order.ts). */
  pluginNames: readonly string[];
  /** First step of a graceful shutdown: from now on /ready answers 503 (the process still serves). */
  beginShutdown(): void;
  /** The Node `request` listener to serve: every request through `yoga`'s one pipeline (src/pipeline/transport/node-transport.ts). */
  handler: NodeHandler;
  /** Answers served from the answer caches (src/pipeline/plugins/use-answer-cache.ts). */
  answerCacheStats: AnswerCacheStats;
  /** Verifications whose key came from the key cache (src/pipeline/plugins/use-signature-auth.ts). */
  keyCacheStats: KeyCacheStats;
  /** The shared rate-limit store (REDIS_URL), or null when budgets are per process. */
  rateLimitStore: SharedRateLimitStore | null;
  /** Release what the app holds besides the store (the Redis connection); the store is closed by its owner. */
  close(): Promise<void>;
}

/**
 * The plugin's query execution only; subscriptions run on graphql-js. graphql-jit's compiled subscriptions
 * mis-coerce custom scalar variables (`Decimal` in `paymentChannelsChanged(filter: $f)` was refused) and
 * wrap a failed subscribe into a stream that never completes; a subscription executes once per change,
 * so compiling it buys nothing.
 */
/**
 * A plugin whose `onRequest` only concerns one exact path. Yoga's readiness check matches every request
 * against a URLPattern (measured: 3 % of a request's CPU); the pathname comparison is the same test.
 */
function onlyOnPath(pathname: string, plugin: Plugin): Plugin {
  const onRequest = plugin.onRequest;
  if (!onRequest) return plugin;
  return { ...plugin, onRequest: (payload) => (payload.url.pathname === pathname ? onRequest(payload) : undefined) };
}

function queriesOnly(plugin: ReturnType<typeof useGraphQlJit>): Plugin {
  return { onExecute: plugin.onExecute };
}

/** The services, the limiters and the pipeline of an app (no network I/O). */
export function createAppParts(options: AppOptions): AppParts {
  const { store, logger } = options;
  // Requests read the in-memory catalogue (src/modules/catalogue/catalog.ts), never the database, on either engine.
  // Every cache of key material, REST bodies and answers is emptied when `dataVersion` (the catalogue's shared
  // version, after catching up) moves, and drops one merchant's entries when that merchant's stamp is superseded.
  const catalog = store.catalog;
  const dataVersion: DataVersion = () => {
    store.version(); // catches the catalogue up (SQLite applies other processes' commits lazily, here)
    return catalog.sharedVersion;
  };
  const channelRepo: ChannelRepository = catalog;
  const channelService = new ChannelService(channelRepo);
  // Well under the contract's 1 s from commit to event, and one cheap `PRAGMA data_version` per tick on SQLite.
  const changes = new ChangeFeed({ store, catchUpIntervalMs: options.liveUpdates?.catchUpIntervalMs ?? DEFAULT_CATCH_UP_MS, logger, now: options.now });
  // Checkout sessions (contract §9): client secrets MAC'd under a key derived once from the master key.
  const sessions = new SessionService(options.secretBox.deriveKey(SESSION_KEY_LABEL), catalog, channelService, options.now);
  // Fee quotes (contract §11): signed with the catalogue's signing key (the same rows on every replica).
  const quotes = new QuoteService(catalog, options.secretBox, {
    issuer: options.quotes?.issuer ?? (() => 'http://localhost'),
    ttlSeconds: options.quotes?.ttlSeconds ?? QUOTE_TTL.default,
    // A key records the longest TTL it signed with before this process's first signature with it.
    recordTtl: (keyId, ttlSeconds) => store.admin.raiseQuoteKeyMaxTtl(keyId, ttlSeconds),
    now: options.now,
  });
  const fees = new FeeService(channelService);
  const instructions = new InstructionService(channelRepo, sessionCustomerTotal(fees));
  const services: Services = { channels: channelService, fees, instructions, changes, sessions, quotes };
  const metricsRegistry = options.metrics?.registry ?? new Registry();
  if (options.metrics?.collectDefault) collectDefaultMetrics({ register: metricsRegistry });
  const tracing = options.tracing ?? null;
  if (tracing !== null && metricsRegistry.getSingleMetric('gateway_trace_spans_dropped_total') === undefined) metricsRegistry.registerMetric(tracing.droppedSpans);
  const lifecycle = { shuttingDown: false };

  // Contract §13: a `live.fan_out` span per change reaching this replica while pages are open.
  const fanOut = tracing === null ? undefined : new FanOutSpans(tracing.tracer);
  const stopFanOut = fanOut === undefined ? undefined : store.onChange((change) => fanOut.changed(change.committedAt));
  const rateLimit = useRateLimit(options.rateLimit ?? DEFAULT_RATE_LIMIT, { logger, registry: metricsRegistry, now: options.now, tracer: tracing?.tracer });

  // A session request's client secret is verified once: by its fair lane in the Node listener, whose claims
  // authentication then takes for the same request (an HMAC per open was two: opening at a sale's
  // peak). Bound: one entry per request in flight, gone with its IncomingMessage.
  const keyCacheStats: KeyCacheStats = { keyHits: 0 };
  const laneClaims = new WeakMap<IncomingMessage, LaneClaims>();
  const signatureOptions: SignatureAuthOptions = {
    findActiveKey: (keyId) => catalog.findActiveKey(keyId),
    secretBox: options.secretBox,
    maxSkewSeconds: options.maxSkewSeconds,
    bodyLimitBytes: options.bodyLimitBytes,
    isProtectedPath: (p) => p === GRAPHQL_ENDPOINT || p === REST_PREFIX || p.startsWith(`${REST_PREFIX}/`) || REST_ROUTE_BY_PATH.has(p),
    now: options.now,
    dataVersion,
    keyCacheEntries: options.caches?.keys,
    stats: keyCacheStats,
    sessions: {
      authenticClaims: (secret, request) => {
        const req = nodeRequestOf(request);
        const known = req === undefined ? undefined : laneClaims.get(req);
        // The same request's header, so the same secret; compared anyway (the map is keyed by request only).
        return known !== undefined && known.secret === secret ? known.claims : sessions.authenticClaims(secret);
      },
      principalOf: (claims) => sessions.principalOf(claims),
      originAllowed: (merchantId, origin) => catalog.originAllowed(merchantId, origin),
      isSessionPath: (p) => sessionPaths.has(p),
    },
  };
  // What a checkout session may call, with the methods a browser preflight may ask for.
  const sessionPaths = new Map<string, readonly string[]>([
    [GRAPHQL_ENDPOINT, ['GET', 'POST']],
    ...REST_ROUTES.filter((r) => r.sessionAllowed).map((r): [string, readonly string[]] => [r.path, [r.method]]),
  ]);

  const requestContextPlugin = useRequestContext({
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    restPrefix: REST_PREFIX,
    restPaths: REST_ROUTES.filter((r) => !r.path.startsWith(`${REST_PREFIX}/`)).map((r) => r.path),
    publicPaths: PUBLIC_PATHS,
    logger,
    trustedProxies: options.trustedProxies,
    clientAddress: options.clientAddress,
  });
  const readiness: { lastReason?: string } = {};
  // The verdict in a small JSON body beside the status: a person or a balancer's log sees why. The reason is
  // coarse on purpose (a public path): the database's own message, which may name hosts or files, goes to the log.
  const readyAnswer = (Response: typeof globalThis.Response, status: 200 | 503, body: { ready: boolean; reason?: string }) =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } });
  const readinessPlugin = onlyOnPath(READY_PATH, useReadinessCheck({
    endpoint: READY_PATH,
    check: ({ fetchAPI }) => {
      // Draining: tell load balancers to stop sending traffic before the listener closes.
      if (lifecycle.shuttingDown) return readyAnswer(fetchAPI.Response, 503, { ready: false, reason: 'shutting down' });
      const checked = store.check();
      const status = checked.ok ? store.probe() : checked;
      // Logged when the verdict or its reason changes, not per probe: a balancer asks every second.
      if (!status.ok && status.reason !== readiness.lastReason) logger.warn({ reason: status.reason }, 'readiness check failed');
      readiness.lastReason = status.ok ? undefined : status.reason;
      if (status.ok) return readyAnswer(fetchAPI.Response, 200, { ready: true });
      // The stores word a schema wait as "... not ready until `npm run migrate` has run" (MIGRATE_ON_START=false).
      const reason = status.reason?.includes('npm run migrate') ? 'waiting for npm run migrate (database schema older than this version)' : 'database unavailable';
      return readyAnswer(fetchAPI.Response, 503, { ready: false, reason });
    },
  }));
  const imagesPlugin = useChannelImages({ channelName: (code) => channelRepo.nameByCode(code), nameDiffersByLanguage: (code) => channelRepo.nameDiffersByLanguage(code) });
  const signaturePlugin = useSignatureAuth(signatureOptions);
  const restPlugin = useRestAdapter({ graphqlEndpoint: GRAPHQL_ENDPOINT });
  const liveStreamsPlugin = useLiveStreams({
    maxStreamsPerKey: options.liveUpdates?.maxStreamsPerKey ?? DEFAULT_STREAMS_PER_KEY,
    heartbeatMs: options.liveUpdates?.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    leaseMs: options.liveUpdates?.streamLeaseMs,
    maxOpenStreams: options.liveUpdates?.maxOpenStreams,
    maxPendingBytes: options.liveUpdates?.maxPendingBytes,
    warmGroups: options.liveUpdates?.warmGroups,
    // Stream slots share the rate budgets' Redis connection and its health (one connection per process).
    sharedStore: rateLimit.store,
    logger,
    registry: metricsRegistry,
    fanOut,
  });
  const apiDocs = createApiDocs({ openapiPath: OPENAPI_PATH, docsPath: DOCS_PATH, graphqlEndpoint: GRAPHQL_ENDPOINT, document: buildOpenApiDocument() });
  const answerCacheStats: AnswerCacheStats = { restListHits: 0, resultHits: 0 };
  const answerCache = useAnswerCache({ dataVersion, entries: options.answerCacheEntries ?? 10_000, restListEntries: options.caches?.restLists, graphqlEndpoint: GRAPHQL_ENDPOINT, stats: answerCacheStats });

  // The order is constrained where plugins meet: src/app/pipeline-order.ts states each constraint with its reason.
  const named: [string, Plugin][] = [    ['answerCacheStore', answerCache.store],
    ['addressGate', rateLimit.addressGate],
    ['httpCaching', useHttpCaching()],
    ['securityHeaders', useSecurityHeaders({ pagePolicyOf: apiDocs.pagePolicyOf })],
    ['requestContext', requestContextPlugin],
    ['metrics', useMetrics({ registry: metricsRegistry, path: METRICS_PATH, token: options.metrics?.token ?? null, routeOf: routeTemplateOf, catalogueAgeSeconds: () => store.catalogueAgeSeconds(), catalogueReloads: () => catalog.counters.reloads, exemplars: tracing !== null })],
    // Contract §13: GraphQL phase spans and the SERVER span's attributes; an empty plugin (no hook) when tracing is off.
    ['tracing', tracing === null ? {} : useTracing({ tracer: tracing.tracer })],
    ['readiness', readinessPlugin],
    ['databaseHealth', useDatabaseHealth({ database: store, publicPathNeedsDatabase: (p) => p.startsWith(IMAGE_PREFIX), logger })],
    ['channelImages', imagesPlugin],
    ['checkoutComponent', useCheckoutComponent()],
    ['jwks', useJwks({ jwks: () => quotes.jwks() })],
    ['apiDocs', apiDocs.plugin],
    ['checkoutCors', useCheckoutCors({ sessionPaths, isKnownOrigin: (origin) => catalog.isKnownOrigin(origin) })],
    ['signature', signaturePlugin],
    ['keyLimit', rateLimit.keyLimit],
    ['answerCacheLookup', answerCache.lookup],
    ['liveStreams', liveStreamsPlugin],
    // What a request costs beyond its first unit, spent once the document is known and before it executes.
    ['costBudget', rateLimit.costBudget],
    ['restAdapter', restPlugin],
    // Variable errors worded by graphql-js whatever executes (a refused variable is re-checked by graphql-js).
    ['variableCoercion', useStandardVariableCoercion()],
    // Compiled execution per (cached) document.
    ['jit', queriesOnly(useGraphQlJit())],
    ['abuseLimits', useAbuseLimits(options.abuseLimits ?? DEFAULT_ABUSE_LIMITS)],
    // Introspection and quote verification for SVC1-signed callers only: a checkout session's secret is public (SECURITY.md).
    ['introspectionPolicy', useIntrospectionPolicy()],
    ...(options.plugins ?? []).map((p, i): [string, Plugin] => [`extra${i}`, p]),
  ];
  return {
    options,
    services,
    metricsRegistry,
    answerCacheStats,
    keyCacheStats,
    // The fan-out spans' change listener goes with the rate limiter (both released by close and by a refused app).
    rateLimit: stopFanOut === undefined ? rateLimit : { ...rateLimit, close: () => {
          stopFanOut();
          rateLimit.close();
        } },
    lifecycle,
    pipeline: named.map(([name, plugin]) => ({ name, plugin })),
    fairness: sessionFairness(sessions, metricsRegistry, logger, options.maxQueuedSessionRequests, laneClaims),
  };
}

/** A client secret verified by a request's fair lane, with its claims (undefined: not authentic). */
interface LaneClaims {
  readonly secret: string;
  readonly claims: SessionClaims | undefined;
}

/**
 * Checkout-session requests take turns per merchant before they enter the pipeline (contract §9: one
 * merchant's sessions cannot slow the others; pipeline/transport/fair-lanes.ts says how). A request's lane
 * is the merchant its client secret names once the secret's MAC verifies (an HMAC, no database: the
 * pipeline still judges expiry, revocation and scope), '' for a secret that does not; requests that are
 * not a session's start at once. What it verified is kept in `laneClaims` for the same request's
 * authentication, which then verifies nothing again.
 */
function sessionFairness(sessions: SessionService, registry: Registry, logger: Logger, maxQueued: number | undefined, laneClaims: WeakMap<IncomingMessage, LaneClaims>): AppParts['fairness'] {
  const shedTotal = new Counter({ name: 'gateway_session_requests_shed_total', help: 'Checkout-session requests answered 503 because the fair lanes were full (this process).', registers: [registry] });
  let lastLog = 0;
  const lanes = new FairLanes({
    maxQueued,
    onShed: (lane) => {
      shedTotal.inc();
      // One line a second at most: a flood must not turn into a flood of log lines.
      const now = Date.now();
      if (now - lastLog >= 1000) {
        lastLog = now;
        logger.warn({ merchantId: lane || null, queued: lanes.queued }, 'checkout-session requests shed: the fair lanes are full');
      }
    },
  });
  new Gauge({ name: 'gateway_session_requests_queued', help: 'Checkout-session requests waiting for their turn (this process).', registers: [registry], collect() { this.set(lanes.queued); } });
  const headers = (req: IncomingMessage) => ({
    get: (name: string): string | null => {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  });
  const laneOf = (req: IncomingMessage): string | null => {
    // `/metrics` takes its own Bearer token (METRICS_TOKEN): a scrape never waits behind sessions.
    if (req.headers.authorization === undefined || req.url?.startsWith(METRICS_PATH)) return null;
    const secret = sessionSecretOf({ headers: headers(req) });
    if (secret === null) return null;
    const claims = sessions.authenticClaims(secret);
    laneClaims.set(req, { secret, claims });
    return claims?.merchantId ?? '';
  };
  return { lanes, laneOf };
}

/**
 * Yoga around `pipeline` (default: the whole pipeline of `parts`), and the Node listener. The whole pipeline
 * must satisfy every order constraint; a part of it, those between the plugins it keeps. Throws, releasing
 * what `parts` holds, when the order is wrong.
 */
export function assembleApp(parts: AppParts, pipeline: readonly PipelineEntry[] = parts.pipeline): App {
  const { options, services, metricsRegistry, answerCacheStats, keyCacheStats, rateLimit, lifecycle } = parts;
  const { store, logger } = options;
  const changes = services.changes;
  const names = pipeline.map((e) => e.name);
  const kept = new Set(names);
  try {
    assertPluginOrder(names, pipeline === parts.pipeline ? ORDER_CONSTRAINTS : ORDER_CONSTRAINTS.filter((c) => kept.has(c.before) && kept.has(c.after)));
  } catch (err) {
    // Nothing may outlive a refused app: stop the change feed and the limiter.
    changes.shutdown();
    rateLimit.close();
    throw err;
  }
  const plugins = pipeline.map((e) => e.plugin);

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    // Parse and validation caches: Yoga's defaults, LRU of 1,024 documents each (docs/OPERATIONS.md, "Memory bounds").
    schema: buildSchema(),
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    healthCheckEndpoint: HEALTH_PATH,
    landingPage: false,
    // The bundled, signing GraphiQL page (no CDN) is served by createApiDocs (src/modules/docs/graphiql-page.ts): compressed,
    // cached, and counted and logged like every request, which Yoga's own GraphiQL plugin (ahead of all user plugins) is not.
    graphiql: false,
    batching: false,
    multipart: false,
    // CORS is contract §9's, by useCheckoutCors: only checkout session requests from allowed origins get it
    // (Yoga's default would reflect any origin onto every answer, SVC1-signed ones included).
    cors: false,
    // Request bodies are bounded by the signature plugin, which reads every body (all GraphQL POSTs are signed)
    // with the limit before Yoga parses it. Yoga's own limit would wrap each body in a second stream.
    maxRequestBodySize: false,
    // Errors are logged once, with the request id, by useRequestContext.
    logging: false,
    maskedErrors: { maskError: createMaskError() },
    context: (initial): GraphQLContext => {
      const state = requestStateOf(initial);
      // Invariant: the signature plugin established the principal; never execute without one.
      if (!state?.principal) throw new AppError('AUTH_HEADER_MISSING', 'Authentication required.');
      return {
        principal: state.principal,
        services,
        requestId: state.id,
        answerDependsOnClock: () => {
          if (state.pendingAnswer) state.pendingAnswer.ok = false;
        },
      };
    },
    plugins,
  });

  // One pipeline for every request: the Node listener hands each one to `yoga.handleRequest`, like yoga.fetch.
  const tracing = options.tracing ?? null;
  const handler = createNodeListener({
    yoga,
    logger,
    fairness: parts.fairness,
    serverSpans: tracing === null ? undefined : serverSpans({ tracing, trustedProxies: options.trustedProxies ?? null, routeOf: routeTemplateOf }),
  });

  return {
    yoga,
    services,
    store,
    metricsRegistry,
    pluginNames: names,
    beginShutdown: () => {
      lifecycle.shuttingDown = true;
      // Open event streams would hold the process until the shutdown timeout: end them now (clients reconnect).
      changes.shutdown();
    },
    handler,
    answerCacheStats,
    keyCacheStats,
    rateLimitStore: rateLimit.store,
    close: () => {
      changes.shutdown();
      rateLimit.close();
      return Promise.resolve();
    },
  };
}

/** The service: its parts, assembled around the whole pipeline. */
export function createApp(options: AppOptions): App {
  return assembleApp(createAppParts(options));
}
