/**
 * The GraphiQL page: Yoga's bundled GraphiQL (@graphql-yoga/render-graphiql,
 * no CDN) plus a credentials panel and a script that signs every request
 * the page sends (src/modules/docs/graphiql-browser.ts, bundled once with esbuild from
 * the same WebCrypto signer as the SDK).
 *
 * The page is static (GraphiQL reads `?query=` in the browser), about 9 MB
 * of HTML, so it is rendered and compressed (brotli, gzip) once per process,
 * on the first page view: an API-only process never pays for it. It is then
 * served from memory with a strong ETag, `Vary: Accept, Accept-Encoding` and
 * a short public cache lifetime, by the public-pages plugin
 * (src/pipeline/plugins/use-api-docs.ts), after the request context exists, so every
 * page load is counted in the metrics and logged like any request.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { buildSync } from 'esbuild';
import type { GraphiQLOptions } from 'graphql-yoga';
import { ifNoneMatchMatches } from '../../shared/http-conditional.js';
import { projectPath } from '../../shared/paths.js';
import { inlineElementsOf, pagePolicy } from '../../shared/security-headers.js';

/** The example query the page opens with (kept in front: see `query` in {@link GRAPHIQL_OPTIONS}). */
export const EXAMPLE_QUERY = '{ paymentChannels { code name status availability { selectable reasons } } }';

/**
 * A small inline icon. Every page of the service carries its icon inline, so a
 * browser never asks for `/favicon.ico` (a 404 in its console); it also saves
 * the 150 KB data URL of GraphiQL's own icon.
 */
export const FAVICON_DATA_URL =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='6' fill='%23047857'/%3E%3Ctext x='16' y='22' font-family='sans-serif' font-size='16' font-weight='700' fill='white' text-anchor='middle'%3ERp%3C/text%3E%3C/svg%3E";

/**
 * Options of the page. `query` equals the default query on purpose: without
 * it, GraphiQL appends an empty, untitled tab to the tabs it restored from
 * localStorage on every load that has no `?query=`, and that empty tab comes
 * to the front (a Run there answers "Syntax Error: Unexpected <EOF>").
 */
export const GRAPHIQL_OPTIONS: GraphiQLOptions & { query: string } = {
  title: 'Payment Gateway GraphiQL',
  defaultQuery: EXAMPLE_QUERY,
  query: EXAMPLE_QUERY,
  favicon: FAVICON_DATA_URL,
};

/** True for the request a browser sends to show the page: `GET` of the endpoint accepting HTML. */
export function isGraphiQLPageRequest(request: { method: string; headers: Headers }): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
}

let bundle: string | undefined;

/** The browser script as one IIFE; built once per process. */
export function signingScript(): string {
  if (bundle === undefined) {
    const result = buildSync({
      // The TypeScript source, also when this module runs bundled from dist/.
      entryPoints: [projectPath('src', 'modules', 'docs', 'graphiql-browser.ts')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2020',
      write: false,
      minify: false,
      legalComments: 'none',
    });
    const text = result.outputFiles[0]?.text;
    if (!text) throw new Error('GraphiQL signing script: esbuild produced no output');
    // Inline in <script>: a literal "</script" would end the element early.
    bundle = text.replace(/<\/script/gi, '<\\/script');
  }
  return bundle;
}

const PANEL_CSS = `
  html, body { height: 100%; }
  body { display: flex; flex-direction: column; }
  #root { flex: 1 1 auto; min-height: 0; }
  #root .graphiql-container { height: 100% !important; width: 100% !important; }
  #svc1-panel { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 6px 12px;
    font: 13px/1.4 system-ui, sans-serif; background: #f3f4f6; border-bottom: 1px solid #d1d5db; color: #111827; }
  #svc1-panel input[type=text], #svc1-panel input[type=password] { font: 13px monospace; padding: 3px 6px; width: 22em; }
  #svc1-panel button { font: inherit; padding: 3px 10px; cursor: pointer; }
  #svc1-status[data-kind=ok] { color: #047857; }
  #svc1-status[data-kind=warn] { color: #92400e; }
  #svc1-status[data-kind=error] { color: #b91c1c; font-weight: 600; }
  #svc1-waiting { max-width: 46em; margin: 48px auto; padding: 0 16px; font: 15px/1.6 system-ui, sans-serif; color: #111827; }
  #svc1-waiting code { background: #f3f4f6; padding: 1px 4px; border-radius: 3px; }
`;

const PANEL_HTML = `
  <form id="svc1-panel" autocomplete="off" aria-label="SVC1 credentials">
    <strong>SVC1 signing</strong>
    <input id="svc1-key" type="text" placeholder="API key (pk_test_…)" aria-label="API key" spellcheck="false" autocomplete="off" />
    <input id="svc1-secret" type="password" placeholder="API secret (sk_test_…)" aria-label="API secret" autocomplete="off" />
    <label title="Off: kept in sessionStorage for this tab only"><input id="svc1-remember" type="checkbox" /> remember on this device</label>
    <button id="svc1-save" type="submit">Save &amp; sign</button>
    <button id="svc1-forget" type="button">Forget</button>
    <span id="svc1-status" role="status"></span>
  </form>`;

/** Shown in place of GraphiQL until credentials exist (the script mounts GraphiQL over it). */
const WAITING_HTML = `
  <div id="svc1-waiting">
    <h2>Paste your API key and secret above, then click <em>Save &amp; sign</em></h2>
    <p>Every request this page sends, schema introspection included, is signed in your browser (SVC1, WebCrypto);
    the secret never leaves this page. Nothing is sent until credentials exist.</p>
    <p>The demo merchant's key and secret are in <code>data/demo-credentials.json</code> (written by the first
    <code>npm start</code>): <code>node -p "require('./data/demo-credentials.json').merchants[0]"</code>.</p>
  </div>`;

/** The boot call at the end of Yoga's page; the signing script takes it over (see browser.ts `boot`). */
const BOOT_CALL = 'YogaGraphiQL.renderYogaGraphiQL(';

/** The whole page as HTML. Throws if Yoga's page layout changed so that the panel cannot be injected. */
export async function renderSigningGraphiQL(endpoint: string, options: GraphiQLOptions = GRAPHIQL_OPTIONS): Promise<string> {
  if (!endpoint.startsWith('/')) throw new Error('renderSigningGraphiQL: endpoint must start with "/"');
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const head = `<style>${PANEL_CSS}</style><script>window.__SVC1_GRAPHIQL__ = ${JSON.stringify({ endpoint }).replace(/</g, '\\u003c')};\n${signingScript()}</script>`;
  const html = renderGraphiQL({ ...options, endpoint });
  const withHead = html.replace('</title>', () => `</title>${head}`);
  const withPanel = withHead.replace(/<body[^>]*>/, (tag) => `${tag}${PANEL_HTML}`);
  const withWaiting = withPanel.replace('<div id="root"></div>', () => `<div id="root">${WAITING_HTML}</div>`);
  // The last occurrence is the page's own call (the GraphiQL bundle before it defines the function).
  const boot = withWaiting.lastIndexOf(BOOT_CALL);
  if (withHead === html || withPanel === withHead || withWaiting === withPanel || boot < 0) {
    throw new Error('GraphiQL page layout changed: cannot inject the signing panel');
  }
  return `${withWaiting.slice(0, boot)}window.__SVC1_GRAPHIQL__.boot(${withWaiting.slice(boot + BOOT_CALL.length)}`;
}

/** One representation of the page, ready to send. */
interface Encoded {
  encoding: 'br' | 'gzip' | 'identity';
  bytes: Buffer<ArrayBuffer>;
}

/** The rendered page in every encoding it is served in, its ETag and its Content-Security-Policy. */
export interface GraphiQLPage {
  etag: string;
  representations: Encoded[];
  policy: string;
}

/**
 * The page's Content-Security-Policy: its two inline scripts (the signing script; GraphiQL's bundle ending
 * in the boot call) by hash, no eval (GraphiQL needs none: test/e2e/graphiql-chromium.test.ts sees no
 * violation). Styles need 'unsafe-inline': the editor (Monaco) creates `<style>` elements and style
 * attributes at run time (with style hashes only, Chromium reports over a thousand blocked styles). Monaco's web workers are built in the page from `blob:` URLs; the page
 * talks to its own origin only (the GraphQL endpoint), its icons are `data:` URLs.
 */
export function graphiqlPagePolicy(html: string): string {
  return pagePolicy({
    inlineScripts: inlineElementsOf(html).scripts,
    runtimeStyles: true,
    images: ["'self'", 'data:'],
    fonts: ["'self'", 'data:'],
    connect: ["'self'"],
    workers: ['blob:'],
  });
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Render and compress the page once (async zlib: the event loop keeps serving while it compresses). */
export async function buildGraphiQLPage(endpoint: string): Promise<GraphiQLPage> {
  const html = await renderSigningGraphiQL(endpoint);
  const raw = Buffer.from(html, 'utf8');
  const [br, gz] = await Promise.all([
    // Quality 6: ~0.5 s once for ~80 % smaller; 11 would take ~20 s for 8 % more.
    brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }),
    gzip(raw, { level: 6 }),
  ]);
  return {
    etag: `"${createHash('sha256').update(raw).digest('base64url').slice(0, 32)}"`,
    representations: [
      { encoding: 'br', bytes: br },
      { encoding: 'gzip', bytes: gz },
      { encoding: 'identity', bytes: raw },
    ],
    policy: graphiqlPagePolicy(html),
  };
}

/** The q-value the client's Accept-Encoding gives `coding` (RFC 9110 §12.5.3; absent header: identity only). */
export function acceptedQuality(header: string | null, coding: string): number {
  if (header === null) return coding === 'identity' ? 1 : 0;
  let wildcard: number | undefined;
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m !== null);
    const quality = q ? Number(q[1]) : 1;
    if (name.trim() === coding) return quality;
    if (name.trim() === '*') wildcard = quality;
  }
  // identity is acceptable unless refused explicitly (or by "*;q=0").
  return wildcard ?? (coding === 'identity' ? 1 : 0);
}

/** Headers of every page response, 200 or 304. */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  // Public and static; revalidated (cheap 304) after 5 minutes so a new deployment shows up soon.
  'Cache-Control': 'public, max-age=300',
  // The same URL answers GraphQL to non-HTML requests, and the body depends on the encoding.
  Vary: 'Accept, Accept-Encoding',
} as const;

/** The response to one page request: 304 on a matching If-None-Match, else the first encoding (br, gzip, identity) the client accepts. */
export function graphiqlPageResponse(page: GraphiQLPage, request: Request, ResponseClass: typeof Response): Response {
  const headers: Record<string, string> = { ...PAGE_HEADERS, ETag: page.etag };
  if (ifNoneMatchMatches(request.headers.get('if-none-match'), page.etag)) return new ResponseClass(null, { status: 304, headers });
  const acceptEncoding = request.headers.get('accept-encoding');
  // A client refusing even identity still gets identity (RFC 9110 allows it; a 406 would help nobody).
  const chosen = page.representations.find((r) => acceptedQuality(acceptEncoding, r.encoding) > 0) ?? page.representations.at(-1)!;
  if (chosen.encoding !== 'identity') headers['Content-Encoding'] = chosen.encoding;
  headers['Content-Length'] = String(chosen.bytes.byteLength);
  return new ResponseClass(new Uint8Array(chosen.bytes.buffer, chosen.bytes.byteOffset, chosen.bytes.byteLength), { status: 200, headers });
}
