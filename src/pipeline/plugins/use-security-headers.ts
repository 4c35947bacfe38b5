/**
 * The one place that decides the browser-facing security headers of every answer of the pipeline (the
 * values and why: src/shared/security-headers.ts). Every answer, whatever its path, status or the plugin
 * that produced it (data, problems, images, event streams, 304s, Yoga's own health answers), gets
 * `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` and a Content-Security-Policy: the page's own
 * for an HTML answer the page table knows (GraphiQL, `/docs`), else the policy of an answer that is not a
 * page (nothing runs, nothing loads, never framed).
 *
 * It works in `onResponse`, after every plugin that replaces the response there (answer cache, address
 * gate's 429, the ETag plugin's 304: src/app/pipeline-order.ts), so the answer sent is the one that carries
 * them. Answers written by the transport outside the pipeline add EVERY_ANSWER themselves.
 */
import type { Plugin } from 'graphql-yoga';
import { EVERY_ANSWER, NOT_A_PAGE_POLICY } from '../../shared/security-headers.js';

const EVERY = Object.entries(EVERY_ANSWER);

/** Options of {@link useSecurityHeaders}. */
export interface SecurityHeadersOptions {
  /**
   * The Content-Security-Policy of the gateway's page at `pathname`, for an HTML answer there; undefined
   * when no page lives there (the answer then gets the not-a-page policy, the strictest).
   */
  pagePolicyOf: (pathname: string) => string | undefined;
}

export function useSecurityHeaders(options: SecurityHeadersOptions): Plugin {
  return {
    onResponse({ request, response }) {
      const headers = response.headers;
      for (const [name, value] of EVERY) headers.set(name, value);
      // Only an HTML answer can be a page: the URL is parsed for those alone (API answers never pay for it).
      const page = headers.get('content-type')?.startsWith('text/html') ? options.pagePolicyOf(new URL(request.url).pathname) : undefined;
      headers.set('Content-Security-Policy', page ?? NOT_A_PAGE_POLICY);
    },
  };
}
