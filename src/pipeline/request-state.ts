/**
 * The one per-request state of the pipeline: every fact a plugin hands to a later hook of the same request
 * is a typed field here, declared once, so plugins share no hidden slots and import no other plugin.
 *
 * Stored on Yoga's per-request server context under one property, because that object is what Yoga hands
 * to execution as the GraphQL context and it survives `setRequest` (which the REST adapter uses). A
 * property, not a WeakMap keyed by the context: WeakMap entries survive V8's young-generation GC (measured:
 * ~1.6 MB promoted per scavenge, 4 ms pauses). One plain object per request, no closure: this is the hot path.
 */
import { randomUUID } from 'node:crypto';
import type { Span } from '@opentelemetry/api';
import type { DataStamp, VersionedCache } from '../shared/versioned-cache.js';

export type { Principal } from '../modules/auth/principal.js';
import type { Principal } from '../modules/auth/principal.js';

export type { Surface } from '../shared/routes.js';
import type { RestRouteDef, Surface } from '../shared/routes.js';

/** The REST route a request matched, if any. */
export interface RestRoute {
  name: RestRouteDef['name'];
  /** Variables for the route's prebuilt GraphQL operation. */
  variables?: Record<string, unknown>;
}

/** An answer the answer cache keeps: its bytes and headers (lower-case names). */
export interface KeptAnswer {
  bytes: Buffer;
  headers: Record<string, string>;
}

/** What the answer cache's lookup decided for a cacheable miss, for its store hook. */
export interface PendingAnswer {
  cache: VersionedCache<string, KeptAnswer>;
  key: string;
  /** The shared data version the answer is computed at: an answer computed across a change is not kept. */
  token: string | number;
  /** The caller's merchant stamp as of its verification: an answer computed across a change of that merchant is not kept. */
  stamp: DataStamp;
  /** False once the result is known to carry errors (or is a stream). */
  ok: boolean;
}

/** One request's claim on its API key's (or checkout session's) event-stream budget. */
export interface LiveStreamSlot {
  /** The event stream took over releasing it. */
  streaming: boolean;
  /** Extend the slot's lease (the stream's heartbeat). */
  renew(): void;
  /** Free the slot; idempotent. */
  release(): void;
}

/** Mutable state of one HTTP request. */
export interface RequestState {
  /** The client's sane `X-Request-Id`, else a new UUID; in every log line and error body. */
  id: string;
  startedAt: number;
  /** Set by the request context plugin from the route table; `public` until then. */
  surface: Surface;
  /** Raw target as sent (path + query), used for signing and logging. */
  target: string;
  method: string;
  /**
   * The client's address (contract §6): the socket peer, or from a trusted balancer the last untrusted hop
   * of `X-Forwarded-For` (src/shared/client-address.ts). Computed once, by the request context plugin; the
   * address budget and the request log line read it here and nothing reads a socket address. Undefined on
   * a transport without a socket.
   */
  clientAddress?: string;
  /** `If-None-Match` as the client sent it, taken before the REST adapter replaces the request (ETag plugin). */
  ifNoneMatch?: string;
  /** The caller, once the signature plugin verified it. Execution never starts without one. */
  principal?: Principal;
  /**
   * The `Origin` a checkout session request may be answered to with CORS headers: set by the authentication
   * step only for an authentic client secret whose merchant allows that origin (contract §9).
   */
  corsOrigin?: string;
  /** The id of an authentic checkout session secret (refused or not), for the request log; never the secret. */
  sessionId?: string;
  /** The body bytes the signature covered, for the REST adapter and the answer cache (never read twice). */
  verifiedBody?: Uint8Array<ArrayBuffer>;
  /** The REST route this request was rewritten from (REST adapter; the answer cache for kept lists). */
  rest?: RestRoute;
  /** Where the answer cache will keep this request's answer if it succeeds. */
  pendingAnswer?: PendingAnswer;
  /** The event-stream slot this request holds (live streams plugin). */
  liveStreamSlot?: LiveStreamSlot;
  /** A subscription of this request was refused its slot (answered as JSON with 429, whatever it accepted). */
  liveStreamRefused?: boolean;
  /** Contract code of the error the response carries, for logs. */
  errorCode?: string;
  /**
   * The client closed the request before its body was complete: logged and counted as 499 whatever was
   * answered (a 400, if anyone still listens); never a 5xx ({@link loggedStatus}).
   */
  clientClosedRequest?: boolean;
  /** An unexpected failure that was masked for the client; logged once with the request id. */
  unexpected?: unknown;
  /** The request's SERVER span (contract §13), only while tracing is on (plugins/use-tracing.ts). */
  span?: Span;
}

/** nginx's "client closed request": in the request log and `http_requests_total` only, never on the wire. */
export const CLIENT_CLOSED_REQUEST = 499;

/** The status a request is logged and counted with: the answer's, or 499 when the client closed the request first. */
export function loggedStatus(state: RequestState, status: number): number {
  return state.clientClosedRequest === true ? CLIENT_CLOSED_REQUEST : status;
}

/** The server context's one property that carries the request state. */
const STATE = Symbol('requestState');

type Carrier = { [STATE]?: RequestState };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Begin the state of a new request (the request context plugin, first to see every request); a sane client
 * `X-Request-Id` is kept, anything else replaced. What a hook placed earlier recorded is kept.
 */
export function initRequestState(serverContext: object, request: Pick<Request, 'method'> & { headers: { get(name: string): string | null } }, rawTarget: string): RequestState {
  const incoming = request.headers.get('x-request-id');
  const state = requestStateFor(serverContext);
  state.id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  state.startedAt = performance.now();
  state.target = rawTarget;
  state.method = request.method.toUpperCase();
  return state;
}

/** The state of this request, created empty when a hook ahead of the request context plugin needs it first. */
export function requestStateFor(serverContext: object): RequestState {
  const carrier = serverContext as Carrier;
  return (carrier[STATE] ??= { id: '', startedAt: 0, surface: 'public', target: '', method: '' });
}

/** The state of the request owning this server context / GraphQL context (undefined before the pipeline began it). */
export function requestStateOf(context: object): RequestState | undefined {
  return (context as Carrier)[STATE];
}
