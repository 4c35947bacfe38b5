/**
 * Successful answers kept until the data changes, served from `onRequest`.
 *
 * A checkout asks the same questions over and over: the channel list of a
 * merchant, the fee of the same basket. A success depends only on the caller
 * (its key, merchant and KYC state), the exact request and the data: no
 * clock, no request id in a success body. So a verified request whose exact
 * bytes were answered before gets those bytes again, without executing.
 *
 * Two halves, registered at two places of the pipeline (like the rate
 * limits): `lookup` after the signature and the key's rate limit (a cached
 * answer is only ever given to a verified caller who spent a token), and
 * `store` first of all (its `onResponse` must see the pipeline's own success
 * before any hook, e.g. the ETag, reads the bytes).
 *
 * Invariants:
 * - Keys: REST channel list → (merchant, KYC), its only inputs (a list narrowed by its query string: the
 *   query string as well, kept like a calculation); REST
 *   calculate and GraphQL POST → (route, API key, Content-Type, Accept, the
 *   exact body bytes). Two different bodies never share a key (latin1 maps
 *   each byte to one character).
 * - Only 200 answers without GraphQL `errors` are kept; every error is
 *   produced by the pipeline every time.
 * - A calculation or GraphQL answer is kept from its second request on (the
 *   first only leaves a fingerprint, see Doorkeeper): answers asked once are
 *   never stored.
 * - Every answer is about the caller's merchant (its keys are part of every key) and is kept under that
 *   merchant's stamp (VersionedCache): a committed change to that merchant, from any process, drops its
 *   answers and no other merchant's; a change that is not one merchant's (a channel, a currency, a channel
 *   or category rule taking effect, a full reload) empties every cache.
 * - An answer computed across a change is not kept: the shared version taken at lookup must still hold and
 *   the caller's stamp, taken when its key was verified, must not be superseded.
 */
import { getOperationAST, OperationTypeNode, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isAsyncIterable } from 'graphql-yoga';
import { VersionedCache } from '../../shared/versioned-cache.js';
import type { DataVersion } from '../../shared/versioned-cache.js';
import { requestStateOf, type KeptAnswer } from '../request-state.js';
import { RESPONSE_BYTES, responseHeaders, type ResponseWithBytes } from '../responses.js';
import { REST_ROUTE_BY_PATH } from '../../shared/routes.js';

/** REST channel lists kept by default (REST_LIST_CACHE_ENTRIES). */
export const DEFAULT_REST_LIST_ENTRIES = 20_000;

/** Options of {@link useAnswerCache}. */
export interface AnswerCacheOptions {
  dataVersion: DataVersion;
  /** Answers kept per (API key, exact request); 0 = none. */
  entries: number;
  /** REST channel lists kept (one per merchant, KYC and filter); default {@link DEFAULT_REST_LIST_ENTRIES}. */
  restListEntries?: number;
  /** Path of the GraphQL endpoint (only JSON POSTs to it are cached). */
  graphqlEndpoint: string;
  /** Counters for tests and diagnosis. */
  stats?: AnswerCacheStats;
}

/** How many answers came from the caches. */
export interface AnswerCacheStats {
  restListHits: number;
  /** GraphQL and REST calculate answers served from the per-key cache. */
  resultHits: number;
}

/** Larger request bodies are executed every time (their answers are not kept). */
const MAX_BODY = 4096;


/** 32-bit FNV-1a of a string's UTF-16 code units: the doorkeeper's fingerprint of a key (collisions only admit early). */
function fingerprint(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Admission on the second sighting (a "doorkeeper", as in TinyLFU): a per-request answer (a new amount on
 * every call) is never asked again, and keeping every one of them filled the cache with entries that were
 * promoted to the old generation and then dropped (measured: ~15 % of the CPU of such a request, and GC
 * pauses). A key is kept only when its fingerprint was seen since the doorkeeper was last reset.
 */
class Doorkeeper {
  readonly #seen = new Set<number>();
  constructor(private readonly capacity: number) {}
  /** True when this key was seen before (admit it); otherwise remembers it. */
  admit(key: string): boolean {
    const f = fingerprint(key);
    if (this.#seen.has(f)) return true;
    if (this.#seen.size >= this.capacity) this.#seen.clear();
    this.#seen.add(f);
    return false;
  }
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

export function useAnswerCache(options: AnswerCacheOptions): { lookup: Plugin; store: Plugin } {
  if (!Number.isInteger(options.entries) || options.entries < 0) throw new Error('useAnswerCache: entries must be a non-negative integer');
  const { stats, graphqlEndpoint } = options;
  // At most `restListEntries` lists (REST_LIST_CACHE_ENTRIES) and 64 MiB in total (a 10,000-channel list is ~3 MB).
  const restLists = new VersionedCache<string, KeptAnswer>(options.dataVersion, options.restListEntries ?? DEFAULT_REST_LIST_ENTRIES, { weigh: (k) => k.bytes.length, max: 64 * 2 ** 20 });
  // At most `entries` answers and 32 MiB (each weighed with its key's maximum size).
  const results = new VersionedCache<string, KeptAnswer>(options.dataVersion, Math.max(1, options.entries), { weigh: (k) => k.bytes.length + MAX_BODY, max: 32 * 2 ** 20 });
  const doorkeeper = new Doorkeeper(Math.max(1024, 2 * options.entries));

  const lookup: Plugin = {
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      const state = requestStateOf(serverContext);
      const principal = state?.principal;
      // A checkout session's answers depend on its scope, not only on its key: never kept or replayed.
      const stamp = principal?.merchantStamp;
      if (!state || !principal || principal.session || stamp === undefined) return;
      const accept = request.headers.get('accept') ?? '';
      // Event streams (subscriptions) are never answers to keep.
      if (accept.includes('text/event-stream') || request.headers.get('origin') !== null) return;
      const pathname = url.pathname;
      // The REST routes' own table: a wrong method is the REST adapter's 405 to give, never a kept answer.
      const route = REST_ROUTE_BY_PATH.get(pathname);
      if (route !== undefined && (request.method !== route.method || route.creates)) return;
      let cache: VersionedCache<string, KeptAnswer>;
      let key: string;
      // A list narrowed by its query string (contract §14 `?code`, `?exclude`, `?group`) is one of many per
      // merchant: kept like a calculation (by its exact target, from its second request on), never as the list.
      const isList = route?.name === 'listChannels' && url.search === '';
      if (route?.name === 'listChannels' && !isList) {
        if (options.entries === 0) return;
        cache = results;
        key = `listChannels${url.search}\n${principal.merchantId}\n${principal.merchantKyc}`;
      } else if (isList) {
        cache = restLists;
        key = `${principal.merchantId}\n${principal.merchantKyc}`;
        state.rest = { name: 'listChannels' };
      } else {
        if (options.entries === 0 || request.method !== 'POST') return;
        const body = state.verifiedBody;
        if (!body || body.byteLength > MAX_BODY) return;
        const kind = route?.name ?? (pathname === graphqlEndpoint && url.search === '' ? 'graphql' : null);
        if (kind === null) return;
        cache = results;
        key = `${kind}\n${principal.apiKeyId}\n${request.headers.get('content-type') ?? ''}\n${accept}\n${latin1(body)}`;
      }
      const { value, token } = cache.peek(key);
      if (value === undefined) {
        // Channel lists are few (one per merchant and KYC state) and always asked again: kept at once.
        if (isList || doorkeeper.admit(key)) state.pendingAnswer = { cache, key, token, stamp, ok: true };
        return;
      }
      if (stats) {
        if (isList) stats.restListHits++;
        else stats.resultHits++;
      }
      if (route !== undefined) state.rest = { name: route.name };
      const response = new fetchAPI.Response(value.bytes as unknown as BodyInit, { status: 200, headers: responseHeaders(value.headers) }) as ResponseWithBytes;
      // The same Buffer for every hit, never modified: onResponse hooks may memoise per Buffer (ETags).
      response[RESPONSE_BYTES] = value.bytes;
      endResponse(response);
    },
    onExecute({ args }) {
      // A mutation creates something (a checkout session): its answer must never be replayed.
      const { contextValue, document, operationName } = args as { contextValue: object; document: DocumentNode; operationName?: string | null };
      const pending = requestStateOf(contextValue)?.pendingAnswer;
      if (pending && getOperationAST(document, operationName)?.operation !== OperationTypeNode.QUERY) pending.ok = false;
    },
    onResultProcess({ result, serverContext }) {
      const pending = requestStateOf(serverContext)?.pendingAnswer;
      if (!pending) return;
      if (Array.isArray(result) || isAsyncIterable(result) || (result as { errors?: unknown[] }).errors?.length) pending.ok = false;
    },
  };

  const store: Plugin = {
    // Synchronous when there is nothing to keep (every hit, every uncached answer): an async hook would make
    // the rest of each request's hooks wait on a promise.
    onResponse({ response, serverContext, setResponse, fetchAPI }) {
      const pending = requestStateOf(serverContext)?.pendingAnswer;
      if (!pending?.ok || response.status !== 200 || (response as ResponseWithBytes)[RESPONSE_BYTES] !== undefined) return;
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) return;
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (name.toLowerCase() !== 'content-length') headers[name.toLowerCase()] = value;
      });
      return response.arrayBuffer().then((body) => {
        const bytes = Buffer.from(body);
        pending.cache.put(pending.key, { bytes, headers }, pending.token, pending.stamp); // ignored if the data changed meanwhile
        const replacement = new fetchAPI.Response(bytes, { status: 200, headers: responseHeaders(headers) }) as ResponseWithBytes;
        replacement[RESPONSE_BYTES] = bytes;
        setResponse(replacement);
      });
    },
  };
  return { lookup, store };
}
