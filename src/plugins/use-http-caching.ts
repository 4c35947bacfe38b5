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
import { requestStateOf, type RequestState } from '../http/request-state.js';

export const CACHE_CONTROL = 'private, no-cache';

/** True when this request's response is a cacheable channel list. */
function isCacheable(state: RequestState): boolean {
  if (!state.principal || state.method !== 'GET') return false;
  return state.rest?.name === 'listChannels' || (state.surface === 'graphql' && state.rest === undefined);
}

/** Strong ETag of a body for one merchant. */
export function entityTag(merchantId: string, body: string): string {
  return `"${createHash('sha256').update(merchantId).update('\n').update(body).digest('base64url').slice(0, 32)}"`;
}

/** RFC 9110 If-None-Match (weak comparison): does any listed tag, or `*`, match? */
export function ifNoneMatchMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag.replace(/^W\//, '') === opaque;
  });
}

export function useHttpCaching(): Plugin {
  // The REST adapter replaces the request (setRequest); keep the client's header from the original.
  const conditional = new WeakMap<object, string>();
  return {
    onRequest({ request, serverContext }) {
      const header = request.headers.get('if-none-match');
      if (header) conditional.set(serverContext, header);
    },
    async onResponse({ response, serverContext, setResponse, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state || response.status !== 200 || !isCacheable(state)) return;
      const body = await response.clone().text();
      // A GraphQL response with errors is not a representation worth caching.
      if (state.surface === 'graphql' && /"errors"\s*:/.test(body)) return;
      const etag = entityTag(state.principal!.merchantId, body);
      if (ifNoneMatchMatches(conditional.get(serverContext) ?? null, etag)) {
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
    },
  };
}
