/**
 * The drop-in checkout component (src/client/checkout/payment-checkout.ts) as one ES module at
 * `CHECKOUT_COMPONENT_PATH` (`/checkout/v1/checkout.js`, public): bundled with esbuild, graphql-sse
 * included, so a merchant page loads it with one `<script type="module">` and nothing comes from a CDN.
 *
 * - Built once per process, on the first request (like the GraphiQL page): an API-only process never pays
 *   for it; a failed build is not kept, so the next request retries.
 * - Cacheable across origins: a module script is fetched in CORS mode, so the answer carries
 *   `Access-Control-Allow-Origin: *` (public code, never credentials) and `Cross-Origin-Resource-Policy:
 *   cross-origin`; a strong ETag answers `If-None-Match` with 304.
 * - Versioned in its path: `v1` is the component's interface (element name, attributes, events). The
 *   answer is `immutable` for a day and revalidated by ETag after that: a fix within v1 reaches browsers
 *   within a day, an incompatible change gets a new path.
 */
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../shared/errors.js';
import { ifNoneMatchMatches } from '../../shared/http-conditional.js';
import { projectPath } from '../../shared/paths.js';
import { CHECKOUT_COMPONENT_PATH } from '../../shared/routes.js';
import { requestStateOf } from '../request-state.js';
import { getOrHeadAnswer, getOrHeadOnly, problemResponse } from '../responses.js';

interface Bundle {
  code: string;
  etag: string;
}

export const CHECKOUT_CACHE_CONTROL = 'public, max-age=86400, immutable';

let bundle: Promise<Bundle> | undefined;

/** The component as one minified ES module (cached per process). */
export function checkoutComponentBundle(): Promise<Bundle> {
  bundle ??= build({
    // The TypeScript source, also when the server runs bundled from dist/.
    entryPoints: [projectPath('src', 'client', 'checkout', 'payment-checkout.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  }).then(
    (result) => {
      const code = result.outputFiles[0]?.text;
      if (!code) throw new Error('checkout component: esbuild produced no output');
      return { code, etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 32)}"` };
    },
    (err: unknown) => {
      bundle = undefined;
      throw err;
    },
  );
  return bundle;
}

export function useCheckoutComponent(): Plugin {
  return {
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      if (url.pathname !== CHECKOUT_COMPONENT_PATH) return;
      const state = requestStateOf(serverContext);
      const refused = getOrHeadOnly(fetchAPI.Response, request.method, url.pathname, state);
      if (refused) return endResponse(refused);
      const method = request.method.toUpperCase();
      return checkoutComponentBundle().then(
        ({ code, etag }) => {
          const headers = {
            'Content-Type': 'text/javascript; charset=utf-8',
            'Cache-Control': CHECKOUT_CACHE_CONTROL,
            ETag: etag,
            'Access-Control-Allow-Origin': '*',
            'Cross-Origin-Resource-Policy': 'cross-origin',
            'X-Content-Type-Options': 'nosniff',
          };
          if (ifNoneMatchMatches(request.headers.get('if-none-match'), etag)) {
            endResponse(new fetchAPI.Response(null, { status: 304, headers }));
            return;
          }
          endResponse(getOrHeadAnswer(fetchAPI.Response, method, code, { status: 200, headers }));
        },
        (err: unknown) => {
          // Logged with the request id by useRequestContext; the client sees the masked problem only.
          if (state) {
            state.unexpected = err;
            state.errorCode = 'INTERNAL_ERROR';
          }
          endResponse(problemResponse(fetchAPI.Response, new AppError('INTERNAL_ERROR', 'Unexpected error.'), state?.id ?? ''));
        },
      );
    },
  };
}
