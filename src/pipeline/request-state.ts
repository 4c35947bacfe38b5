/**
 * Per-request state shared by the plugins of one request: its id, which
 * surface it belongs to, and (once verified) who is calling.
 *
 * Stored on Yoga's per-request server context under a symbol, because that
 * object is what Yoga hands to execution as the GraphQL context (it survives
 * `setRequest`, which the REST adapter uses).
 */
import { randomUUID } from 'node:crypto';

export type { Principal } from '../modules/auth/principal.js';
import type { Principal } from '../modules/auth/principal.js';

/** Which surface a request is served by; decides the error format. */
export type Surface = 'graphql' | 'rest' | 'public';

/** The REST route a request matched, if any. */
export interface RestRoute {
  name: 'listChannels' | 'calculateFee';
  /** Variables for the route's prebuilt GraphQL operation. */
  variables?: Record<string, unknown>;
}

/** Mutable state of one HTTP request. */
export interface RequestState {
  id: string;
  startedAt: number;
  surface: Surface;
  /** Raw target as sent (path + query), used for signing and logging. */
  target: string;
  method: string;
  principal?: Principal;
  rest?: RestRoute;
  /** Contract code of the error the response carries, for logs. */
  errorCode?: string;
  /** An unexpected failure that was masked for the client; logged once with the request id. */
  unexpected?: unknown;
}

const STATE = Symbol('requestState');

type Carrier = Record<PropertyKey, unknown>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Create the state of a new request; a sane client `X-Request-Id` is kept, anything else replaced. */
export function initRequestState(serverContext: object, request: Pick<Request, 'method'> & { headers: { get(name: string): string | null } }, rawTarget: string): RequestState {
  const incoming = request.headers.get('x-request-id');
  const state: RequestState = {
    id: incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID(),
    startedAt: performance.now(),
    surface: 'public',
    target: rawTarget,
    method: request.method.toUpperCase(),
  };
  (serverContext as Carrier)[STATE] = state;
  return state;
}

/** The state of the request owning this server context / GraphQL context. */
export function requestStateOf(context: object): RequestState | undefined {
  return (context as Carrier)[STATE] as RequestState | undefined;
}
