/**
 * Rate limiting (contract §4 RATE_LIMITED), in the same pipeline for REST
 * and GraphQL. Two plugins share one configuration:
 *
 * - `addressGate`, placed BEFORE the signature plugin: a client address that
 *   has used up its budget of failed authentications gets 429 before its
 *   credentials are even looked at (so a correct guess is indistinguishable
 *   from a wrong one while blocked). Every 401 answered to that address
 *   spends one token (recorded in `onResponse`).
 * - `keyLimit`, placed AFTER the signature plugin and before the REST
 *   adapter: a token bucket per verified API key. Only verified requests
 *   count, so nobody can drain another merchant's bucket by sending its key
 *   id unsigned.
 *
 * Refusals are `429 RATE_LIMITED` with `Retry-After` (seconds), as problem
 * details on REST and as a GraphQL error on /graphql.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../errors.js';
import { addressKey, TokenBuckets } from '../http/rate-limit.js';
import { requestStateOf } from '../http/request-state.js';
import { errorResponseFor } from '../http/responses.js';

/** Resolves the client address of a request (node: the socket's remote address). */
export type ClientAddressResolver = (request: Request, serverContext: object) => string | undefined;

/** Options of {@link useRateLimit}. */
export interface RateLimitOptions {
  /** Sustained requests per second per API key. */
  keyRatePerSecond: number;
  /** Bucket size per API key (largest burst). */
  keyBurst: number;
  /** Failed authentications allowed per minute per client address (also the burst). */
  authFailuresPerMinute: number;
  /** Client address; default: the node socket's remote address. Proxy headers are not trusted. */
  clientAddress?: ClientAddressResolver;
  /** Most buckets kept per store (memory bound). */
  maxTrackedClients?: number;
  now?: () => number;
}

interface NodeServerContext {
  req?: { socket?: { remoteAddress?: string } };
}

/** The socket peer address Node's adapter exposes as `serverContext.req`. */
export const socketAddress: ClientAddressResolver = (_request, serverContext) => (serverContext as NodeServerContext).req?.socket?.remoteAddress;

/** The two rate-limit plugins (see the module comment for their places in the pipeline). */
export interface RateLimitPlugins {
  addressGate: Plugin;
  keyLimit: Plugin;
}

const AUTH_FAILURE_STATUS = 401;

/**
 * The request's address key, kept on its server context to charge a failure in onResponse. A property,
 * not a WeakMap: WeakMap entries survive V8's young-generation GC and dragged every request's objects into
 * the old generation (see src/http/fast-path.ts, `Exchange`).
 */
const CLIENT_ADDRESS = Symbol('clientAddress');
type AddressCarrier = { [CLIENT_ADDRESS]?: string };

function rateLimited(scope: 'key' | 'address', retryAfterSeconds: number): AppError {
  const message =
    scope === 'key'
      ? `Rate limit for this API key exceeded; retry after ${retryAfterSeconds} s.`
      : `Too many failed authentications from this address; retry after ${retryAfterSeconds} s.`;
  return new AppError('RATE_LIMITED', message, { retryAfter: retryAfterSeconds, scope }, { 'Retry-After': String(retryAfterSeconds) });
}

export function useRateLimit(options: RateLimitOptions): RateLimitPlugins {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxTrackedClients ?? 100_000;
  const clientAddress = options.clientAddress ?? socketAddress;
  const keys = new TokenBuckets({ ratePerSecond: options.keyRatePerSecond, burst: options.keyBurst, maxEntries, now });
  if (!Number.isInteger(options.authFailuresPerMinute) || options.authFailuresPerMinute < 1) {
    throw new Error('useRateLimit: authFailuresPerMinute must be a positive integer');
  }
  const failures = new TokenBuckets({
    ratePerSecond: options.authFailuresPerMinute / 60,
    burst: options.authFailuresPerMinute,
    maxEntries,
    now,
  });

  const addressGate: Plugin = {
    onRequest({ request, serverContext, endResponse, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state || state.surface === 'public') return;
      const address = addressKey(clientAddress(request, serverContext));
      (serverContext as AddressCarrier)[CLIENT_ADDRESS] = address;
      const gate = failures.peek(address);
      if (!gate.allowed) endResponse(errorResponseFor(fetchAPI.Response, state, rateLimited('address', gate.retryAfterSeconds)));
    },
    onResponse({ serverContext, response }) {
      const address = (serverContext as AddressCarrier)[CLIENT_ADDRESS];
      if (address !== undefined && response.status === AUTH_FAILURE_STATUS) failures.take(address);
    },
  };

  const keyLimit: Plugin = {
    onRequest({ serverContext, endResponse, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state?.principal) return;
      const taken = keys.take(state.principal.apiKeyId);
      if (!taken.allowed) endResponse(errorResponseFor(fetchAPI.Response, state, rateLimited('key', taken.retryAfterSeconds)));
    },
  };

  return { addressGate, keyLimit };
}
