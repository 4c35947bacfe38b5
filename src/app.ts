/**
 * Assembly of the service: repositories → services → Yoga with the plugin
 * pipeline. `createApp` does no network I/O, so tests drive the returned
 * `yoga.fetch` in-process against a temporary database.
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import { createYoga, useReadinessCheck, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { SecretBox } from './auth/secret-box.js';
import type { DatabaseHandle } from './db/client.js';
import type { GraphQLContext, Services } from './context.js';
import { AppError } from './errors.js';
import { createDataVersion } from './db/data-version.js';
import { createMaskError } from './http/error-normalizer.js';
import { createNodeHandler, type FastPathStats, type NodeHandler } from './http/fast-path.js';
import { requestStateOf } from './http/request-state.js';
import { IMAGE_PREFIX, useChannelImages } from './plugins/use-channel-images.js';
import { useRequestContext } from './plugins/use-request-context.js';
import { useRestAdapter } from './plugins/use-rest-adapter.js';
import { createSignatureVerifier, useSignatureAuth, type SignatureAuthOptions } from './plugins/use-signature-auth.js';
import { CachedChannelRepository } from './repositories/cached-channels.js';
import type { ChannelRepository } from './repositories/channels.js';
import { MerchantRepository } from './repositories/merchants.js';
import { buildSchema } from './schema.js';
import { ChannelService } from './services/channels.js';
import { FeeService } from './services/fees.js';

export const GRAPHQL_ENDPOINT = '/graphql';
export const REST_PREFIX = '/v1/payments';

/** What the app needs from its environment. */
export interface AppOptions {
  database: DatabaseHandle;
  secretBox: SecretBox;
  logger: Logger;
  maxSkewSeconds: number;
  bodyLimitBytes: number;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /**
   * Serve the hot requests through the Node fast path (src/http/fast-path.ts)
   * in `handler`; default true. False: `handler` is plain Yoga.
   */
  fastPath?: boolean;
}

/** The assembled service. */
export interface App {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  services: Services;
  repositories: { merchants: MerchantRepository; channels: ChannelRepository };
  /** The Node `request` listener to serve (fast path in front of `yoga`). */
  handler: NodeHandler;
  /** What the fast path answered itself vs handed to Yoga. */
  fastPathStats: FastPathStats;
}

export function createApp(options: AppOptions): App {
  const { database, logger } = options;
  const merchantRepo = new MerchantRepository(database.db);
  // Every cache (channel records, key material, REST bodies) is dropped on any commit from any process.
  const dataVersion = createDataVersion(database.sqlite);
  const channelRepo = new CachedChannelRepository(database.db, dataVersion);
  const channelService = new ChannelService(channelRepo);
  const services: Services = { channels: channelService, fees: new FeeService(channelService) };

  const signatureOptions: SignatureAuthOptions = {
    findActiveKey: (keyId) => merchantRepo.findActiveKey(keyId),
    secretBox: options.secretBox,
    maxSkewSeconds: options.maxSkewSeconds,
    bodyLimitBytes: options.bodyLimitBytes,
    isProtectedPath: (p) => p === GRAPHQL_ENDPOINT || p === REST_PREFIX || p.startsWith(`${REST_PREFIX}/`),
    now: options.now,
    dataVersion,
  };

  // Plugins the Node fast path replaces by the same functions (request context, auth, REST) or that only
  // serve public paths it never takes (readiness, images); every other plugin's hooks also run there.
  const requestContextPlugin = useRequestContext({
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    restPrefix: REST_PREFIX,
    publicPaths: ['/health', '/ready', IMAGE_PREFIX],
    logger,
  });
  const readinessPlugin = useReadinessCheck({
    endpoint: '/ready',
    check: () => {
      try {
        database.sqlite.prepare('select count(*) from merchants').get();
        return true;
      } catch (err) {
        logger.warn({ err }, 'readiness check failed');
        return false;
      }
    },
  });
  const imagesPlugin = useChannelImages({ channelName: (code) => channelRepo.nameByCode(code) });
  const signaturePlugin = useSignatureAuth(signatureOptions);
  const restPlugin = useRestAdapter({ graphqlEndpoint: GRAPHQL_ENDPOINT });
  const replacedOnFastPath = new Set<unknown>([requestContextPlugin, readinessPlugin, imagesPlugin, signaturePlugin, restPlugin]);

  const plugins = [
    requestContextPlugin,
    readinessPlugin,
    imagesPlugin,
    signaturePlugin,
    restPlugin,
    // Compiled execution per (cached) document; results are identical to graphql-js.
    useGraphQlJit(),
  ];

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema: buildSchema(),
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    healthCheckEndpoint: '/health',
    landingPage: false,
    // Bundled GraphiQL: served from this process, no CDN (its signing fetcher is added later).
    graphiql: { title: 'Payment Gateway GraphiQL' },
    // Loaded on the first GraphiQL page view: the bundle costs ~80 MB RSS, which an API-only process never needs.
    renderGraphiQL: async (opts) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(opts),
    batching: false,
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
    plugins,
  });

  // The user plugins as Yoga flattened them (plugins added by other plugins included), minus the replaced ones.
  // (`plugins` is protected in the typings; it is the flattened list Yoga itself iterates.)
  const flattened = (yoga as unknown as { plugins: (Plugin | undefined)[] }).plugins;
  const first = flattened.indexOf(plugins[0] as Plugin);
  const last = flattened.indexOf(plugins[plugins.length - 1] as Plugin);
  if (first < 0 || last < first) throw new Error('createApp: user plugins not found in the Yoga pipeline');
  const hookPlugins = flattened.slice(first, last + 1).filter((p): p is Plugin => !!p && !replacedOnFastPath.has(p) && !!(p.onRequest || p.onResponse));

  const fastPathStats: FastPathStats = { fast: 0, fallback: 0, restListCacheHits: 0 };
  const handler: NodeHandler =
    options.fastPath === false
      ? (req, res) => void yoga(req, res)
      : createNodeHandler({ yoga, verifier: createSignatureVerifier(signatureOptions), logger, graphqlEndpoint: GRAPHQL_ENDPOINT, dataVersion, stats: fastPathStats, hookPlugins });

  return { yoga, services, repositories: { merchants: merchantRepo, channels: channelRepo }, handler, fastPathStats };
}
