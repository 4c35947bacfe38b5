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
import { errorResponseFor } from './responses.js';

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
}

/** How many requests the fast path answered itself and how many it handed to Yoga. */
export interface FastPathStats {
  fast: number;
  fallback: number;
  restListCacheHits: number;
}

/** A Node `request` listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

const JSON_CONTENT = /^application\/json\s*(?:;|$)/i;
const GQL_RESPONSE = 'application/graphql-response+json';
const ALLOWED_PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);

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
  // At most 1,000 merchants' lists and 64 MiB in total (a 10,000-channel list is ~3 MB).
  const restLists = new VersionedCache<string, Buffer>(options.dataVersion, 1_000, { weigh: (b) => b.length, max: 64 * 2 ** 20 });

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
  function send(res: ServerResponse, state: RequestState, contentType: string, body: Buffer | string, extra?: Readonly<Record<string, string>>): void | Promise<void> {
    const head: Record<string, string | number> = { ...extra, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body), 'X-Request-Id': state.id };
    if (onRequestHooks.length === 0 && onResponseHooks.length === 0) return write(res, state, head, body);
    return sendAfterHooks(res, state, head, body);
  }

  function write(res: ServerResponse, state: RequestState, head: Record<string, string | number>, body: Buffer | string): void {
    res.writeHead(200, head);
    res.end(body);
    if (stats) stats.fast++;
    logRequest(logger, state, 200);
  }

  async function sendAfterHooks(res: ServerResponse, state: RequestState, head: Record<string, string | number>, body: Buffer | string): Promise<void> {
    const serverContext = contextOf.get(state)!;
    const request = serverContext.request as Request;
    let url: URL | undefined;
    for (const hook of onRequestHooks) {
      let ended: Response | undefined;
      let rerouted = false;
      await hook({
        request,
        get url() {
          return (url ??= new URL(request.url));
        },
        serverContext,
        fetchAPI: yoga.fetchAPI,
        requestHandler: yoga.handleRequest as never,
        setRequestHandler: () => {
          rerouted = true;
        },
        setRequest: () => {
          rerouted = true;
        },
        endResponse: (r: Response) => {
          ended = r;
        },
      } as never);
      if (rerouted) throw new Fallback(fallbackBody.get(state) ?? null);
      if (ended) return sendEnded(res, state, ended);
    }
    // onResponse hooks see a Response-like view with real (fetch) headers; headers they set are sent.
    const headers = new yoga.fetchAPI.Headers(Object.entries(head).map(([k, v]) => [k, String(v)] as [string, string]));
    let replacement: Response | undefined;
    for (const hook of onResponseHooks) {
      // A Response-like view: headers are live; body readers (clone/text) serve the bytes about to be sent.
      const view = { status: 200, ok: true, headers, clone: () => new yoga.fetchAPI.Response(typeof body === 'string' ? body : new Uint8Array(body)), text: async () => body.toString() };
      await hook({ request, serverContext, response: view as unknown as Response, setResponse: (r: Response) => (replacement = r), fetchAPI: yoga.fetchAPI } as never);
    }
    if (replacement) {
      replacement.headers.set('X-Request-Id', state.id);
      await sendResponse(res, replacement);
      logRequest(logger, state, replacement.status);
      return;
    }
    write(res, state, Object.fromEntries(headers.entries()), body);
  }

  /** An answer a hook (or the body limit) produced here: onResponse hooks, request id, one log line. */
  async function sendEnded(res: ServerResponse, state: RequestState, response: Response): Promise<void> {
    const serverContext = contextOf.get(state)!;
    let final = response;
    for (const hook of onResponseHooks) {
      await hook({ request: serverContext.request as Request, serverContext, response: final, setResponse: (r: Response) => (final = r), fetchAPI: yoga.fetchAPI } as never);
    }
    final.headers.set('X-Request-Id', state.id);
    await sendResponse(res, final);
    logRequest(logger, state, final.status);
  }

  /** Per request: its server context and the verified body (for a late hand-over to the pipeline). */
  const contextOf = new WeakMap<RequestState, Record<string, unknown>>();
  const fallbackBody = new WeakMap<RequestState, Uint8Array>();

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
    contextOf.set(state, serverContext);
    const read: { body: Uint8Array | null } = { body: null };
    try {
      const verified = await verifier(adapter, state.target, async (limit) => (read.body = await readNodeBody(req, limit)));
      state.principal = verified.principal;
      const { principal } = verified;
      const bytes = verified.body;
      fallbackBody.set(state, bytes);

      if (kind === 'listChannels') {
        // Pre-serialised per merchant + KYC (the only inputs of the list) until the data changes.
        // Set before the cache lookup: onResponse hooks (ETag) key on the route for hits and misses alike.
        state.rest = { name: 'listChannels' };
        const key = `${principal.merchantId}\n${principal.merchantKyc}`;
        const { value: hit, token } = restLists.peek(key);
        if (hit !== undefined && stats) stats.restListCacheHits++;
        if (hit !== undefined) return await send(res, state, REST_SUCCESS_HEADERS['Content-Type']!, hit, REST_SUCCESS_HEADERS);
        const result = await execute(serverContext, ROUTES['/v1/payments/channel']!.query, undefined, undefined, bytes);
        const built = Buffer.from(restSuccessBody('listChannels', result.data));
        restLists.put(key, built, token); // kept only if no commit happened while it was built
        return await send(res, state, REST_SUCCESS_HEADERS['Content-Type']!, built, REST_SUCCESS_HEADERS);
      }

      if (kind === 'calculateFee') {
        let variables;
        try {
          variables = calculateVariables(adapter, bytes);
        } catch {
          throw new Fallback(bytes);
        }
        state.rest = { name: 'calculateFee', variables };
        const result = await execute(serverContext, ROUTES['/v1/payments/calculate']!.query, variables, undefined, bytes);
        return await send(res, state, REST_SUCCESS_HEADERS['Content-Type']!, restSuccessBody('calculateFee', result.data), REST_SUCCESS_HEADERS);
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
      return await send(res, state, mediaType, JSON.stringify(result));
    } catch (err) {
      if (err instanceof Fallback) return fallback(req, res, err.body);
      const appError = toAppError(err);
      if (appError?.code === 'PAYLOAD_TOO_LARGE') {
        // The rest of the body was never read, so it cannot be handed on: answer here, with the shared renderer.
        const response = errorResponseFor(Response, state, appError);
        response.headers.set('Connection', 'close');
        return sendEnded(res, state, response);
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
