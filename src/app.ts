/**
 * Assembly of the service: repositories → services → Yoga with the plugin
 * pipeline. `createApp` does no network I/O, so tests drive the returned
 * `yoga.fetch` in-process against a temporary database.
 */
import { createYoga, useReadinessCheck, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { SecretBox } from './auth/secret-box.js';
import type { DatabaseHandle } from './db/client.js';
import type { GraphQLContext, Services } from './context.js';
import { AppError } from './errors.js';
import { createSigningGraphiQLRenderer } from './graphiql/render.js';
import { createMaskError } from './http/error-normalizer.js';
import { requestStateOf } from './http/request-state.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { useApiDocs } from './plugins/use-api-docs.js';
import { useHttpCaching } from './plugins/use-http-caching.js';
import { IMAGE_PREFIX, useChannelImages } from './plugins/use-channel-images.js';
import { useRequestContext } from './plugins/use-request-context.js';
import { useRestAdapter } from './plugins/use-rest-adapter.js';
import { useSignatureAuth } from './plugins/use-signature-auth.js';
import { ChannelRepository } from './repositories/channels.js';
import { MerchantRepository } from './repositories/merchants.js';
import { buildSchema } from './schema.js';
import { ChannelService } from './services/channels.js';
import { FeeService } from './services/fees.js';

export const GRAPHQL_ENDPOINT = '/graphql';
export const REST_PREFIX = '/v1/payments';
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
}

/** The assembled service. */
export interface App {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  services: Services;
  repositories: { merchants: MerchantRepository; channels: ChannelRepository };
}

export function createApp(options: AppOptions): App {
  const { database, logger } = options;
  const merchantRepo = new MerchantRepository(database.db);
  const channelRepo = new ChannelRepository(database.db);
  const channelService = new ChannelService(channelRepo);
  const services: Services = { channels: channelService, fees: new FeeService(channelService) };

  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema: buildSchema(),
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    healthCheckEndpoint: '/health',
    landingPage: false,
    // Bundled GraphiQL served from this process (no CDN), with a credentials panel that signs every request (SVC1).
    graphiql: { title: 'Payment Gateway GraphiQL', defaultQuery: '{ paymentChannels { code name status availability { selectable reasons } } }' },
    renderGraphiQL: createSigningGraphiQLRenderer(GRAPHQL_ENDPOINT),
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
    plugins: [
      // First so that its onResponse (ETag / 304) runs before the request log and X-Request-Id of useRequestContext.
      useHttpCaching(),
      useRequestContext({
        graphqlEndpoint: GRAPHQL_ENDPOINT,
        restPrefix: REST_PREFIX,
        publicPaths: ['/health', '/ready', IMAGE_PREFIX, OPENAPI_PATH, DOCS_PATH],
        logger,
      }),
      useReadinessCheck({
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
      }),
      useChannelImages({ channelName: (code) => channelRepo.nameByCode(code) }),
      useApiDocs({ openapiPath: OPENAPI_PATH, docsPath: DOCS_PATH, graphqlEndpoint: GRAPHQL_ENDPOINT, document: buildOpenApiDocument() }),
      useSignatureAuth({
        findActiveKey: (keyId) => merchantRepo.findActiveKey(keyId),
        secretBox: options.secretBox,
        maxSkewSeconds: options.maxSkewSeconds,
        bodyLimitBytes: options.bodyLimitBytes,
        isProtectedPath: (p) => p === GRAPHQL_ENDPOINT || p === REST_PREFIX || p.startsWith(`${REST_PREFIX}/`),
        now: options.now,
      }),
      useRestAdapter({ graphqlEndpoint: GRAPHQL_ENDPOINT }),
    ],
  });

  return { yoga, services, repositories: { merchants: merchantRepo, channels: channelRepo } };
}
