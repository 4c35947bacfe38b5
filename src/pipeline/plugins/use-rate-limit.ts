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
 * - `costBudget`, at execution: budgets spend what a request costs
 *   (src/graphql/operation-cost.ts; a plain list or calculation costs 1).
 *   `keyLimit` spends the first unit of every request before anything is
 *   parsed (so a spent budget is refused for next to nothing, stream opens
 *   and cached answers included); once the document is parsed and
 *   validated, and before it executes, `costBudget` spends the rest of its
 *   cost from the same budget. A checkout session's document costing more
 *   than `sessionMaxCost` is refused there with 403 SESSION_SCOPE: a session
 *   does only what a checkout needs (contract §9).
 * - The merchant fair share (merchant-share.ts): every request of a merchant
 *   is recorded; a session request past its merchant's share while the
 *   process is at capacity and other merchants are active is refused with
 *   429 RATE_LIMITED (scope `merchant`).
 *
 * Budgets live in this process's memory, or with `redisUrl` in Redis shared
 * by every replica, falling back to memory while Redis is unreachable
 * (src/pipeline/budgets/rate-limit-budgets.ts). Refusals are `429 RATE_LIMITED` with
 * `Retry-After` (seconds), as problem details on REST and as a GraphQL error
 * on /graphql.
 */
import type { Tracer } from '@opentelemetry/api';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { GraphQLError } from 'graphql';
import { answerError } from '../error-normalizer.js';
import type { Plugin } from 'graphql-yoga';
import { operationCost } from '../../graphql/operation-cost.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MerchantShare } from '../budgets/merchant-share.js';
import { AppError, statusOf } from '../../shared/errors.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { addressKey, keyBudgetWindow, RateBudget, SharedRateLimitStore } from '../budgets/rate-limit-budgets.js';
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
  /**
   * Most work units (src/graphql/operation-cost.ts) one request of a checkout session may cost; heavier
   * documents are refused with 403 SESSION_SCOPE before they execute. Default {@link DEFAULT_SESSION_MAX_COST}.
   */
  sessionMaxCost?: number;
  /**
   * Work units per second this process gives all merchants together while they compete; past it, a merchant's
   * sessions are held to their fair share. Default {@link DEFAULT_MERCHANT_SHARE_CAPACITY}.
   */
  merchantShareCapacity?: number;
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
  /** Clock in ms for the merchant share's windows (tests move it). */
  now?: () => number;
  /** Contract §13: a CLIENT span per Redis command made under a traced request; absent = tracing off. */
  tracer?: Tracer;
}

/**
 * Twice what the drop-in component's own heaviest document costs (its channel subscription: the list 1 + the
 * fee of each channel 2 = 3 units): a merchant's own session documents may ask for somewhat more (measured:
 * the heaviest such document takes about 2× the component's CPU), never for the aliased lists that stalled
 * the gateway (15 aliases = 50 units). The chosen channel's instructions (contract §14) are a
 * separate document of 2 units (the list narrowed to one code 1 + filling its steps 1; the rendered text is
 * cached per values), asked once per choice and per operator change, not on every live event; a session may
 * also ask the instructions of every channel of its list with their fees (1 + 2 + 1 = 4), within the ceiling.
 */
export const DEFAULT_SESSION_MAX_COST = 6;

/**
 * Work units per second per process shared by merchants under contention: about what one process serves of
 * uncached lists and calculations (README, "Rate limits"); spare capacity goes to whoever needs it.
 */
export const DEFAULT_MERCHANT_SHARE_CAPACITY = 2000;

/**
 * Event-loop delay (p99 over a share window, ms) past which the process counts as overloaded: a request then
 * waits longer than this before its turn, a large part of the 50 ms another merchant's p99 must stay under.
 */
export const OVERLOADED_LOOP_DELAY_MS = 20;

/** The two rate-limit plugins (see the module comment for their places in the pipeline) and their store. */
export interface RateLimitPlugins {
  addressGate: Plugin;
  keyLimit: Plugin;
  /** The Redis store when `redisUrl` was given (health, `waitUntilUp`), else null. */
  store: SharedRateLimitStore | null;
  /** Spends the rest of a request's cost before it executes (and refuses sessions' heavy documents). */
  costBudget: Plugin;
  /** The merchant fair share of this process (tests, diagnosis). */
  merchantShare: MerchantShare;
  /** Release the Redis connection (shutdown). */
  close(): void;
}

const AUTH_FAILURE_STATUS = 401;

function rateLimited(scope: 'key' | 'session' | 'merchant' | 'address', retryAfterSeconds: number): AppError {
  const message =
    scope === 'key'
      ? `Rate limit for this API key exceeded; retry after ${retryAfterSeconds} s.`
      : scope === 'session'
        ? `Rate limit for this checkout session exceeded; retry after ${retryAfterSeconds} s.`
        : scope === 'merchant'
          ? `This merchant's checkout sessions are using their share of the service while other merchants need theirs; retry after ${retryAfterSeconds} s.`
          : `Too many failed authentications from this address; retry after ${retryAfterSeconds} s.`;
  return new AppError('RATE_LIMITED', message, { retryAfter: retryAfterSeconds, scope }, { 'Retry-After': String(retryAfterSeconds) });
}

export function useRateLimit(options: RateLimitOptions, env: RateLimitEnvironment): RateLimitPlugins {
  const maxEntries = options.maxTrackedClients ?? 100_000;
  if (!Number.isInteger(options.authFailuresPerMinute) || options.authFailuresPerMinute < 1) {
    throw new Error('useRateLimit: authFailuresPerMinute must be a positive integer');
  }
  const keyWindow = keyBudgetWindow(options.keyRatePerSecond, options.keyBurst);
  const store = options.redisUrl ? new SharedRateLimitStore({ redisUrl: options.redisUrl, logger: env.logger, registry: env.registry, commandTimeoutMs: options.redisCommandTimeoutMs, tracer: env.tracer }) : null;
  const common = { maxEntries, logger: env.logger, store: store ?? undefined };
  const keys = new RateBudget({ name: 'key', ...keyWindow, ...common });
  // A session spends its own budget, never its creating key's: customers' browsers cannot starve the merchant's server.
  const sessions = new RateBudget({ name: 'session', ...keyBudgetWindow(options.sessionRatePerSecond ?? 20, options.sessionBurst ?? 40), ...common });
  const sessionMaxCost = options.sessionMaxCost ?? DEFAULT_SESSION_MAX_COST;
  if (!Number.isInteger(sessionMaxCost) || sessionMaxCost < 1) throw new Error('useRateLimit: sessionMaxCost must be a positive integer');
  // The event loop's delay says whether this process kept up in the last second (a native histogram: nothing
  // per request; read and reset once per share window).
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const overloaded = (): boolean => {
    const p99Ms = loopDelay.percentile(99) / 1e6;
    loopDelay.reset();
    return p99Ms > OVERLOADED_LOOP_DELAY_MS;
  };
  const merchantShare = new MerchantShare({ capacityPerSecond: options.merchantShareCapacity ?? DEFAULT_MERCHANT_SHARE_CAPACITY, maxMerchants: maxEntries, now: env.now, overloaded });
  const failures = new RateBudget({ name: 'auth_failures', points: options.authFailuresPerMinute, durationSeconds: 60, ...common });

  /** Spend one failure of the request's client address (request state, contract §6); past the budget the 401 becomes a 429. */
  async function chargeFailure(state: RequestState, setResponse: (r: Response) => void, ResponseCtor: typeof Response): Promise<void> {
    const retryAfter = await failures.consume(addressKey(state.clientAddress));
    if (retryAfter > 0) setResponse(errorResponseFor(ResponseCtor, state, rateLimited('address', retryAfter)));
  }

  function refuse(error: AppError, state: RequestState, endResponse: (r: Response) => void, ResponseCtor: typeof Response): void {
    endResponse(errorResponseFor(ResponseCtor, state, error));
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
      // The merchant share first: synchronous, so a merchant past its share is refused before any Redis round trip.
      if (!session) merchantShare.record(state.principal.merchantId, 1);
      else if (!merchantShare.admit(state.principal.merchantId, 1)) return refuse(rateLimited('merchant', 1), state, endResponse, fetchAPI.Response);
      const decision = session ? sessions.consume(session.id) : keys.consume(state.principal.apiKeyId);
      if (typeof decision === 'number') return refuseKey(decision, state, endResponse, fetchAPI.Response);
      return decision.then((retryAfter) => refuseKey(retryAfter, state, endResponse, fetchAPI.Response));
    },
  };

  /** What the cost step reads of envelop's execute / subscribe arguments (typed loosely there). */
  type OperationArgs = { contextValue: object; schema: GraphQLSchema; document: DocumentNode; operationName?: string | null };

  /** The refusal as the operation's result, with the contract status and headers Yoga sends for it. */
  const refusal = (error: AppError): { errors: GraphQLError[] } => ({
    errors: [answerError(error.message, { extensions: { ...error.details, code: error.code, http: { status: statusOf(error.code), headers: error.headers } } })],
  });

  /**
   * The rest of the cost (the first unit was spent by keyLimit): undefined when admitted, else the refusal.
   * Synchronous unless a shared (Redis) budget decides.
   */
  function spendCost(contextValue: object, schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): AppError | undefined | Promise<AppError | undefined> {
    const state = requestStateOf(contextValue);
    const principal = state?.principal;
    if (!principal) return undefined;
    const cost = operationCost(schema, document, operationName);
    const session = principal.session;
    if (session && cost > sessionMaxCost) {
      return new AppError(
        'SESSION_SCOPE',
        `This document costs ${cost} work units; a checkout session may send documents of at most ${sessionMaxCost} (a channel list, its fees, a calculation). Send heavier documents from your server with a signed call.`,
        { sessionId: session.id, cost, maxCost: sessionMaxCost },
      );
    }
    const extra = cost - 1;
    if (extra === 0) return undefined;
    if (!session) merchantShare.record(principal.merchantId, extra);
    else if (!merchantShare.admit(principal.merchantId, extra)) return rateLimited('merchant', 1);
    const decision = session ? sessions.consume(session.id, extra) : keys.consume(principal.apiKeyId, extra);
    const verdict = (retryAfter: number): AppError | undefined => (retryAfter > 0 ? rateLimited(session ? 'session' : 'key', retryAfter) : undefined);
    return typeof decision === 'number' ? verdict(decision) : decision.then(verdict);
  }

  /** Spend an operation's cost before it runs (execute and subscribe alike); a refusal stops it. */
  function chargeOperation({ args, setResultAndStopExecution }: { args: unknown; setResultAndStopExecution: (result: { errors: GraphQLError[] }) => void }): Promise<void> | void {
    const { contextValue, schema, document, operationName } = args as OperationArgs;
    const decided = spendCost(contextValue, schema, document, operationName);
    const apply = (error: AppError | undefined): void => {
      if (error) setResultAndStopExecution(refusal(error));
    };
    if (decided instanceof Promise) return decided.then(apply);
    apply(decided);
  }

  const costBudget: Plugin = { onExecute: chargeOperation, onSubscribe: chargeOperation };

  return {
    addressGate,
    keyLimit,
    costBudget,
    merchantShare,
    store,
    close: () => {
      loopDelay.disable();
      store?.close();
    },
  };
}
