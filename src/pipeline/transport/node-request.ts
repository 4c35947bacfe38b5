/**
 * The WHATWG `Request` of one Node request, backed by Node's own objects.
 *
 * Why: the pipeline (Yoga and its plugins) speaks `Request`/`Response`. The
 * stock Node adapter builds a full ponyfill Request per request (URL string,
 * header copy, an AbortController tied to the socket, a body stream that Yoga
 * wraps again in a TransformStream) and a profile of it showed that
 * adaptation, not GraphQL, as most of the cost of a request. This class
 * answers what the pipeline actually reads (method, url, parsed URL, headers,
 * the body once) straight from `IncomingMessage`, and builds the costly parts
 * (AbortSignal, body stream) only if something asks for them.
 *
 * Invariants:
 * - The body is read from the socket at most once and kept (`readBytes(limit)`);
 *   every later reader (`text`, `json`, `arrayBuffer`, `body`) gets the same
 *   bytes, so what the signature covered is exactly what GraphQL parses.
 * - Headers are read-only views of `req.headers` (lower-case names, repeated
 *   headers joined with ", " as `Headers.get` does).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseRequestJson } from '../../shared/json-numbers.js';
import { ClientClosedRequest, tooLarge } from './body.js';

/** Read-only `Headers` over Node's parsed request headers. */
export class NodeHeaders implements Iterable<[string, string]> {
  constructor(private readonly raw: IncomingMessage['headers']) {}
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }
  getSetCookie(): string[] {
    return [];
  }
  forEach(callback: (value: string, name: string, parent: NodeHeaders) => void): void {
    for (const [k, v] of this) callback(v, k, this);
  }
  *entries(): HeadersIterator<[string, string]> {
    for (const name of Object.keys(this.raw).sort()) {
      const v = this.get(name);
      if (v !== null) yield [name, v];
    }
  }
  *keys(): HeadersIterator<string> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): HeadersIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
  set(): void {
    throw new TypeError('request headers are immutable');
  }
  append(): void {
    throw new TypeError('request headers are immutable');
  }
  delete(): void {
    throw new TypeError('request headers are immutable');
  }
}

/**
 * Parsed URLs shared between requests: a service answers a handful of (Host, target) pairs over and over and
 * `new URL()` per request was ~1.5 % of CPU. Readers never modify a request's URL; the cache is bounded.
 */
const urlCache = new Map<string, URL>();
function sharedUrl(href: string): URL {
  let url = urlCache.get(href);
  if (url === undefined) {
    url = new URL(href);
    if (urlCache.size < 256) urlCache.set(href, url);
  }
  return url;
}

/**
 * Reads a Node request body, never more than `limit` bytes (PAYLOAD_TOO_LARGE past it). Its listeners are
 * removed once it settles: the request of an event stream lives as long as the stream, and listeners left on
 * it kept the body's bytes with them (about 0.5 KB per open stream, contract §8b). A body that ends without
 * its 'end' (Node's `aborted` error, ECONNRESET, or a 'close' first) is the client's: {@link ClientClosedRequest}.
 */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let total = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      chunks = [];
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        done();
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      done();
      resolve(new Uint8Array(buf.buffer as ArrayBuffer, buf.byteOffset, buf.byteLength));
    };
    const onError = (err: Error) => {
      done();
      reject(new ClientClosedRequest(err));
    };
    const onClose = () => {
      done();
      reject(new ClientClosedRequest());
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

const EMPTY = new Uint8Array(0);
const decoder = new TextDecoder();

/** Something whose body can be read once with a byte limit (a {@link NodeRequest} or a {@link BufferedRequest}). */
export interface LimitedBodySource {
  readBytes(limit?: number): Promise<Uint8Array<ArrayBuffer>>;
}

export function hasLimitedBody(request: object): request is LimitedBodySource {
  return request instanceof BytesRequest;
}

/**
 * The Node request behind a pipeline request (through the REST adapter's and the signature plugin's
 * stand-ins too), or undefined on the `yoga.fetch` transport.
 */
export function nodeRequestOf(request: unknown): IncomingMessage | undefined {
  if (request instanceof NodeRequest) return request.req;
  if (request instanceof BufferedRequest) return nodeRequestOf(request.origin);
  return undefined;
}

/** Common read side of the two request classes: every body reader serves the same bytes. */
abstract class BytesRequest {
  abstract readBytes(limit?: number): Promise<Uint8Array<ArrayBuffer>>;
  readonly cache = 'default' as RequestCache;
  readonly credentials = 'same-origin' as RequestCredentials;
  readonly destination = '' as RequestDestination;
  readonly integrity = '';
  readonly keepalive = false;
  readonly mode = 'cors' as RequestMode;
  readonly redirect = 'follow' as RequestRedirect;
  readonly referrer = 'about:client';
  readonly referrerPolicy = '' as ReferrerPolicy;
  readonly duplex = 'half';
  get [Symbol.toStringTag](): string {
    return 'Request';
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.readBytes();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  }
  async text(): Promise<string> {
    return decoder.decode(await this.readBytes());
  }
  /** The body as JSON, numbers kept exact (src/shared/json-numbers.ts): what Yoga's POST parser reads. */
  async json(): Promise<unknown> {
    return parseRequestJson(await this.text());
  }
  async blob(): Promise<Blob> {
    return new Blob([await this.readBytes()]);
  }
  formData(): Promise<FormData> {
    return Promise.reject(new TypeError('formData() is not supported on this service'));
  }
}

/** The `Request` of one Node request (see the file comment). */
export class NodeRequest extends BytesRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeHeaders;
  #body: Promise<Uint8Array<ArrayBuffer>> | undefined;
  #signal: AbortSignal | undefined;
  constructor(
    readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    super();
    this.method = req.method ?? 'GET';
    this.url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
    this.headers = new NodeHeaders(req.headers);
  }
  /** What @whatwg-node/server and Yoga read instead of parsing `url` again. */
  get parsedUrl(): URL {
    return sharedUrl(this.url);
  }
  /** Aborted when the client goes away before the answer is complete (built on first use). */
  get signal(): AbortSignal {
    if (this.#signal === undefined) {
      const controller = new AbortController();
      this.res.once('close', () => {
        if (!this.res.writableFinished) controller.abort();
      });
      this.#signal = controller.signal;
    }
    return this.#signal;
  }
  /** The whole body, read once; more than `limit` bytes is PAYLOAD_TOO_LARGE (the first call's limit holds). */
  readBytes(limit = Number.POSITIVE_INFINITY): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#body === undefined) {
      this.#body = this.method === 'GET' || this.method === 'HEAD' ? Promise.resolve(EMPTY) : readNodeBody(this.req, limit);
    }
    return this.#body;
  }
  get bodyUsed(): boolean {
    return this.#body !== undefined;
  }
  /** A stream over the body, for generic readers (the pipeline's own readers use `bytes`). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.method === 'GET' || this.method === 'HEAD') return null;
    const read = this.readBytes();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        controller.enqueue(await read);
        controller.close();
      },
    });
  }
  clone(): Request {
    return new BufferedRequest(this.url, this.method, this.headers, this.readBytes(), this) as unknown as Request;
  }
}

/**
 * A request whose body is already known: the REST adapter's GraphQL request, the signature plugin's
 * hand-over of a verified body on the `yoga.fetch` transport, `NodeRequest.clone()`.
 */
export class BufferedRequest extends BytesRequest {
  readonly #body: Promise<Uint8Array<ArrayBuffer>>;
  constructor(
    readonly url: string,
    readonly method: string,
    readonly headers: Pick<Headers, 'get' | 'has' | 'forEach'> & Iterable<[string, string]>,
    /** The bytes, or null when only `parsed` is given (then the bytes are its JSON). */
    body: Uint8Array<ArrayBuffer> | Promise<Uint8Array<ArrayBuffer>> | null,
    /** The request this one stands for: its `signal` is this one's (read only when asked for). */
    private readonly source: { readonly signal: AbortSignal },
    /** Already-parsed JSON of the body, when the creator has it (saves a parse). */
    private readonly parsed?: unknown,
  ) {
    super();
    this.#body = body !== null ? Promise.resolve(body) : Promise.resolve(new TextEncoder().encode(JSON.stringify(parsed)));
  }
  get parsedUrl(): URL {
    return sharedUrl(this.url);
  }
  get signal(): AbortSignal {
    return this.source.signal;
  }
  /** The request this one stands for. */
  get origin(): unknown {
    return this.source;
  }
  readBytes(limit = Number.POSITIVE_INFINITY): Promise<Uint8Array<ArrayBuffer>> {
    return this.#body.then((b) => {
      if (b.byteLength > limit) throw tooLarge(limit);
      return b;
    });
  }
  override json(): Promise<unknown> {
    return this.parsed !== undefined ? Promise.resolve(shallowCopy(this.parsed)) : super.json();
  }
  readonly bodyUsed = false;
  get body(): ReadableStream<Uint8Array> | null {
    const read = this.#body;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        controller.enqueue(await read);
        controller.close();
      },
    });
  }
  clone(): Request {
    return new BufferedRequest(this.url, this.method, this.headers, this.#body, this.source, this.parsed) as unknown as Request;
  }
}

/** Parsed params are handed over as a fresh object: the parser's caller may modify what it gets. */
function shallowCopy(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? { ...(value as Record<string, unknown>) } : value;
}
