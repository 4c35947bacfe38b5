/**
 * `GET /`: the way in for a person with a browser (the start banner points here). A small page linking what
 * the service serves to people: the signing GraphiQL, the API reference, the OpenAPI document, the checkout
 * component and its reference merchant, and the health checks. Plain HTML and one inline style (allowed by
 * its hash, like /docs), nothing loaded from elsewhere, readable at 320 px.
 */
import { FAVICON_DATA_URL } from './graphiql-page.js';

/** The paths the page links. */
export interface HomeLinks {
  graphql: string;
  docs: string;
  openapi: string;
  checkoutComponent: string;
  health: string;
  ready: string;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page's HTML; `title` is the service's name (the OpenAPI document's). */
export function renderHomePage(title: string, links: HomeLinks): string {
  const item = (href: string, label: string, what: string) => `<li><a href="${esc(href)}">${esc(label)}</a> <span>${what}</span></li>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<link rel="icon" href="${esc(FAVICON_DATA_URL)}">
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#111827;background:#fff}
main{max-width:720px;margin:0 auto;padding:24px 16px}
h1{font-size:1.5rem;margin:0 0 8px}
ul{list-style:none;padding:0;margin:16px 0}
li{padding:10px 0;border-bottom:1px solid #e5e7eb;overflow-wrap:anywhere}
li a{font-weight:600}
li span{display:block;color:#4b5563}
code{font-family:ui-monospace,monospace;font-size:14px;background:#f3f4f6;padding:1px 4px;border-radius:3px}
</style></head>
<body><main>
<h1>${esc(title)}</h1>
<p>Payment channels and their fees over GraphQL and the legacy REST <code>/v1</code> routes. Every API call is signed (SVC1); the pages below need no key.</p>
<ul>
${item(links.graphql, 'GraphiQL', 'Explore the GraphQL schema and run signed queries in the browser.')}
${item(links.docs, 'API reference', 'The REST routes: headers, bodies, answers and error codes.')}
${item(links.openapi, 'OpenAPI document', 'The same reference as OpenAPI 3.1 JSON, for code generators and tools.')}
${item(links.checkoutComponent, 'Checkout component', `The drop-in checkout (one ES module). Its reference merchant: <code>npm run example:checkout</code>, then <a href="http://127.0.0.1:4100/">http://127.0.0.1:4100/</a>.`)}
${item(links.health, 'Health', `Liveness; readiness with its reason at <a href="${esc(links.ready)}">${esc(links.ready)}</a>.`)}
</ul>
</main></body></html>`;
}
