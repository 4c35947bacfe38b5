/**
 * Public API documentation: the OpenAPI 3.1 document of the /v1 routes as
 * JSON and a human-readable reference generated from it (no CDN, no
 * script). Both are built once when the plugin is created. The paths must
 * be listed in useRequestContext's publicPaths; they lie outside the
 * signature plugin's protected paths.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../errors.js';
import { requestStateOf } from '../http/request-state.js';
import { problemResponse } from '../http/responses.js';
import { renderApiReference } from '../openapi/html.js';

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

export function useApiDocs(options: ApiDocsOptions): Plugin {
  for (const p of [options.openapiPath, options.docsPath, options.graphqlEndpoint]) {
    if (!p.startsWith('/')) throw new Error(`useApiDocs: "${p}" must start with "/"`);
  }
  const json = JSON.stringify(options.document, null, 2);
  const html = renderApiReference(options.document, { openapi: options.openapiPath, graphql: options.graphqlEndpoint });
  const pages = new Map([
    [options.openapiPath, { body: json, type: 'application/json; charset=utf-8' }],
    [options.docsPath, { body: html, type: 'text/html; charset=utf-8' }],
  ]);
  return {
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      const page = pages.get(url.pathname);
      if (!page) return;
      const state = requestStateOf(serverContext);
      const method = request.method.toUpperCase();
      if (method !== 'GET' && method !== 'HEAD') {
        const error = new AppError('METHOD_NOT_ALLOWED', `${url.pathname} accepts GET only.`, { allow: 'GET, HEAD' }, { Allow: 'GET, HEAD' });
        if (state) state.errorCode = error.code;
        endResponse(problemResponse(fetchAPI.Response, error, state?.id ?? ''));
        return;
      }
      endResponse(
        new fetchAPI.Response(method === 'HEAD' ? null : page.body, {
          status: 200,
          headers: { 'Content-Type': page.type, 'Cache-Control': 'public, max-age=300' },
        }),
      );
    },
  };
}
