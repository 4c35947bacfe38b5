/**
 * Assembly of the service: repositories → services → Yoga with the plugin
 * pipeline. `createApp` does no network I/O, so tests drive the returned
 * `yoga.fetch` in-process against a temporary database.
 */
import { createYoga, useReadinessCheck, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { SecretBox } from './auth/secret-box.js';
import type { DatabaseHandle } from './db/client.js';
import type { GraphQLContext, Services } from './context.js';
import { AppError } from './errors.js';
import { createSigningGraphiQLRenderer } from './graphiql/render.js';
import { createMaskError } from './http/error-normalizer.js';
import { requestStateOf } from './http/request-state.js';
import { useDatabaseHealth } from './plugins/use-database-health.js';
import { DEFAULT_ABUSE_LIMITS, useAbuseLimits, type AbuseLimitOptions } from './plugins/use-abuse-limits.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { useApiDocs } from './plugins/use-api-docs.js';
import { useHttpCaching } from './plugins/use-http-caching.js';
import { IMAGE_PREFIX, useChannelImages } from './plugins/use-channel-images.js';
import { useMetrics } from './plugins/use-metrics.js';
import { useRequestContext } from './plugins/use-request-context.js';
import { useRateLimit, type RateLimitOptions } from './plugins/use-rate-limit.js';
import { useRestAdapter } from './plugins/use-rest-adapter.js';
import { useSignatureAuth } from './plugins/use-signature-auth.js';
import { ChannelRepository } from './repositories/channels.js';
import { MerchantRepository } from './repositories/merchants.js';
import { buildSchema } from './schema.js';
import { ChannelService } from './services/channels.js';
import { FeeService } from './services/fees.js';

export const GRAPHQL_ENDPOINT = '/graphql';
export const REST_PREFIX = '/v1/payments';
export const METRICS_PATH = '/metrics';

/** Route templates for metric labels: a fixed set, so raw paths never become label values. */
const ROUTE_TEMPLATES = new Set([GRAPHQL_ENDPOINT, `${REST_PREFIX}/channel`, `${REST_PREFIX}/calculate`, '/health', '/ready', METRICS_PATH]);

/** The route template of a request path (`unmatched` for anything unknown). */
export function routeTemplateOf(pathname: string): string {
  if (ROUTE_TEMPLATES.has(pathname)) return pathname;
  if (pathname.startsWith(IMAGE_PREFIX)) return `${IMAGE_PREFIX}:file`;
  return 'unmatched';
}

/** Metrics settings of an app. */
export interface AppMetricsOptions {
  /** Registry to use (default: a new one per app, so in-process apps do not share counters). */
  registry?: Registry;
  /** Bearer token required by GET /metrics; null/absent = public. */
  token?: string | null;
  /** Also collect the default process metrics (`process_*`, `nodejs_*`); on in the server, off by default. */
  collectDefault?: boolean;
}
export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PATH = '/docs';

/** What the app needs from its environment. */
export interface AppOptions {
  database: DatabaseHandle;
  secretBox: SecretBox;
  logger: Logger;
  maxSkewSeconds: number;
  bodyLimitBytes: number;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /** Prometheus metrics at GET /metrics (see src/plugins/use-metrics.ts). */
  metrics?: AppMetricsOptions;
  /** GraphQL document and execution limits (default {@link DEFAULT_ABUSE_LIMITS}). */
  abuseLimits?: AbuseLimitOptions;
  /** Per-key and failed-authentication rate limits (default {@link DEFAULT_RATE_LIMIT}). */
  rateLimit?: RateLimitOptions;
}

/** 50 req/s sustained, bursts of 100 per API key; 20 failed authentications per minute per address. */
export const DEFAULT_RATE_LIMIT: RateLimitOptions = { keyRatePerSecond: 50, keyBurst: 100, authFailuresPerMinute: 20 };

/** The assembled service. */
export interface App {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  services: Services;
  repositories: { merchants: MerchantRepository; channels: ChannelRepository };
  /** The registry GET /metrics serves. */
  metricsRegistry: Registry;
  /** First step of a graceful shutdown: from now on /ready answers 503 (the process still serves). */
  beginShutdown(): void;
}

export function createApp(options: AppOptions): App {
  const { database, logger } = options;
  // Live: rebuilt (new prepared statements) when the database monitor reconnects.
  const merchantRepo = database.live((db) => new MerchantRepository(db));
  const channelRepo = database.live((db) => new ChannelRepository(db));
  const channelService = new ChannelService(channelRepo);
  const services: Services = { channels: channelService, fees: new FeeService(channelService) };
  const metricsRegistry = options.metrics?.registry ?? new Registry();
  if (options.metrics?.collectDefault) collectDefaultMetrics({ register: metricsRegistry });
  let shuttingDown = false;

  const rateLimit = useRateLimit({ now: options.now, ...(options.rateLimit ?? DEFAULT_RATE_LIMIT) });

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema: buildSchema(),
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    healthCheckEndpoint: '/health',
    landingPage: false,
    // Bundled GraphiQL served from this process (no CDN), with a credentials panel that signs every request (SVC1).
    graphiql: { title: 'Payment Gateway GraphiQL', defaultQuery: '{ paymentChannels { code name status availability { selectable reasons } } }' },
    renderGraphiQL: createSigningGraphiQLRenderer(GRAPHQL_ENDPOINT),
    batching: false,
    multipart: false,
    // Request bodies are bounded by the signature plugin, which must read them anyway.
    maxRequestBodySize: options.bodyLimitBytes,
    // Errors are logged once, with the request id, by useRequestContext.
    logging: false,
    maskedErrors: { maskError: createMaskError() },
    context: (initial): GraphQLContext => {
      const state = requestStateOf(initial);
      // Invariant: the signature plugin established the principal; never execute without one.
      if (!state?.principal) throw new AppError('AUTH_HEADER_MISSING', 'Authentication required.');
      return { principal: state.principal, services, requestId: state.id };
    },
    plugins: [
      // First so that its onResponse (ETag / 304) runs before the request log and X-Request-Id of useRequestContext.
      useHttpCaching(),
      useRequestContext({
        graphqlEndpoint: GRAPHQL_ENDPOINT,
        restPrefix: REST_PREFIX,
        publicPaths: ['/health', '/ready', METRICS_PATH, IMAGE_PREFIX, OPENAPI_PATH, DOCS_PATH],
        logger,
      }),
      useMetrics({ registry: metricsRegistry, path: METRICS_PATH, token: options.metrics?.token ?? null, routeOf: routeTemplateOf }),
      useReadinessCheck({
        endpoint: '/ready',
        check: () => {
          // Draining: tell load balancers to stop sending traffic before the listener closes.
          if (shuttingDown) return false;
          const checked = database.check();
          const status = checked.ok ? database.probe() : checked;
          if (!status.ok) logger.warn({ reason: status.reason }, 'readiness check failed');
          return status.ok;
        },
      }),
      useDatabaseHealth({ database, publicPathNeedsDatabase: (p) => p.startsWith(IMAGE_PREFIX), logger }),
      useChannelImages({ channelName: (code) => channelRepo.nameByCode(code) }),
      useApiDocs({ openapiPath: OPENAPI_PATH, docsPath: DOCS_PATH, graphqlEndpoint: GRAPHQL_ENDPOINT, document: buildOpenApiDocument() }),
      rateLimit.addressGate,
      useSignatureAuth({
        findActiveKey: (keyId) => merchantRepo.findActiveKey(keyId),
        secretBox: options.secretBox,
        maxSkewSeconds: options.maxSkewSeconds,
        bodyLimitBytes: options.bodyLimitBytes,
        isProtectedPath: (p) => p === GRAPHQL_ENDPOINT || p === REST_PREFIX || p.startsWith(`${REST_PREFIX}/`),
        now: options.now,
      }),
      rateLimit.keyLimit,
      useRestAdapter({ graphqlEndpoint: GRAPHQL_ENDPOINT }),
      useAbuseLimits(options.abuseLimits ?? DEFAULT_ABUSE_LIMITS),
    ],
  });

  return {
    yoga,
    services,
    repositories: { merchants: merchantRepo, channels: channelRepo },
    metricsRegistry,
    beginShutdown: () => {
      shuttingDown = true;
    },
  };
}
