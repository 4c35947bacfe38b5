/**
 * Browser side of the signing GraphiQL page (bundled by esbuild into the
 * page at server start; runs before GraphiQL boots).
 *
 * - Keeps the developer's API key + secret in sessionStorage (localStorage
 *   only when "remember" is ticked) and never sends the secret anywhere.
 * - Takes over GraphiQL's boot call (render.ts rewrites it to {@link boot}):
 *   until credentials exist GraphiQL is not mounted, so the page sends
 *   nothing (no unsigned introspection, no 401 in the console) and shows
 *   what to paste; saving credentials mounts it, and it introspects signed.
 * - Gives GraphiQL its own fetcher: every operation (introspection included)
 *   is signed per SVC1 over the exact bytes sent, with WebCrypto
 *   (src/client/svc1-web.ts). The fetcher never throws: a network failure or
 *   a non-JSON answer becomes a GraphQL error message, so GraphiQL never
 *   prints an exception with its stack trace, and documents are parsed by
 *   the server (whose errors carry no stack) rather than in the page.
 * - Reads every answer: an authentication rejection (wrong secret, unknown
 *   key, clock skew, rate limit) turns the credentials bar red and says
 *   what to check.
 *
 * - Subscriptions (`paymentChannelsChanged`, contract §8) go out as the
 *   same signed POST with `Accept: text/event-stream`; the fetcher returns
 *   an async iterable of the stream's `next` events, which GraphiQL shows
 *   one after the other, and ends with the stream.
 */
import { signRequestWeb } from '../../client/svc1-web.js';
// The server's own list (src/shared/errors.ts has no imports, so the page bundle stays small).
import { AUTH_ERROR_CODES } from '../../shared/errors.js';

interface Credentials {
  apiKey: string;
  apiSecret: string;
}

interface PageConfig {
  endpoint: string;
  boot?: typeof boot;
}

/** Yoga's GraphiQL bundle, defined by the page's own script. */
declare const YogaGraphiQL: { renderYogaGraphiQL(root: Element, options: Record<string, unknown>): void };

const STORAGE_KEY = 'payment-gateway.svc1.credentials';
const config = (window as unknown as { __SVC1_GRAPHIQL__: PageConfig }).__SVC1_GRAPHIQL__;
const endpoint = new URL(config.endpoint, window.location.href);
const CREDENTIALS_HINT = 'data/demo-credentials.json, written by the first npm start';

function parse(raw: string | null): Credentials | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as Partial<Credentials>;
    return typeof value.apiKey === 'string' && typeof value.apiSecret === 'string' && value.apiKey && value.apiSecret
      ? { apiKey: value.apiKey, apiSecret: value.apiSecret }
      : null;
  } catch {
    // Unreadable stored credentials (edited by hand, older format) count as none: the bar asks for new ones.
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

const where = (stored: { remembered: boolean }) => (stored.remembered ? ' (remembered on this device)' : ' (this tab only)');

/** A GraphQL error as the server sends it. */
interface WireError {
  message?: string;
  extensions?: { code?: string; serverTime?: number; maxSkewSeconds?: number };
}

/** Codes that mean "this request was not accepted at all": the bar must say so and what to check. */
const REJECTIONS = new Set<string>([...AUTH_ERROR_CODES, 'RATE_LIMITED', 'SERVICE_UNAVAILABLE']);

/** What to check for one rejection, in the words of someone who just pasted a key and a secret. */
function adviceFor(error: WireError, apiKey: string, retryAfter: string | null): string {
  const code = error.extensions?.code ?? '';
  switch (code) {
    case 'SIGNATURE_MISMATCH':
      // The page signs exactly what it sends (method, target, timestamp, key, body): only the secret can be wrong.
      return `the secret is not the secret of ${apiKey}. Paste the apiSecret that belongs to this apiKey (in ${CREDENTIALS_HINT}; or the secret \`npm run admin -- key create\` printed), then Save & sign.`;
    case 'INVALID_API_KEY':
      return `${apiKey} is unknown or revoked on this server. Check the key (in ${CREDENTIALS_HINT} in this server's DATA_DIR) or issue a new one: npm run admin -- key create --merchant MERCHANT_ID.`;
    case 'TIMESTAMP_EXPIRED': {
      const serverTime = error.extensions?.serverTime;
      const skew = typeof serverTime === 'number' ? Math.round(Date.now() / 1000 - serverTime) : null;
      return `this computer's clock is ${skew === null ? 'too far' : `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'}`} the server's (allowed: ±${error.extensions?.maxSkewSeconds ?? 300} s). Set the clock right, then run again.`;
    }
    case 'RATE_LIMITED':
      return `too many requests for this key or address; run again${retryAfter ? ` in ${retryAfter} s` : ' shortly'}.`;
    case 'SERVICE_UNAVAILABLE':
      return 'the server cannot use its database right now; run again shortly.';
    default:
      return error.message ?? 'no reason given.';
  }
}

let signedCount = 0;

/** Update the bar from one answer: red with advice on a rejection, green otherwise. */
function report(status: number, payload: unknown, stored: { credentials: Credentials; remembered: boolean }, retryAfter: string | null): void {
  const first = (payload as { errors?: WireError[] } | null)?.errors?.[0];
  const code = first?.extensions?.code;
  if (code !== undefined && REJECTIONS.has(code)) {
    setStatus(`Rejected (${status} ${code}): ${adviceFor(first!, stored.credentials.apiKey, retryAfter)}`, 'error');
    return;
  }
  // What the server accepted is the signature; the request itself may still have failed (a 400 for a bad
  // query, a 403 for a channel out of scope): say which, so a green bar never reads as "the request worked".
  const signed = `Signed ${signedCount} request(s) as ${stored.credentials.apiKey}${where(stored)}; the signature of the last one was accepted`;
  if (status >= 400) setStatus(`${signed}, but the request failed (${status}${code ? ` ${code}` : ''}): see the result.`, 'warn');
  else setStatus(`${signed}.`, 'ok');
}

const failure = (message: string) => ({ errors: [{ message }] });

/** GraphiQL's parameters of one operation. */
interface FetcherParams {
  query: string;
  variables?: unknown;
  operationName?: string | null;
}

/**
 * Whether the operation GraphiQL runs is a subscription. A light scan, not a parse (documents are parsed by
 * the server, whose errors carry no stack): comments and strings are blanked, then the operation named
 * `operationName` (or the only one) decides; anything unclear is sent as a query, and the server answers.
 */
function isSubscription(query: string, operationName?: string | null): boolean {
  const text = query.replace(/"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|#[^\n]*/g, ' ');
  const operations = [...text.matchAll(/(?:^|[\s}])(query|mutation|subscription)\b\s*([_A-Za-z][_0-9A-Za-z]*)?/g)].map((m) => ({ kind: m[1], name: m[2] }));
  const chosen = operationName ? operations.find((o) => o.name === operationName) : operations.length === 1 ? operations[0] : undefined;
  return chosen?.kind === 'subscription';
}

/** The `next` events of a GraphQL-over-SSE response, parsed; ends at `complete` or when the stream ends. */
async function* sseResults(response: Response): AsyncGenerator<unknown> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += value;
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const lines = frame.split('\n');
        const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
        const data = lines
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        if (event === 'complete') return;
        // Comment frames (`: heartbeat`) carry neither; they only keep proxies from closing the stream.
        if (event === 'next' && data) yield JSON.parse(data) as unknown;
      }
    }
  } finally {
    // GraphiQL stops iterating when the developer stops the operation: that closes the stream (and frees its slot).
    reader.cancel().catch(() => undefined);
  }
}

/** Sign and send one operation; resolve to the server's JSON answer (for a subscription, a stream of them), or to a GraphQL error saying what failed. */
async function fetcher(params: FetcherParams, options?: { headers?: Record<string, unknown> }): Promise<unknown> {
  const stored = load();
  if (!stored) {
    setStatus('No credentials: paste an API key and secret, then Save & sign.', 'warn');
    return failure('Not sent: no credentials. Paste an API key and secret in the SVC1 signing bar, then Save & sign.');
  }
  const body = JSON.stringify({ query: params.query, variables: params.variables ?? undefined, operationName: params.operationName ?? undefined });
  let signed;
  try {
    signed = await signRequestWeb({ method: 'POST', target: `${endpoint.pathname}${endpoint.search}`, body, ...stored.credentials });
  } catch (err) {
    // e.g. no WebCrypto outside a secure context (plain http on a non-localhost host): say so where the developer looks.
    const message = `Cannot sign: ${err instanceof Error ? err.message : String(err)}`;
    setStatus(message, 'error');
    return failure(message);
  }
  // Headers from GraphiQL's headers editor first; the signature and the media types always win.
  const headers = new Headers();
  for (const [name, value] of Object.entries(options?.headers ?? {})) headers.set(name, String(value));
  const subscription = isSubscription(params.query, params.operationName);
  headers.set('Content-Type', 'application/json');
  headers.set('Accept', subscription ? 'text/event-stream' : 'application/graphql-response+json, application/json');
  for (const [name, value] of Object.entries(signed.headers)) headers.set(name, value);
  signedCount += 1;
  let response: Response;
  try {
    response = await window.fetch(endpoint.href, { method: 'POST', headers, body, credentials: 'same-origin', cache: 'no-store' });
  } catch (err) {
    const message = `Cannot reach ${endpoint.origin} (${err instanceof Error ? err.message : String(err)}): is the server running?`;
    setStatus(message, 'error');
    return failure(message);
  }
  if (subscription && response.ok && (response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    setStatus(`Signed ${signedCount} request(s) as ${stored.credentials.apiKey}${where(stored)}; the subscription stream is open.`, 'ok');
    return sseResults(response);
  }
  const text = await response.text();
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = failure(`HTTP ${response.status}: the server answered ${response.headers.get('content-type') ?? 'without a content type'}, not JSON.`);
  }
  report(response.status, payload, stored, response.headers.get('retry-after'));
  return payload;
}

let mounted = false;
let pendingBoot: (() => void) | null = null;

/**
 * Replaces the page's `YogaGraphiQL.renderYogaGraphiQL(root, options)`: mount
 * GraphiQL now if credentials exist, else once they are saved.
 */
function boot(root: Element, options: Record<string, unknown>): void {
  // With a fetcher of its own GraphiQL ignores `endpoint` (and warns in the console if it is set).
  const { endpoint: _endpoint, ...rest } = options;
  // A link that carries an operation (`/graphql?query=…`, e.g. from the docs) opens it in front; without one the
  // page's example query stays in front (render.ts pins `query` so GraphiQL adds no empty tab).
  const linked = new URLSearchParams(window.location.search);
  const fromLink = {
    ...(linked.get('query') ? { query: linked.get('query') } : {}),
    ...(linked.get('variables') ? { variables: linked.get('variables') } : {}),
  };
  const start = () => {
    mounted = true;
    document.getElementById('svc1-waiting')?.remove();
    YogaGraphiQL.renderYogaGraphiQL(root, { ...rest, ...fromLink, fetcher });
  };
  if (load()) start();
  else pendingBoot = start;
}
config.boot = boot;

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
    setStatus(`Signing as ${stored.credentials.apiKey}${where(stored)}.`, 'ok');
  } else {
    setStatus(`Paste an API key and secret (e.g. from ${CREDENTIALS_HINT}) and click Save & sign. Nothing is sent until then.`, 'warn');
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
    if (mounted) {
      // GraphiQL keeps the schema it introspected: reload so it introspects again with the new credentials
      // (the `query` page option brings the example tab back to the front, not a new empty one).
      window.location.reload();
      return;
    }
    setStatus(`Signing as ${apiKey}${where({ remembered: remember.checked })}.`, 'ok');
    pendingBoot?.();
    pendingBoot = null;
  });
  clear.addEventListener('click', () => {
    forget();
    key.value = '';
    secret.value = '';
    remember.checked = false;
    // A mounted GraphiQL would keep a schema fetched with the forgotten key: start over without it.
    if (mounted) window.location.reload();
    else setStatus('Credentials forgotten.', 'warn');
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', wirePanel);
else wirePanel();
