/**
 * HTTP caching of the channel lists (REST `GET /v1/payments/channel` and
 * GraphQL queries sent with GET): a strong `ETag` derived from the merchant
 * and the exact response body, `Cache-Control: private, no-cache` (only the
 * caller's own cache may keep it, and must revalidate), and `304 Not
 * Modified` for a matching `If-None-Match`.
 *
 * Works on the finished response, so a 304 is only ever produced for a
 * request that passed signature verification and executed: an unsigned or
 * badly signed request gets its 401 whatever `If-None-Match` says. Any data
 * change changes the body and therefore the ETag; nothing has to remember
 * to invalidate anything.
 *
 * Register it BEFORE useRequestContext: `onResponse` hooks run in plugin
 * order, and the request log line and `X-Request-Id` must see the final
 * (possibly 304) response.
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { requestStateFor, requestStateOf, type RequestState } from '../request-state.js';
import { RESPONSE_BYTES, type ResponseWithBytes } from '../responses.js';
import { ifNoneMatchMatches } from '../../shared/http-conditional.js';

export const CACHE_CONTROL = 'private, no-cache';


/** True when this request's response is a cacheable channel list. */
function isCacheable(state: RequestState): boolean {
  if (!state.principal || state.method !== 'GET') return false;
  return state.rest?.name === 'listChannels' || (state.surface === 'graphql' && state.rest === undefined);
}

/** Strong ETag of a body for one merchant (a string is hashed as its UTF-8 bytes: same tag either way). */
export function entityTag(merchantId: string, body: string | Uint8Array): string {
  return `"${createHash('sha256').update(merchantId).update('\n').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Give a 200 its ETag, or answer 304 when the client's If-None-Match already names it. */
function tag(response: Response, etag: string, state: RequestState, setResponse: (r: Response) => void, fetchAPI: { Headers: typeof Headers; Response: typeof Response }): void {
  if (ifNoneMatchMatches(state.ifNoneMatch ?? null, etag)) {
    const headers = new fetchAPI.Headers(response.headers);
    headers.delete('content-type');
    headers.delete('content-length');
    headers.set('ETag', etag);
    headers.set('Cache-Control', CACHE_CONTROL);
    setResponse(new fetchAPI.Response(null, { status: 304, headers }));
    return;
  }
  response.headers.set('ETag', etag);
  response.headers.set('Cache-Control', CACHE_CONTROL);
}

export function useHttpCaching(): Plugin {
  // The REST adapter replaces the request (setRequest); the client's header from the original is kept in the
  // request state. This hook runs ahead of the request context plugin, so it may be the one to create it.
  // ETags of the answer cache's kept bodies: the same (never modified) Buffer is sent for every hit, so its
  // tag is computed once per body and merchant instead of hashing the list on every request.
  const tagOfBytes = new WeakMap<Buffer, { merchantId: string; etag: string }>();
  return {
    onRequest({ request, serverContext }) {
      const header = request.headers.get('if-none-match');
      if (header) requestStateFor(serverContext).ifNoneMatch = header;
    },
    // Synchronous for the answer cache's kept bytes (every cached answer): only a body that must be read to
    // be hashed makes the hook, and so the rest of the pipeline, wait on a promise.
    onResponse({ response, serverContext, setResponse, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state || response.status !== 200 || !isCacheable(state)) return;
      // A subscription's event stream (GET with Accept: text/event-stream) never ends: reading it to hash it would hang.
      if (response.headers.get('content-type')?.startsWith('text/event-stream')) return;
      const merchantId = state.principal!.merchantId;
      const bytes = (response as ResponseWithBytes)[RESPONSE_BYTES];
      if (bytes !== undefined && state.surface !== 'graphql') {
        let memo = tagOfBytes.get(bytes);
        if (memo?.merchantId !== merchantId) {
          memo = { merchantId, etag: entityTag(merchantId, bytes) };
          tagOfBytes.set(bytes, memo);
        }
        tag(response, memo.etag, state, setResponse, fetchAPI);
        return;
      }
      return response
        .clone()
        .text()
        .then((body) => {
          // A GraphQL response with errors is not a representation worth caching.
          if (state.surface === 'graphql' && /"errors"\s*:/.test(body)) return;
          tag(response, entityTag(merchantId, body), state, setResponse, fetchAPI);
        });
    },
  };
}
