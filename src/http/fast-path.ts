/**
 * Node fast path for the hot requests: signed `POST /graphql` JSON queries,
 * `GET /v1/payments/channel` and `POST /v1/payments/calculate`.
 *
 * Why: a CPU profile of the plain Yoga server shows the per-request WHATWG
 * `Request`/`Response` adaptation (plus the REST adapter's second Request),
 * not GraphQL execution, as the ceiling. This handler reads the raw Node
 * request and drives the SAME Yoga instance's envelop (`yoga.getEnveloped`:
 * schema, parser/validation cache, graphql-jit, context factory, masking and
 * every envelop-level plugin) directly, then writes the raw response.
 *
 * Invariants (one implementation of everything client-visible):
 * - Authentication is the signature plugin's own verifier
 *   (`createSignatureVerifier`), REST input checking is the REST adapter's
 *   (`calculateVariables`), REST wire rendering is `restSuccessBody`, the log
 *   line is `logRequest`, the request id is `initRequestState`'s.
 * - The fast path only ever answers SUCCESS. Any failure — auth, malformed
 *   body, parse/validation errors, any GraphQL error, an unusual header
 *   (Origin/CORS, Accept) — hands the request, with the bytes already read, to
 *   the full Yoga pipeline, which produces the one and only error answer.
 *   All operations are read-only queries, so executing again is harmless.
 *   The sole exception is a body over the limit, whose bytes cannot be handed
 *   on: it is answered here through the shared `errorResponseFor`.
 * - Cached REST channel lists are keyed by merchant + KYC and dropped on any
 *   database change from any process (src/db/data-version.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { VersionedCache } from '../cache/versioned-cache.js';
import type { GraphQLContext } from '../context.js';
import type { DataVersion } from '../db/data-version.js';
import { AppError } from '../errors.js';
import { logRequest } from '../plugins/use-request-context.js';
import { ROUTES, REST_SUCCESS_HEADERS, calculateVariables, restSuccessBody } from '../plugins/use-rest-adapter.js';
import type { SignatureVerifier, VerifiableRequest } from '../plugins/use-signature-auth.js';
import { tooLarge } from './body.js';
import { toAppError } from './error-normalizer.js';
import { initRequestState, type RequestState, type Surface } from './request-state.js';
import { errorResponseFor, RESPONSE_BYTES } from './responses.js';

/** Options of {@link createNodeHandler}. */
export interface FastPathOptions {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>;
  verifier: SignatureVerifier;
  logger: Logger;
  graphqlEndpoint: string;
  dataVersion: DataVersion;
  /** Counters for tests and diagnosis: requests answered here vs handed to the full pipeline. */
  stats?: FastPathStats;
  /**
   * The pipeline's other plugins (everything except request context, signature
   * auth and REST adapter, which the fast path replaces by their shared
   * functions): their `onRequest` hooks run here, in order, once the answer is
   * ready and before it is sent (rate limits, metrics, ...) and may replace it
   * via `endResponse`; their `onResponse` hooks see (and may add headers to)
   * every answer sent from here. A hook calling `setRequest` sends the request
   * down the full pipeline instead. Hooks never run twice for one request:
   * a request handed to Yoga ran none of them here.
   */
  hookPlugins?: Plugin[];
  /** Successful answers kept per (API key, exact request) until the data changes; 0 = none. Default 10,000. */
  answerCacheEntries?: number;
}

/** How many requests the fast path answered itself and how many it handed to Yoga. */
export interface FastPathStats {
  fast: number;
  fallback: number;
  restListCacheHits: number;
  /** GraphQL and REST calculate answers served from the per-key result cache. */
  resultCacheHits: number;
}

/** A Node `request` listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

const JSON_CONTENT = /^application\/json\s*(?:;|$)/i;
const GQL_RESPONSE = 'application/graphql-response+json';
const ALLOWED_PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);
/** Larger request bodies are executed every time (their answers are not kept). */
const RESULT_CACHE_MAX_BODY = 4096;

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/**
 * One request on the fast path. Per-request data lives in this plain object, never in a WeakMap keyed by
 * the request: V8's young-generation GC cannot drop WeakMap entries, so every request's objects reached
 * from one survived scavenges, got promoted, and forced frequent full GCs (measured with --trace-gc-nvp:
 * ~1.6 MB promoted per scavenge, 4 ms pauses, p99 well above 10 ms).
 */
interface Exchange {
  res: ServerResponse;
  state: RequestState;
  serverContext: Record<string, unknown>;
  /** The body bytes the signature covered, once verified (for a late hand-over to the pipeline). */
  verifiedBody: Uint8Array | null;
}

/** Signals "let the full pipeline answer this one". */
class Fallback {
  constructor(readonly body: Uint8Array | null) {}
}

/** WHATWG-style header access over Node's parsed headers (duplicates joined as Headers.get does). */
function nodeHeaders(req: IncomingMessage): VerifiableRequest {
  return {
    method: req.method ?? 'GET',
    headers: {
      get(name: string): string | null {
        const v = req.headers[name];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    },
  };
}

/** The whole body, never more than `limit` bytes (PAYLOAD_TOO_LARGE, as src/http/body.ts). */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        req.off('data', onData);
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      resolve(new Uint8Array(buf.buffer as ArrayBuffer, buf.byteOffset, buf.byteLength));
    });
    req.once('error', reject);
  });
}

/** A `Request` stand-in: method/url/headers from Node, anything else from a real Request built on first use. */
function requestFacade(req: IncomingMessage, adapter: VerifiableRequest): Request {
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  let real: Request | undefined;
  const realRequest = () => (real ??= new Request(url, { method: adapter.method, headers: req.headers as Record<string, string> }));
  return new Proxy({} as Request, {
    get(_target, prop) {
      if (prop === 'method') return adapter.method;
      if (prop === 'url') return url;
      if (prop === 'headers') return adapter.headers;
      const value = Reflect.get(realRequest(), prop) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(realRequest()) : value;
    },
  });
}

/**
 * The onRequest payload of one fast-path request, shaped like Yoga's. A class on purpose: an object literal
 * with a `get url()` accessor made V8 build per-request accessor objects that outlived young-generation
 * collections (measured with --trace-gc-nvp: ~1.4 MB promoted per scavenge, 3-6 ms pauses, RSS +70 MB);
 * a prototype getter costs nothing per request. The setters are instance arrows because hooks destructure
 * them (`onRequest({ endResponse })`) and call them unbound.
 */
class OnRequestPayload {
  ended: Response | undefined = undefined;
  rerouted = false;
  constructor(
    readonly request: Request,
    readonly serverContext: Record<string, unknown>,
    readonly fetchAPI: unknown,
    readonly requestHandler: unknown,
  ) {}
  get url(): URL {
    return urlOf(this.request.url);
  }
  readonly setRequestHandler = (): void => {
    this.rerouted = true;
  };
  readonly setRequest = (): void => {
    this.rerouted = true;
  };
  readonly endResponse = (response: Response): void => {
    this.ended = response;
  };
}

/**
 * A minimal case-insensitive `Headers` over the headers the fast path is about to write, for onResponse
 * hooks (they get, set and delete a few; `new Headers(bag)` copies it). A WHATWG Headers object per
 * request, converted back to a record, cost more than the hooks themselves.
 */
class HeaderBag implements Iterable<[string, string]> {
  readonly #map: Map<string, string>;
  constructor(init: Record<string, string>) {
    // Invariant: keys are lower-case (the fast path builds `init` that way).
    this.#map = new Map(Object.entries(init));
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
    const prev = this.#map.get(key);
    this.#map.set(key, prev === undefined ? String(value) : `${prev}, ${value}`);
  }
  delete(name: string): void {
    this.#map.delete(name.toLowerCase());
  }
  forEach(callback: (value: string, name: string, parent: HeaderBag) => void): void {
    for (const [k, v] of this.#map) callback(v, k, this);
  }
  getSetCookie(): string[] {
    const v = this.#map.get('set-cookie');
    return v === undefined ? [] : [v];
  }
  entries(): IterableIterator<[string, string]> {
    return this.#map.entries();
  }
  keys(): IterableIterator<string> {
    return this.#map.keys();
  }
  values(): IterableIterator<string> {
    return this.#map.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#map.entries();
  }
  toRecord(): Record<string, string> {
    return Object.fromEntries(this.#map);
  }
}

/**
 * Parsed URLs of the fast path's targets, shared between requests: a `new URL()` per request was ~1.5 %
 * of CPU, and the fast path takes only three paths (from a handful of Host values). Hooks read `url`
 * and never modify it (Yoga's contract too: it is derived from the request); the cache is bounded.
 */
const urlCache = new Map<string, URL>();
function urlOf(href: string): URL {
  let url = urlCache.get(href);
  if (url === undefined) {
    url = new URL(href);
    if (urlCache.size < 64) urlCache.set(href, url);
  }
  return url;
}

/** Which response media type Yoga would pick, or null when this Accept is not one the fast path mirrors. */
function mediaTypeFor(accept: string | undefined): string | null {
  if (accept === undefined || accept === '' || accept === '*/*' || accept === 'application/json') return 'application/json; charset=utf-8';
  if (accept === GQL_RESPONSE) return `${GQL_RESPONSE}; charset=utf-8`;
  return null;
}

export function createNodeHandler(options: FastPathOptions): NodeHandler {
  const { yoga, verifier, logger, graphqlEndpoint, stats } = options;
  const onRequestHooks = (options.hookPlugins ?? []).flatMap((p) => (p.onRequest ? [p.onRequest.bind(p)] : []));
  const onResponseHooks = (options.hookPlugins ?? []).flatMap((p) => (p.onResponse ? [p.onResponse.bind(p)] : []));
  // Read once: the Yoga instance is a proxy whose property reads are not free.
  const fetchAPI = yoga.fetchAPI;
  const requestHandler = yoga.handleRequest;
  // At most 1,000 merchants' lists and 64 MiB in total (a 10,000-channel list is ~3 MB).
  const restLists = new VersionedCache<string, Buffer>(options.dataVersion, 1_000, { weigh: (b) => b.length, max: 64 * 2 ** 20 });
  // Successful GraphQL and REST calculate answers per (API key, exact request): at most answerCacheEntries and
  // 32 MiB (each weighed with its key's maximum size). Emptied on any data change, like every data cache.
  const answerCacheEntries = options.answerCacheEntries ?? 10_000;
  const results = new VersionedCache<string, Buffer>(options.dataVersion, Math.max(1, answerCacheEntries), { weigh: (b) => b.length + RESULT_CACHE_MAX_BODY, max: 32 * 2 ** 20 });

  /** Full Yoga pipeline; with the body when it was already consumed from the socket. */
  async function fallback(req: IncomingMessage, res: ServerResponse, body: Uint8Array | null): Promise<void> {
    if (stats) stats.fallback++;
    if (body === null) {
      // Nothing consumed yet: the ordinary Yoga Node listener reads the request itself.
      await yoga.requestListener(req, res);
      return;
    }
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const response = await yoga.fetch(
      `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`,
      { method: req.method, headers, body: body.byteLength > 0 ? body : undefined },
      { req, res },
    );
    await sendResponse(res, response);
  }

  async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
    const bytes = Buffer.from(await response.arrayBuffer());
    const head: Record<string, string> = {};
    // Lower-case names: some Headers implementations keep the case they were given, and a second
    // "Content-Length" beside ours is a protocol error.
    response.headers.forEach((value, key) => {
      head[key.toLowerCase()] = value;
    });
    head['content-length'] = String(bytes.length);
    res.writeHead(response.status, head);
    res.end(bytes);
  }

  /** Send a successful answer (after the other plugins' hooks, if any). */
  function send(x: Exchange, contentType: string, body: Buffer | string, extra?: Readonly<Record<string, string>>): void | Promise<void> {
    const { res, state } = x;
    // Encoded once: its length is the Content-Length and the same bytes are written (and hashed for ETags).
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const head: Record<string, string> = {};
    if (extra) for (const name in extra) head[name.toLowerCase()] = extra[name]!;
    head['content-type'] = contentType;
    head['content-length'] = String(bytes.length);
    head['x-request-id'] = state.id;
    if (onRequestHooks.length === 0 && onResponseHooks.length === 0) return write(res, state, head, bytes);
    return sendAfterHooks(x, head, bytes);
  }

  function write(res: ServerResponse, state: RequestState, head: Record<string, string>, body: Buffer): void {
    res.writeHead(200, head);
    res.end(body);
    if (stats) stats.fast++;
    logRequest(logger, state, 200);
  }

  async function sendAfterHooks(x: Exchange, head: Record<string, string>, body: Buffer): Promise<void> {
    const { res, state, serverContext } = x;
    const request = serverContext.request as Request;
    // One payload for every hook of this request (Yoga builds one per request too). Hooks that return no
    // promise are not awaited: an await per hook per request was measurable.
    const payload = new OnRequestPayload(request, serverContext, fetchAPI, requestHandler);
    for (const hook of onRequestHooks) {
      const pending = hook(payload as never) as unknown;
      if (pending) await pending;
      if (payload.rerouted) throw new Fallback(x.verifiedBody);
      if (payload.ended) return sendEnded(x, payload.ended);
    }
    // onResponse hooks see a Response-like view: live headers (what they set is sent), and body readers
    // (clone/text, RESPONSE_BYTES) serving the very bytes about to be sent.
    const headers = new HeaderBag(head);
    let replacement: Response | undefined;
    const view = {
      status: 200,
      ok: true,
      headers,
      clone: () => new fetchAPI.Response(new Uint8Array(body), { status: 200, headers: [...headers] }),
      text: async () => body.toString('utf8'),
      [RESPONSE_BYTES]: body,
    };
    const onResponsePayload = { request, serverContext, response: view, setResponse: (r: Response) => (replacement = r), fetchAPI };
    for (const hook of onResponseHooks) {
      const pending = hook(onResponsePayload as never) as unknown;
      if (pending) await pending;
    }
    if (replacement) {
      replacement.headers.set('X-Request-Id', state.id);
      await sendResponse(res, replacement);
      logRequest(logger, state, replacement.status);
      return;
    }
    write(res, state, headers.toRecord(), body);
  }

  /** An answer a hook (or the body limit) produced here: onResponse hooks, request id, one log line. */
  async function sendEnded(x: Exchange, response: Response): Promise<void> {
    const { res, state, serverContext } = x;
    let final = response;
    for (const hook of onResponseHooks) {
      await hook({ request: serverContext.request as Request, serverContext, response: final, setResponse: (r: Response) => (final = r), fetchAPI } as never);
    }
    final.headers.set('X-Request-Id', state.id);
    await sendResponse(res, final);
    logRequest(logger, state, final.status);
  }


  /** Run one query through the Yoga instance's envelop; success only, anything else → Fallback. */
  async function execute(serverContext: Record<string, unknown>, query: string, variables: unknown, operationName: string | undefined, body: Uint8Array): Promise<ExecutionResult> {
    const params = { query, variables, operationName };
    // Yoga's own handler puts `request` and `params` on the context before getEnveloped. Plugins mostly read
    // `request.method` (Yoga's mutation-via-GET check on every parse) or headers: those are answered from the
    // Node request; any other property builds the real WHATWG Request once (measured: building it on every
    // request cost ~4 % of CPU).
    serverContext.params = params;
    const enveloped = yoga.getEnveloped(serverContext);
    let document;
    try {
      document = enveloped.parse(query);
    } catch {
      throw new Fallback(body);
    }
    if (enveloped.validate(enveloped.schema, document).length > 0) throw new Fallback(body);
    if (getOperationAST(document, operationName)?.operation !== 'query') throw new Fallback(body);
    const contextValue = await enveloped.contextFactory();
    const result = await enveloped.execute({ schema: enveloped.schema, document, contextValue, variableValues: variables as Record<string, unknown> | undefined, operationName });
    if (isAsyncIterable(result) || (result as ExecutionResult).errors?.length) throw new Fallback(body);
    return result as ExecutionResult;
  }

  async function handleFast(req: IncomingMessage, res: ServerResponse, surface: Surface, kind: 'graphql' | 'listChannels' | 'calculateFee', mediaType: string): Promise<void> {
    const adapter = nodeHeaders(req);
    const serverContext: Record<string, unknown> = { req, res };
    const state = initRequestState(serverContext, adapter, req.url ?? '/');
    state.surface = surface;
    serverContext.request = requestFacade(req, adapter);
    const x: Exchange = { res, state, serverContext, verifiedBody: null };
    const read: { body: Uint8Array | null } = { body: null };
    try {
      const verified = await verifier(adapter, state.target, async (limit) => (read.body = await readNodeBody(req, limit)));
      state.principal = verified.principal;
      const { principal } = verified;
      const bytes = verified.body;
      x.verifiedBody = bytes;

      if (kind === 'listChannels') {
        // Pre-serialised per merchant + KYC (the only inputs of the list) until the data changes.
        // Set before the cache lookup: onResponse hooks (ETag) key on the route for hits and misses alike.
        state.rest = { name: 'listChannels' };
        const key = `${principal.merchantId}\n${principal.merchantKyc}`;
        const { value: hit, token } = restLists.peek(key);
        if (hit !== undefined && stats) stats.restListCacheHits++;
        if (hit !== undefined) return await send(x, REST_SUCCESS_HEADERS['Content-Type']!, hit, REST_SUCCESS_HEADERS);
        const result = await execute(serverContext, ROUTES['/v1/payments/channel']!.query, undefined, undefined, bytes);
        const built = Buffer.from(restSuccessBody('listChannels', result.data));
        restLists.put(key, built, token); // kept only if no commit happened while it was built
        return await send(x, REST_SUCCESS_HEADERS['Content-Type']!, built, REST_SUCCESS_HEADERS);
      }

      // Identical requests (same key, same body bytes, same Content-Type) get the same successful answer until
      // the data changes: the answer depends on nothing else (no clock, no request id in a success). Keyed on
      // the exact bytes (latin1 maps each byte to one character), so no two different bodies share a key.
      const resultKey = answerCacheEntries > 0 && bytes.byteLength <= RESULT_CACHE_MAX_BODY ? `${kind}\n${principal.apiKeyId}\n${req.headers['content-type'] ?? ''}\n${latin1(bytes)}` : null;
      const cached = resultKey === null ? undefined : results.peek(resultKey);
      if (cached?.value !== undefined) {
        if (stats) stats.resultCacheHits++;
        if (kind === 'calculateFee') state.rest = { name: 'calculateFee' };
        return await send(x, kind === 'calculateFee' ? REST_SUCCESS_HEADERS['Content-Type']! : mediaType, cached.value, kind === 'calculateFee' ? REST_SUCCESS_HEADERS : undefined);
      }
      const remember = (answer: string): Buffer => {
        const encoded = Buffer.from(answer, 'utf8');
        if (resultKey !== null) results.put(resultKey, encoded, cached!.token); // kept only if no commit happened meanwhile
        return encoded;
      };

      if (kind === 'calculateFee') {
        let variables;
        try {
          variables = calculateVariables(adapter, bytes);
        } catch {
          throw new Fallback(bytes);
        }
        state.rest = { name: 'calculateFee', variables };
        const result = await execute(serverContext, ROUTES['/v1/payments/calculate']!.query, variables, undefined, bytes);
        return await send(x, REST_SUCCESS_HEADERS['Content-Type']!, remember(restSuccessBody('calculateFee', result.data)), REST_SUCCESS_HEADERS);
      }

      let params: Record<string, unknown>;
      try {
        params = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as Record<string, unknown>;
      } catch {
        throw new Fallback(bytes);
      }
      if (params === null || typeof params !== 'object' || Array.isArray(params) || typeof params.query !== 'string') throw new Fallback(bytes);
      for (const k of Object.keys(params)) if (!ALLOWED_PARAMS.has(k)) throw new Fallback(bytes);
      const { variables, operationName } = params;
      if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) throw new Fallback(bytes);
      if (operationName != null && typeof operationName !== 'string') throw new Fallback(bytes);
      const result = await execute(serverContext, params.query, variables ?? undefined, (operationName as string | null) ?? undefined, bytes);
      return await send(x, mediaType, remember(JSON.stringify(result)));
    } catch (err) {
      if (err instanceof Fallback) return fallback(req, res, err.body);
      const appError = toAppError(err);
      if (appError?.code === 'PAYLOAD_TOO_LARGE') {
        // The rest of the body was never read, so it cannot be handed on: answer here, with the shared renderer.
        const response = errorResponseFor(Response, state, appError);
        response.headers.set('Connection', 'close');
        return sendEnded(x, response);
      }
      // Every other failure (auth errors included) is answered by the full pipeline.
      return fallback(req, res, read.body);
    }
  }

  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q === -1 ? url : url.slice(0, q);
    const method = req.method;
    let job: Promise<void> | undefined;
    // Anything cross-origin (CORS headers) or with an unusual Accept takes the full pipeline.
    const mediaType = req.headers.origin === undefined ? mediaTypeFor(req.headers.accept) : null;
    if (mediaType !== null) {
      if (method === 'POST' && pathname === graphqlEndpoint && q === -1 && JSON_CONTENT.test(req.headers['content-type'] ?? '')) {
        job = handleFast(req, res, 'graphql', 'graphql', mediaType);
      } else if (method === 'GET' && pathname === '/v1/payments/channel' && ROUTES[pathname]?.method === 'GET') {
        job = handleFast(req, res, 'rest', 'listChannels', mediaType);
      } else if (method === 'POST' && pathname === '/v1/payments/calculate' && ROUTES[pathname]?.method === 'POST') {
        job = handleFast(req, res, 'rest', 'calculateFee', mediaType);
      }
    }
    if (!job) {
      yoga(req, res);
      return;
    }
    job.catch((err: unknown) => {
      // Only a bug in this file can get here; never leave the socket hanging.
      logger.error({ err }, 'fast path failed');
      if (!res.headersSent) {
        const appError = new AppError('INTERNAL_ERROR', 'Unexpected error.');
        res.writeHead(appError.status, { 'Content-Type': 'application/problem+json' });
      }
      res.end();
    });
  };
}
