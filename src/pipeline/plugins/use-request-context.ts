/**
 * First user plugin of every request: creates the per-request state
 * (request id, surface), answers unknown paths with a 404 problem, gives
 * every GraphQL error its contract code and request id, returns
 * `X-Request-Id`, and writes one log line per request (repeated refusals summarised: ../refusal-log.ts).
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { AppError } from '../../shared/errors.js';
import { normalizeResultErrors, originalOfMasked } from '../error-normalizer.js';
import { initRequestState, loggedStatus, requestStateOf, type RequestState, type Surface } from '../request-state.js';
import { JSON_MEDIA } from '../transport/body.js';
import { nodeRequestOf } from '../transport/node-request.js';
import { serverSpanOf } from '../tracing.js';
import { parseGraphQLGetRequest } from '../graphql-get-params.js';
import { isGraphiQLPageRequest } from '../../modules/docs/graphiql-page.js';
import { errorResponseFor, problemResponse } from '../responses.js';
import { isPrefixPath } from '../../shared/routes.js';
import { writeInfoLine } from '../../shared/logger.js';
import { clientAddressOf, plainAddress, type TrustedProxies } from '../../shared/client-address.js';
import { isRefusal, refusalLogOf, type RefusalLog } from '../refusal-log.js';

/** The client address of a request, for a transport the default cannot see a socket on (tests in-process). */
export type ClientAddressResolver = (request: Request, serverContext: object) => string | undefined;

/** Options of {@link useRequestContext}. */
export interface RequestContextOptions {
  graphqlEndpoint: string;
  /** Prefix of the legacy REST routes (`/v1/payments`). */
  restPrefix: string;
  /** Further exact paths of signed REST routes outside the prefix (`/v1/checkout/sessions`). */
  restPaths?: readonly string[];
  /** Paths (exact, or prefixes ending in "/") served publicly by later plugins. */
  publicPaths: readonly string[];
  logger: Logger;
  /** TRUSTED_PROXIES: balancers whose `X-Forwarded-For` names the client (contract §6); null/absent = none. */
  trustedProxies?: TrustedProxies | null;
  /** Replaces the socket-based client address (default {@link socketClientAddress}). */
  clientAddress?: ClientAddressResolver;
  /** Where refusals are summarised (default: the logger's own, {@link refusalLogOf}). */
  refusalLog?: RefusalLog;
}

interface NodeServerContext {
  req?: { url?: string; headers?: Record<string, string | string[] | undefined>; socket?: { remoteAddress?: string } };
}

/**
 * The client address from the Node request behind `request` (or Yoga's stock `serverContext.req`): the
 * socket peer, or from a trusted balancer its `X-Forwarded-For` (src/shared/client-address.ts). Without
 * trusted proxies the header is never read.
 */
export function socketClientAddress(trusted: TrustedProxies | null): ClientAddressResolver {
  if (trusted === null) {
    return (request, serverContext) => {
      const peer = (nodeRequestOf(request) ?? (serverContext as NodeServerContext).req)?.socket?.remoteAddress;
      return peer === undefined ? undefined : plainAddress(peer);
    };
  }
  return (request, serverContext) => {
    const req = nodeRequestOf(request) ?? (serverContext as NodeServerContext).req;
    const forwarded = req?.headers?.['x-forwarded-for'];
    return clientAddressOf(req?.socket?.remoteAddress, Array.isArray(forwarded) ? forwarded.join(', ') : forwarded, trusted);
  };
}

/**
 * The request's log line. A refusal (a 4xx with a contract code) goes through `refusals`: the first of its
 * (client address, code) gets this line, repeats are counted into one line a second (src/pipeline/refusal-log.ts).
 */
export function logRequest(logger: Logger, state: RequestState, status: number, refusals?: RefusalLog): void {
  const logged = loggedStatus(state, status);
  if (refusals !== undefined && state.unexpected === undefined && isRefusal(logged, state.errorCode)) {
    refusals.record(state.clientAddress, state.errorCode, logged, () => writeRequestLine(logger, state, logged));
    return;
  }
  writeRequestLine(logger, state, logged);
}

function writeRequestLine(logger: Logger, state: RequestState, status: number): void {
  // Contract §13: while tracing is on, the line names its trace, sampled or not (undefined fields are left out:
  // with tracing off a line has neither).
  const traced = state.span?.spanContext();
  const line = {
    requestId: state.id,
    method: state.method,
    route: state.target.split('?')[0],
    // The client's address (behind a trusted balancer, from its X-Forwarded-For), never the balancer's.
    clientAddress: state.clientAddress,
    // 499 when the client closed the request before its body was complete (never a 5xx of ours).
    status,
    durationMs: Math.round((performance.now() - state.startedAt) * 100) / 100,
    merchantId: state.principal?.merchantId,
    // A checkout session is logged by its id only, never by its client secret (contract §9).
    sessionId: state.sessionId,
    errorCode: state.errorCode,
  };
  if (state.unexpected !== undefined) logger.error({ ...line, trace_id: traced?.traceId, span_id: traced?.spanId, err: state.unexpected }, 'request failed unexpectedly');
  // Built right here from a fixed set of scalar fields (none is a secret, a header or a body), so the
  // redaction paths could never match it: written without that pass, serialised in C++ (writeInfoLine).
  // The ids are lowercase hex by construction (the id generator's, or a balancer's traceparent, which the W3C
  // propagator accepts only as hex): they go in as they are.
  else writeInfoLine(logger, line, 'request', traced === undefined ? '' : `,"trace_id":"${traced.traceId}","span_id":"${traced.spanId}"`);
}

export function useRequestContext(options: RequestContextOptions): Plugin {
  const { graphqlEndpoint, restPrefix, logger } = options;
  if (!graphqlEndpoint.startsWith('/') || !restPrefix.startsWith('/')) throw new Error('useRequestContext: paths must start with "/"');
  const exact = new Set(options.publicPaths.filter((p) => !isPrefixPath(p)));
  const prefixes = options.publicPaths.filter(isPrefixPath);
  const restPaths = new Set(options.restPaths ?? []);
  const clientAddress = options.clientAddress ?? socketClientAddress(options.trustedProxies ?? null);
  const refusals = options.refusalLog ?? refusalLogOf(logger);

  function surfaceOf(request: Request, pathname: string): Surface | null {
    // The GraphiQL page is public (contract §3): no signature, no database.
    if (pathname === graphqlEndpoint) return isGraphiQLPageRequest(request) ? 'public' : 'graphql';
    if (pathname === restPrefix || pathname.startsWith(`${restPrefix}/`) || restPaths.has(pathname)) return 'rest';
    if (exact.has(pathname) || prefixes.some((p) => pathname.startsWith(p))) return 'public';
    return null;
  }

  return {
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      // Node gives the raw request target; URL parsing would normalise it, and SVC1 signs it as sent.
      const nodeRequest = nodeRequestOf(request);
      const rawTarget = nodeRequest?.url ?? (serverContext as NodeServerContext).req?.url ?? `${url.pathname}${url.search}`;
      const state = initRequestState(serverContext, request, rawTarget);
      // Contract §13, while tracing is on: the SERVER span the transport started (this is the first hook that may
      // answer a request, so every request line names its trace). None on the in-process transport.
      const span = serverSpanOf(nodeRequest);
      if (span !== undefined) state.span = span;
      state.clientAddress = clientAddress(request, serverContext);
      const surface = surfaceOf(request, url.pathname);
      if (surface === null) {
        state.errorCode = 'NOT_FOUND';
        endResponse(problemResponse(fetchAPI.Response, new AppError('NOT_FOUND', `No route ${url.pathname}.`), state.id));
        return;
      }
      state.surface = surface;
    },
    onRequestParse({ request, serverContext, requestParser, setRequestParser, endResponse, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state) return;
      if (request.method !== 'GET' && request.method !== 'POST') {
        const error = new AppError('METHOD_NOT_ALLOWED', 'GraphQL accepts GET and POST only.', { allow: 'GET, POST' }, { Allow: 'GET, POST' });
        endResponse(errorResponseFor(fetchAPI.Response, state, error));
        return;
      }
      // GraphQL over POST is JSON only (contract §4: a POST body that is not JSON is 415).
      const contentType = request.headers.get('content-type') ?? '';
      if (!requestParser || (request.method === 'POST' && !JSON_MEDIA.test(contentType))) {
        const error = new AppError('UNSUPPORTED_MEDIA_TYPE', 'GraphQL requests must be POSTed as JSON (Content-Type: application/json) or sent as GET.', {
          contentType,
        });
        endResponse(errorResponseFor(fetchAPI.Response, state, error));
        return;
      }
      // Malformed `variables`/`extensions` in the query string are the client's 400, not an unexpected 500.
      if (request.method === 'GET') setRequestParser(parseGraphQLGetRequest);
    },
    onResultProcess({ serverContext, result, setResult }) {
      const state = requestStateOf(serverContext);
      if (!state || Array.isArray(result) || !('errors' in result || 'data' in result)) return;
      const normalized = normalizeResultErrors(result as Parameters<typeof normalizeResultErrors>[0], state.id);
      const first = normalized.errors?.[0];
      if (first) {
        state.errorCode = String(first.extensions.code);
        for (const e of normalized.errors ?? []) {
          const original = originalOfMasked(e);
          if (original !== undefined) state.unexpected ??= original;
        }
      }
      setResult(normalized as typeof result);
    },
    onResponse({ serverContext, response }) {
      const state = requestStateOf(serverContext);
      if (!state) return;
      response.headers.set('X-Request-Id', state.id);
      logRequest(logger, state, response.status, refusals);
    },
  };
}
