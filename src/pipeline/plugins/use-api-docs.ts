/**
 * Public API documentation: the OpenAPI 3.1 document of the /v1 routes as
 * JSON, a human-readable reference generated from it (no CDN, no script),
 * the home page at `/` linking them, and the signing GraphiQL page (`GET` of the GraphQL endpoint from a
 * browser, contract §1/§3: public). The first two are built when the plugin
 * is created, the GraphiQL page on its first view (src/modules/docs/graphiql-page.ts).
 * The docs paths must be listed in useRequestContext's publicPaths; they
 * lie outside the signature plugin's protected paths. The GraphiQL page is
 * answered here, before the signature plugin, rather than by Yoga's own
 * GraphiQL plugin (which runs before every user plugin): so page loads get a
 * request id, a log line and a metrics sample like every other request.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../shared/errors.js';
import { requestStateOf } from '../request-state.js';
import { getOrHeadAnswer, getOrHeadOnly, problemResponse } from '../responses.js';
import { renderApiReference } from '../../modules/docs/openapi-page.js';
import { buildGraphiQLPage, FAVICON_DATA_URL, graphiqlPageResponse, isGraphiQLPageRequest, type GraphiQLPage } from '../../modules/docs/graphiql-page.js';
import { renderHomePage } from '../../modules/docs/home-page.js';
import { CHECKOUT_COMPONENT_PATH, FAVICON_PATH, HEALTH_PATH, HOME_PATH, READY_PATH } from '../../shared/routes.js';
import { inlineElementsOf, pagePolicy } from '../../shared/security-headers.js';

/** The site icon's path (public). */

/** Options of {@link useApiDocs}. */
export interface ApiDocsOptions {
  /** Where the JSON document is served, e.g. `/v1/openapi.json`. */
  openapiPath: string;
  /** Where the HTML reference is served, e.g. `/docs`. */
  docsPath: string;
  /** Link to GraphQL/GraphiQL from the reference page. */
  graphqlEndpoint: string;
  document: Record<string, unknown>;
}

/** The docs plugin and the Content-Security-Policy of its pages, for the securityHeaders plugin. */
export interface ApiDocs {
  plugin: Plugin;
  /** The policy of the page served at `pathname` (GraphiQL's once built), or undefined. */
  pagePolicyOf: (pathname: string) => string | undefined;
}

export function createApiDocs(options: ApiDocsOptions): ApiDocs {
  for (const p of [options.openapiPath, options.docsPath, options.graphqlEndpoint]) {
    if (!p.startsWith('/')) throw new Error(`useApiDocs: "${p}" must start with "/"`);
  }
  const json = JSON.stringify(options.document, null, 2);
  const html = renderApiReference(options.document, { openapi: options.openapiPath, graphql: options.graphqlEndpoint });
  let graphiql: Promise<GraphiQLPage> | undefined;
  // The reference has no script; its one inline style by hash, its icon a data: URL.
  const docsPolicy = pagePolicy({ inlineStyles: inlineElementsOf(html).styles, images: ['data:'] });
  const title = (options.document.info as { title?: unknown } | undefined)?.title;
  // The document's title names the REST reference ("… — legacy REST API"); the home page is the whole service's.
  const home = renderHomePage(typeof title === 'string' ? title.split(' — ')[0]! : 'Payment gateway', {
    graphql: options.graphqlEndpoint,
    docs: options.docsPath,
    openapi: options.openapiPath,
    checkoutComponent: CHECKOUT_COMPONENT_PATH,
    health: HEALTH_PATH,
    ready: READY_PATH,
  });
  const homePolicy = pagePolicy({ inlineStyles: inlineElementsOf(home).styles, images: ['data:'] });
  /** Set when the GraphiQL page is built: only then can an answer carry the page. */
  let graphiqlPolicy: string | undefined;
  const pages = new Map([
    [options.openapiPath, { body: json, type: 'application/json; charset=utf-8' }],
    [options.docsPath, { body: html, type: 'text/html; charset=utf-8' }],
    [HOME_PATH, { body: home, type: 'text/html; charset=utf-8' }],
    // The pages carry this icon inline; served here too so a browser or tool asking for it directly gets no 404.
    [FAVICON_PATH, { body: decodeURIComponent(FAVICON_DATA_URL.slice(FAVICON_DATA_URL.indexOf(',') + 1)), type: 'image/svg+xml' }],
  ]);
  /** The GraphiQL page: the only answer here that may wait (its first build). */
  async function serveGraphiQL(request: Request, serverContext: object, endResponse: (r: Response) => void, fetchAPI: { Response: typeof Response }): Promise<void> {
    const state = requestStateOf(serverContext);
    // Built once; a failed build is not kept, so the next view retries.
    graphiql ??= buildGraphiQLPage(options.graphqlEndpoint).then(
      (page) => {
        graphiqlPolicy = page.policy;
        return page;
      },
      (err: unknown) => {
        graphiql = undefined;
        throw err;
      },
    );
    try {
      endResponse(graphiqlPageResponse(await graphiql, request, fetchAPI.Response));
    } catch (err) {
      // Logged with the request id by useRequestContext; the page shows the masked problem only.
      if (state) {
        state.unexpected = err;
        state.errorCode = 'INTERNAL_ERROR';
      }
      endResponse(problemResponse(fetchAPI.Response, new AppError('INTERNAL_ERROR', 'Unexpected error.'), state?.id ?? ''));
    }
  }

  const pagePolicyOf = (pathname: string): string | undefined =>
    pathname === options.docsPath ? docsPolicy : pathname === HOME_PATH ? homePolicy : pathname === options.graphqlEndpoint ? graphiqlPolicy : undefined;

  const plugin: Plugin = {
    // Synchronous unless it serves the GraphiQL page: an async hook would make every request's remaining
    // hooks wait on a promise (measured under load: the pipeline's async hooks cost more than their bodies).
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      if (url.pathname === options.graphqlEndpoint && isGraphiQLPageRequest(request)) return serveGraphiQL(request, serverContext, endResponse, fetchAPI);
      const page = pages.get(url.pathname);
      if (!page) return;
      const state = requestStateOf(serverContext);
      const refused = getOrHeadOnly(fetchAPI.Response, request.method, url.pathname, state);
      if (refused) return endResponse(refused);
      const method = request.method.toUpperCase();
      endResponse(getOrHeadAnswer(fetchAPI.Response, method, page.body, { status: 200, headers: { 'Content-Type': page.type, 'Cache-Control': 'public, max-age=300' } }));
    },
  };
  return { plugin, pagePolicyOf };
}
