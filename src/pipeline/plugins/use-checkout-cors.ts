/**
 * CORS for checkout sessions (contract §9), in the one pipeline.
 *
 * - Preflight: `OPTIONS` on a path sessions may call (`/graphql`, `/v1/payments/channel`) → 204 with the
 *   allowed methods and headers and a max-age (contract §9). `Access-Control-Allow-Origin` only for an origin
 *   that some merchant allows: the preflight carries no credentials, so it cannot know the merchant, and the
 *   real request is judged against the session's own merchant by the authentication step. For an origin no
 *   merchant allows the browser finds no `Access-Control-Allow-Origin` and refuses before anything is sent.
 * - Answers: `Access-Control-Allow-Origin: <origin>`, `Vary: Origin` and `Access-Control-Expose-Headers`
 *   only when the authentication step recorded `state.corsOrigin`, i.e. for an authentic client secret of
 *   a merchant that allows that origin. SVC1-signed requests never get CORS headers (a secret never belongs
 *   in a browser), and neither does anything else.
 *
 * Register after the request context (the preflight is logged like every request) and before the
 * signature plugin (a preflight has no credentials to check).
 */
import type { Plugin } from 'graphql-yoga';
import { requestStateOf } from '../request-state.js';

/** Options of {@link useCheckoutCors}. */
export interface CheckoutCorsOptions {
  /** Path → the methods a session may use on it (the preflight's answer). */
  sessionPaths: ReadonlyMap<string, readonly string[]>;
  /** True when at least one merchant allows this origin (exactly as sent). */
  isKnownOrigin(origin: string): boolean;
  /** Access-Control-Max-Age of a preflight, seconds (default 600). */
  maxAgeSeconds?: number;
}

/** The request headers a browser session may send. */
export const SESSION_REQUEST_HEADERS = 'Authorization, Content-Type, Accept, X-Request-Id';

export function useCheckoutCors(options: CheckoutCorsOptions): Plugin {
  const maxAge = String(options.maxAgeSeconds ?? 600);
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'OPTIONS') return;
      const methods = options.sessionPaths.get(url.pathname);
      if (methods === undefined) return;
      const origin = request.headers.get('origin');
      const headers: Record<string, string> = {
        'Access-Control-Allow-Methods': methods.join(', '),
        'Access-Control-Allow-Headers': SESSION_REQUEST_HEADERS,
        'Access-Control-Max-Age': maxAge,
        Vary: 'Origin',
      };
      if (origin !== null && options.isKnownOrigin(origin)) headers['Access-Control-Allow-Origin'] = origin;
      endResponse(new fetchAPI.Response(null, { status: 204, headers }));
    },
    onResponse({ serverContext, response }) {
      const origin = requestStateOf(serverContext)?.corsOrigin;
      if (origin === undefined) return;
      response.headers.set('Access-Control-Allow-Origin', origin);
      response.headers.set('Vary', response.headers.has('Vary') ? `${response.headers.get('Vary')}, Origin` : 'Origin');
      response.headers.set('Access-Control-Expose-Headers', 'X-Request-Id');
    },
  };
}
