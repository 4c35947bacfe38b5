/**
 * Browser side of the signing GraphiQL page (bundled by esbuild into the
 * page at server start; runs before GraphiQL boots).
 *
 * - Keeps the developer's API key + secret in sessionStorage (localStorage
 *   only when "remember" is ticked) and never sends the secret anywhere.
 * - Wraps `window.fetch`: every request to the GraphQL endpoint of this
 *   origin (queries and GraphiQL's introspection alike) is signed per SVC1
 *   over the exact bytes sent, with WebCrypto (src/client/svc1-web.ts).
 * - Saving credentials reloads the page so the schema is introspected with
 *   them.
 */
import { signRequestWeb } from '../client/svc1-web.js';

interface Credentials {
  apiKey: string;
  apiSecret: string;
}

interface PageConfig {
  endpoint: string;
}

const STORAGE_KEY = 'payment-gateway.svc1.credentials';
const config = (window as unknown as { __SVC1_GRAPHIQL__: PageConfig }).__SVC1_GRAPHIQL__;
const endpoint = new URL(config.endpoint, window.location.href);

function parse(raw: string | null): Credentials | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<Credentials>;
    return typeof value.apiKey === 'string' && typeof value.apiSecret === 'string' && value.apiKey && value.apiSecret
      ? { apiKey: value.apiKey, apiSecret: value.apiSecret }
      : null;
  } catch {
    return null;
  }
}

function load(): { credentials: Credentials; remembered: boolean } | null {
  const session = parse(window.sessionStorage.getItem(STORAGE_KEY));
  if (session) return { credentials: session, remembered: window.localStorage.getItem(STORAGE_KEY) !== null };
  const local = parse(window.localStorage.getItem(STORAGE_KEY));
  return local ? { credentials: local, remembered: true } : null;
}

function save(credentials: Credentials, remember: boolean): void {
  const json = JSON.stringify(credentials);
  window.sessionStorage.setItem(STORAGE_KEY, json);
  if (remember) window.localStorage.setItem(STORAGE_KEY, json);
  else window.localStorage.removeItem(STORAGE_KEY);
}

function forget(): void {
  window.sessionStorage.removeItem(STORAGE_KEY);
  window.localStorage.removeItem(STORAGE_KEY);
}

function setStatus(text: string, kind: 'ok' | 'warn' | 'error'): void {
  const el = document.getElementById('svc1-status');
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = kind;
}

let signedCount = 0;
const originalFetch = window.fetch.bind(window);

/** Sign requests for the GraphQL endpoint; pass everything else through untouched. */
async function signingFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (url.origin !== endpoint.origin || url.pathname !== endpoint.pathname) return originalFetch(input, init);
  const stored = load();
  if (!stored) {
    setStatus('No credentials: requests are sent unsigned and will be rejected (401). Enter an API key and secret.', 'warn');
    return originalFetch(input, init);
  }
  const method = request.method.toUpperCase();
  const hasBody = method !== 'GET' && method !== 'HEAD';
  // The exact bytes the browser will send: read them once and send those same bytes.
  const body = hasBody ? new Uint8Array(await request.arrayBuffer()) : undefined;
  let signed;
  try {
    signed = await signRequestWeb({ method, target: `${url.pathname}${url.search}`, body, ...stored.credentials });
  } catch (err) {
    // e.g. no WebCrypto outside a secure context (plain http on a non-localhost host): say so where the developer looks.
    setStatus(`Cannot sign: ${err instanceof Error ? err.message : String(err)}`, 'error');
    throw err;
  }
  const headers = new Headers(request.headers);
  for (const [name, value] of Object.entries(signed.headers)) headers.set(name, value);
  signedCount += 1;
  setStatus(`Signed ${signedCount} request(s) as ${stored.credentials.apiKey}${stored.remembered ? ' (remembered on this device)' : ' (this tab only)'}.`, 'ok');
  return originalFetch(url.href, {
    method,
    headers,
    body,
    credentials: request.credentials,
    signal: request.signal,
    cache: 'no-store',
    redirect: request.redirect,
  });
}

window.fetch = signingFetch as typeof window.fetch;

function wirePanel(): void {
  const form = document.getElementById('svc1-panel') as HTMLFormElement | null;
  const key = document.getElementById('svc1-key') as HTMLInputElement | null;
  const secret = document.getElementById('svc1-secret') as HTMLInputElement | null;
  const remember = document.getElementById('svc1-remember') as HTMLInputElement | null;
  const clear = document.getElementById('svc1-forget') as HTMLButtonElement | null;
  if (!form || !key || !secret || !remember || !clear) return;
  const stored = load();
  if (stored) {
    key.value = stored.credentials.apiKey;
    secret.value = stored.credentials.apiSecret;
    remember.checked = stored.remembered;
    setStatus(`Signing as ${stored.credentials.apiKey}${stored.remembered ? ' (remembered on this device)' : ' (this tab only)'}.`, 'ok');
  } else {
    setStatus('Enter an API key and secret (e.g. from DATA_DIR/demo-credentials.json) to sign requests.', 'warn');
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const apiKey = key.value.trim();
    const apiSecret = secret.value.trim();
    if (!apiKey || !apiSecret) {
      setStatus('Both the API key and the secret are needed.', 'error');
      return;
    }
    save({ apiKey, apiSecret }, remember.checked);
    // Reload so GraphiQL introspects the schema with a signed request.
    window.location.reload();
  });
  clear.addEventListener('click', () => {
    forget();
    key.value = '';
    secret.value = '';
    remember.checked = false;
    setStatus('Credentials forgotten.', 'warn');
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', wirePanel);
else wirePanel();
