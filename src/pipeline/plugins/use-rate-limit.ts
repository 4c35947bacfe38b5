/**
 * Rate limiting (contract §4 RATE_LIMITED, §6 "Shared limits" and "Address
 * budget"), in the one pipeline every request takes (REST and GraphQL, on
 * either transport). Two plugins share one configuration:
 *
 * - `keyLimit`, placed AFTER the signature plugin and before the REST
 *   adapter: a budget per verified API key. Only verified requests count, so
 *   nobody can drain another merchant's budget by sending its key id
 *   unsigned.
 * - `addressGate`, FIRST in the plugin list (its onResponse must run before
 *   the request log, metrics and caching see the status): every 401 answered
 *   to a client address spends one unit of that address's failed-
 *   authentication budget, and a 401 past the budget is answered as 429
 *   instead. It only ever turns a failing request into 429: a request whose
 *   signature verifies never reaches it as a 401, however many requests from
 *   the same address failed (merchants share addresses behind NAT, proxies
 *   and load balancers).
 *
 * Budgets live in this process's memory, or with `redisUrl` in Redis shared
 * by every replica, falling back to memory while Redis is unreachable
 * (src/pipeline/plugins/rate-limit-budgets.ts). Refusals are `429 RATE_LIMITED` with
 * `Retry-After` (seconds), as problem details on REST and as a GraphQL error
 * on /graphql.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../shared/errors.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { addressKey, keyBudgetWindow, RateBudget, SharedRateLimitStore } from './rate-limit-budgets.js';
import { requestStateOf, type RequestState } from '../request-state.js';
import { errorResponseFor } from '../responses.js';

/** Options of {@link useRateLimit}. */
export interface RateLimitOptions {
  /** Sustained requests per second per API key (see `keyBudgetWindow` for the window it becomes). */
  keyRatePerSecond: number;
  /** Largest burst per API key. */
  keyBurst: number;
  /** Sustained requests per second per checkout session (contract §9: 20). */
  sessionRatePerSecond?: number;
  /** Largest burst per checkout session (contract §9: 40). */
  sessionBurst?: number;
  /** Failed authentications answered 401 per client address per minute; further failures get 429. */
  authFailuresPerMinute: number;
  /** Most keys kept in memory per budget (memory bound). */
  maxTrackedClients?: number;
  /** Redis shared by every replica (REDIS_URL); absent/null: budgets per process. */
  redisUrl?: string | null;
  /** Redis command timeout in ms before a decision falls back to memory (default 250). */
  redisCommandTimeoutMs?: number;
}

/** What the plugins need from the app besides {@link RateLimitOptions}. */
export interface RateLimitEnvironment {
  logger: Logger;
  /** Registry for the shared store's metrics. */
  registry?: Registry;
}

/** The two rate-limit plugins (see the module comment for their places in the pipeline) and their store. */
export interface RateLimitPlugins {
  addressGate: Plugin;
  keyLimit: Plugin;
  /** The Redis store when `redisUrl` was given (health, `waitUntilUp`), else null. */
  store: SharedRateLimitStore | null;
  /** Release the Redis connection (shutdown). */
  close(): void;
}

const AUTH_FAILURE_STATUS = 401;

function rateLimited(scope: 'key' | 'session' | 'address', retryAfterSeconds: number): AppError {
  const message =
    scope === 'key'
      ? `Rate limit for this API key exceeded; retry after ${retryAfterSeconds} s.`
      : scope === 'session'
        ? `Rate limit for this checkout session exceeded; retry after ${retryAfterSeconds} s.`
        : `Too many failed authentications from this address; retry after ${retryAfterSeconds} s.`;
  return new AppError('RATE_LIMITED', message, { retryAfter: retryAfterSeconds, scope }, { 'Retry-After': String(retryAfterSeconds) });
}

export function useRateLimit(options: RateLimitOptions, env: RateLimitEnvironment): RateLimitPlugins {
  const maxEntries = options.maxTrackedClients ?? 100_000;
  if (!Number.isInteger(options.authFailuresPerMinute) || options.authFailuresPerMinute < 1) {
    throw new Error('useRateLimit: authFailuresPerMinute must be a positive integer');
  }
  const keyWindow = keyBudgetWindow(options.keyRatePerSecond, options.keyBurst);
  const store = options.redisUrl ? new SharedRateLimitStore({ redisUrl: options.redisUrl, logger: env.logger, registry: env.registry, commandTimeoutMs: options.redisCommandTimeoutMs }) : null;
  const common = { maxEntries, logger: env.logger, store: store ?? undefined };
  const keys = new RateBudget({ name: 'key', ...keyWindow, ...common });
  // A session spends its own budget, never its creating key's: customers' browsers cannot starve the merchant's server.
  const sessions = new RateBudget({ name: 'session', ...keyBudgetWindow(options.sessionRatePerSecond ?? 20, options.sessionBurst ?? 40), ...common });
  const failures = new RateBudget({ name: 'auth_failures', points: options.authFailuresPerMinute, durationSeconds: 60, ...common });

  /** Spend one failure of the request's client address (request state, contract §6); past the budget the 401 becomes a 429. */
  async function chargeFailure(state: RequestState, setResponse: (r: Response) => void, ResponseCtor: typeof Response): Promise<void> {
    const retryAfter = await failures.consume(addressKey(state.clientAddress));
    if (retryAfter > 0) setResponse(errorResponseFor(ResponseCtor, state, rateLimited('address', retryAfter)));
  }

  function refuseKey(retryAfter: number, state: RequestState, endResponse: (r: Response) => void, ResponseCtor: typeof Response): void {
    if (retryAfter > 0) endResponse(errorResponseFor(ResponseCtor, state, rateLimited(state.principal?.session ? 'session' : 'key', retryAfter)));
  }

  const addressGate: Plugin = {
    // No onRequest: nothing is decided before the credentials are checked, so a verified request never pays
    // for it. Not async: a success returns nothing, so neither pipeline awaits anything for it.
    onResponse({ serverContext, response, setResponse, fetchAPI }) {
      if (response.status !== AUTH_FAILURE_STATUS) return;
      const state = requestStateOf(serverContext);
      if (!state || state.surface === 'public') return;
      return chargeFailure(state, setResponse, fetchAPI.Response);
    },
  };

  const keyLimit: Plugin = {
    // Synchronous with the memory store (the pipeline then awaits nothing); a promise with Redis.
    onRequest({ serverContext, endResponse, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state?.principal) return;
      const session = state.principal.session;
      const decision = session ? sessions.consume(session.id) : keys.consume(state.principal.apiKeyId);
      if (typeof decision === 'number') return refuseKey(decision, state, endResponse, fetchAPI.Response);
      return decision.then((retryAfter) => refuseKey(retryAfter, state, endResponse, fetchAPI.Response));
    },
  };

  return { addressGate, keyLimit, store, close: () => store?.close() };
}
