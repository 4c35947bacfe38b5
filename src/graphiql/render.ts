/**
 * The GraphiQL page: Yoga's bundled GraphiQL (@graphql-yoga/render-graphiql,
 * no CDN) plus a credentials panel and a script that signs every request
 * the page sends (src/graphiql/browser.ts, bundled once with esbuild from
 * the same WebCrypto signer as the SDK).
 */
import { buildSync } from 'esbuild';
import type { GraphiQLOptions } from 'graphql-yoga';
import { projectPath } from '../paths.js';

let bundle: string | undefined;

/** The browser script as one IIFE; built once per process. */
export function signingScript(): string {
  if (bundle === undefined) {
    const result = buildSync({
      // The TypeScript source, also when this module runs bundled from dist/.
      entryPoints: [projectPath('src', 'graphiql', 'browser.ts')],
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
  #svc1-status[data-kind=error] { color: #b91c1c; }
`;

const PANEL_HTML = `
  <form id="svc1-panel" autocomplete="off" aria-label="SVC1 credentials">
    <strong>SVC1 signing</strong>
    <input id="svc1-key" type="text" placeholder="API key (pk_test_…)" aria-label="API key" spellcheck="false" />
    <input id="svc1-secret" type="password" placeholder="API secret (sk_test_…)" aria-label="API secret" />
    <label title="Off: kept in sessionStorage for this tab only"><input id="svc1-remember" type="checkbox" /> remember on this device</label>
    <button id="svc1-save" type="submit">Save &amp; sign</button>
    <button id="svc1-forget" type="button">Forget</button>
    <span id="svc1-status" role="status"></span>
  </form>`;

/**
 * A Yoga `renderGraphiQL` that adds the credentials panel and the signing fetch.
 * The GraphiQL bundle (~80 MB of heap once loaded) and the signing script are
 * built on the first page view, so an API-only process never pays for them.
 */
export function createSigningGraphiQLRenderer(endpoint: string): (opts: GraphiQLOptions) => Promise<string> {
  if (!endpoint.startsWith('/')) throw new Error('createSigningGraphiQLRenderer: endpoint must start with "/"');
  let ready: Promise<(opts: GraphiQLOptions) => string> | undefined;
  const build = async () => {
    const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
    const script = signingScript();
    const head = `<style>${PANEL_CSS}</style><script>window.__SVC1_GRAPHIQL__ = ${JSON.stringify({ endpoint }).replace(/</g, '\\u003c')};\n${script}</script>`;
    return (opts: GraphiQLOptions): string => {
      const html = renderGraphiQL({ ...opts, endpoint });
      const withHead = html.replace('</title>', () => `</title>${head}`);
      const withPanel = withHead.replace(/<body[^>]*>/, (tag) => `${tag}${PANEL_HTML}`);
      if (withHead === html || withPanel === withHead) throw new Error('GraphiQL page layout changed: cannot inject the signing panel');
      return withPanel;
    };
  };
  return async (opts) => (await (ready ??= build()))(opts);
}
