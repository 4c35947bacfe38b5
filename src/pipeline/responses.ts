/**
 * Rendering an {@link AppError} for each surface. The status always comes
 * from the contract table in src/shared/errors.ts.
 */
import { AppError, problemDetails, type ErrorCode, type ErrorDetails } from '../shared/errors.js';
import type { RequestState } from './request-state.js';

type ResponseCtor = typeof Response;

/**
 * Responses whose bytes are already in memory (the answer cache's, src/pipeline/plugins/use-answer-cache.ts) carry
 * them under this key, so onResponse hooks can read them without copying and the Node transport writes
 * them as they are; the same Buffer object is sent for every hit of a kept answer and is never modified
 * (hooks may memoise per Buffer, as useHttpCaching does for ETags).
 *
 * A mark on the Response, not a field of the request state: it describes that Response object and must
 * follow it when a hook replaces the response (setResponse with a 304 or a 429 drops it, which is right),
 * and the transport, which knows only the Response, reads it.
 */
export const RESPONSE_BYTES = Symbol('responseBytes');

/** A response that may carry {@link RESPONSE_BYTES}. */
export type ResponseWithBytes = Response & { [RESPONSE_BYTES]?: Buffer };

/**
 * Where an event stream's bytes go (contract §8b). The Node transport writes them straight to the client's
 * socket (node-transport.ts: no web stream, no pump between the event and the socket); in process
 * (`yoga.fetch`) they are the Response body, read as the client reads it (live/event-stream.ts).
 */
export interface EventSink {
  /** Bytes, or text to be sent as UTF-8. */
  write(bytes: Uint8Array | string): void;
  /** Bytes written that the client's connection has not taken yet (beyond the kernel's socket buffers). */
  pending(): number;
  /** The stream is over: finish the body. */
  end(): void;
  /** The client stopped reading: drop its connection (in process: end the body). */
  cutOff(): void;
}

/** What a sink calls when its client goes away before the stream's end (connection closed, body cancelled). */
export type SinkClosed = (how?: 'aborted' | 'cancelled') => void;

/**
 * Marks a Response whose body is an event stream that a transport may attach its own sink to (once, instead
 * of reading the body): the mark, like {@link RESPONSE_BYTES}, follows that Response object only.
 */
export const EVENT_STREAM = Symbol('eventStream');
/** A response that may carry {@link EVENT_STREAM}. */
export type ResponseWithEventStream = Response & { [EVENT_STREAM]?: { attach(sink: EventSink): SinkClosed } };

/**
 * Headers of a response this service builds, as a `Map` of lower-case names. Handed to the fetch ponyfill's
 * `Response` as its init, it becomes that response's `headers` object itself (the ponyfill keeps any
 * headers-like init as is). Why: the ponyfill's own `Headers` over a plain-object init adds every later
 * `set` (ETag, Cache-Control, X-Request-Id on every answer) as a new property of that object, which sends
 * it into V8's dictionary mode on each response; measured under 50 connections, three such sets cost
 * ≈ 10 µs a request. Set-Cookie is not supported (this service never sets a cookie).
 */
export class ResponseHeaders implements Iterable<[string, string]> {
  readonly #map: Map<string, string>;
  /** From lower-case name/value pairs (copied: the caller's object is never modified). */
  constructor(init?: Readonly<Record<string, string>>) {
    this.#map = new Map();
    if (init) for (const name in init) this.#map.set(name.toLowerCase(), init[name]!);
  }
  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }
  set(name: string, value: string): void {
    this.#map.set(name.toLowerCase(), String(value));
  }
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const old = this.#map.get(key);
    this.#map.set(key, old === undefined ? String(value) : `${old}, ${value}`);
  }
  delete(name: string): void {
    this.#map.delete(name.toLowerCase());
  }
  getSetCookie(): string[] {
    return [];
  }
  forEach(callback: (value: string, name: string, parent: ResponseHeaders) => void): void {
    for (const [name, value] of this.#map) callback(value, name, this);
  }
  entries(): HeadersIterator<[string, string]> {
    return this.#map.entries();
  }
  keys(): HeadersIterator<string> {
    return this.#map.keys();
  }
  values(): HeadersIterator<string> {
    return this.#map.values();
  }
  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.#map.entries();
  }
  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

/** Response headers for {@link ResponseHeaders}' constructor, typed as a fetch `HeadersInit`. */
export function responseHeaders(init?: Readonly<Record<string, string>>): Headers {
  return new ResponseHeaders(init);
}

/** RFC 9457 problem details response (REST and public routes). */
export function problemResponse(Response: ResponseCtor, error: AppError, requestId: string): Response {
  return new Response(JSON.stringify(problemDetails(error.code, error.message, error.details, requestId)), {
    status: error.status,
    headers: responseHeaders({ 'Content-Type': 'application/problem+json', ...error.headers }),
  });
}

/** GraphQL-shaped error response, for failures before execution (auth, body limits). */
export function graphqlErrorResponse(Response: ResponseCtor, error: AppError, requestId: string): Response {
  const body = { errors: [{ message: error.message, extensions: graphqlExtensions(error.code, error.details, requestId) }] };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: responseHeaders({ 'Content-Type': 'application/json; charset=utf-8', ...error.headers }),
  });
}

/** The `extensions` of a GraphQL error for a contract code. */
export function graphqlExtensions(code: ErrorCode, details: ErrorDetails, requestId: string): Record<string, unknown> {
  return { ...details, code, requestId };
}

/** The error response for this request's surface. */
export function errorResponseFor(Response: ResponseCtor, state: RequestState, error: AppError): Response {
  state.errorCode = error.code;
  return state.surface === 'graphql' ? graphqlErrorResponse(Response, error, state.id) : problemResponse(Response, error, state.id);
}

/**
 * The answer to a GET or HEAD of a resource whose bytes are `body`: a HEAD answer has no body but carries the
 * Content-Length the GET answer has (RFC 9110 §9.3.2: a client sizes a download by it). The node transport
 * keeps that declared length for a bodiless HEAD answer (node-transport.ts, writeWhole).
 */
export function getOrHeadAnswer(Response: ResponseCtor, method: string, body: string | Uint8Array, init: { status?: number; headers: Record<string, string> }): Response {
  if (method.toUpperCase() !== 'HEAD') return new Response(body as BodyInit, init);
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  return new Response(null, { ...init, headers: { ...init.headers, 'Content-Length': String(length) } });
}

/**
 * A read-only public resource (pages, documents, the checkout module, /metrics) answers GET and HEAD only:
 * the 405 problem for any other method, recorded on the request state for the log and metrics; null when the
 * method is fine.
 */
export function getOrHeadOnly(Response: ResponseCtor, method: string, pathname: string, state: RequestState | undefined): Response | null {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') return null;
  const error = new AppError('METHOD_NOT_ALLOWED', `${pathname} accepts GET only.`, { allow: 'GET, HEAD' }, { Allow: 'GET, HEAD' });
  if (state) state.errorCode = error.code;
  return problemResponse(Response, error, state?.id ?? '');
}
