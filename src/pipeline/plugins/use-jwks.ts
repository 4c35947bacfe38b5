/**
 * `GET /.well-known/jwks.json` (contract §11, public): the public keys fee quotes are signed with, as a JWK
 * Set (RFC 7517): the key that signs now and every retired key whose quotes may still be valid. Cacheable
 * for minutes: a verifier that meets an unknown `kid` (a rotation newer than its copy) fetches it again
 * (the SDK does), and a new key is published the moment it signs.
 */
import type { Plugin } from 'graphql-yoga';
import { JWKS_PATH } from '../../shared/routes.js';
import { requestStateOf } from '../request-state.js';
import { getOrHeadAnswer, getOrHeadOnly } from '../responses.js';

/** Five minutes: short against a retired key's window (QUOTE_TTL_SECONDS + 60 s at least 2 minutes). */
export const JWKS_CACHE_CONTROL = 'public, max-age=300';

export interface JwksOptions {
  /** The JWK Set to serve now (memoised by the quote service until the keys change). */
  jwks: () => { keys: readonly object[] };
}

export function useJwks(options: JwksOptions): Plugin {
  return {
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      if (url.pathname !== JWKS_PATH) return;
      const refused = getOrHeadOnly(fetchAPI.Response, request.method, url.pathname, requestStateOf(serverContext));
      if (refused) return endResponse(refused);
      endResponse(
        getOrHeadAnswer(fetchAPI.Response, request.method, JSON.stringify(options.jwks()), {
          status: 200,
          headers: {
            'Content-Type': 'application/jwk-set+json',
            'Cache-Control': JWKS_CACHE_CONTROL,
            // Public keys, read by verifiers on any origin (a browser SDK too): never credentials.
            'Access-Control-Allow-Origin': '*',
          },
        }),
      );
    },
  };
}
