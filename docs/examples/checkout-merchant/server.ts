/**
 * Reference merchant integration for the drop-in checkout (contract §9): a merchant's own web server, on
 * its own origin, that
 * - creates a checkout session per page view with the SDK (`createCheckoutSession`, signed with the API
 *   secret, which stays here), and
 * - serves a checkout page that embeds the gateway's component (`/checkout/v1/checkout.js` from the
 *   gateway's origin) with only the session's client secret, under a strict Content-Security-Policy
 *   (no inline script or style; scripts from itself and the gateway; API calls to the gateway and itself), and
 * - verifies the fee quote the component hands the page (`POST /quote`, contract §11) with the SDK, offline
 *   against the gateway's published keys, before it would create the payment: it answers what it would
 *   charge, from the quote, whatever the pricing is by then.
 *
 *   npm run example:checkout        # http://127.0.0.1:4100 (the demo merchant's allowed origin)
 *
 * Environment: MERCHANT_PORT (4100), MERCHANT_HOST (127.0.0.1), BASE_URL (the gateway, http://127.0.0.1:4000;
 * the same name as `npm run sign`; GATEWAY_URL is accepted as an alias), CREDENTIALS_FILE (default
 * $DATA_DIR/demo-credentials.json, DATA_DIR default ./data: the approved demo merchant's key and secret).
 * The page takes `?amount=` (IDR, default 150000), `?lang=id|en` (default id: the page's `<html lang>` and
 * the session's locale, so the component speaks it; the page has a switch) and, to see expiry,
 * `?expiresInSeconds=` (60–86400, default 900). Amounts are formatted as the component formats them.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { createClient, GatewayError } from '../../../src/client/index.js';

interface Merchant {
  name: string;
  merchantId: string;
  apiKey: string;
  apiSecret: string;
  kyc: string;
}

const port = Number(process.env.MERCHANT_PORT ?? 4100);
const host = process.env.MERCHANT_HOST ?? '127.0.0.1';
const gateway = new URL(process.env.BASE_URL || process.env.GATEWAY_URL || 'http://127.0.0.1:4000').origin;
const credentialsFile = path.resolve(process.env.CREDENTIALS_FILE ?? path.join(process.env.DATA_DIR ?? './data', 'demo-credentials.json'));

if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`MERCHANT_PORT must be a port number, got ${process.env.MERCHANT_PORT}\n`);
  process.exit(2);
}
if (!fs.existsSync(credentialsFile)) {
  process.stderr.write(`No credentials file at ${credentialsFile}: run \`npm start\` once (it writes data/demo-credentials.json) or set CREDENTIALS_FILE.\n`);
  process.exit(2);
}
const merchants = (JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as { merchants: Merchant[] }).merchants;
const merchant = merchants.find((m) => m.kyc === 'approved') ?? merchants[0];
if (!merchant) {
  process.stderr.write(`${credentialsFile} lists no merchant.\n`);
  process.exit(2);
}
// The API secret lives only in this process: the browser gets a session's client secret.
// merchantId: offline quote verification refuses another merchant's quote.
const client = createClient({ baseUrl: gateway, apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, merchantId: merchant.merchantId });
/** Largest `POST /quote` body read (a quote is under 1 KiB). */
const MAX_QUOTE_BODY = 8 * 1024;
const here = import.meta.dirname;
const assets: Record<string, { file: string; type: string }> = {
  '/merchant.js': { file: path.join(here, 'merchant.js'), type: 'text/javascript; charset=utf-8' },
  '/merchant.css': { file: path.join(here, 'merchant.css'), type: 'text/css; charset=utf-8' },
};

/** The page's policy: its own script and style, the gateway's module, images and API, nothing else. */
const CSP = [
  "default-src 'none'",
  `script-src 'self' ${gateway}`,
  `connect-src 'self' ${gateway}`,
  `img-src 'self' ${gateway}`,
  "style-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

/** Attribute- and text-safe: the page is a template with the few values below escaped. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Lang = 'id' | 'en';

/** The page's own words (the component has its own, in the same two languages). */
const TEXTS: Record<Lang, { title: string; total: string; none: string; pay: string; switchTo: string }> = {
  id: { title: 'checkout', total: 'Total pesanan sebelum biaya', none: 'Belum ada metode pembayaran yang dipilih.', pay: 'Bayar', switchTo: 'English' },
  en: { title: 'checkout', total: 'Order total before fees', none: 'No payment method chosen yet.', pay: 'Pay', switchTo: 'Bahasa Indonesia' },
};

/** The component's number format (src/client/checkout/messages.ts NUMBER_LOCALES): "Rp 150.000" in both languages. */
function rupiah(amount: number, lang: Lang): string {
  return new Intl.NumberFormat(lang === 'id' ? 'id-ID' : 'en-ID', { style: 'currency', currency: 'IDR', minimumFractionDigits: 0 }).format(amount);
}

function page(clientSecret: string, amount: number, lang: Lang, url: URL): string {
  const t = TEXTS[lang];
  const other: Lang = lang === 'id' ? 'en' : 'id';
  const switchUrl = new URLSearchParams(url.searchParams);
  switchUrl.set('lang', other);
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(merchant!.name)} — ${t.title}</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/merchant.css">
<script type="module" src="${escapeHtml(gateway)}/checkout/v1/checkout.js"></script>
<script type="module" src="/merchant.js"></script>
</head>
<body>
<main>
<nav><a id="lang-switch" href="/?${escapeHtml(switchUrl.toString())}" lang="${other}" hreflang="${other}">${t.switchTo}</a></nav>
<h1>${escapeHtml(merchant!.name)}</h1>
<p>${t.total}: <strong id="order-total">${escapeHtml(rupiah(amount, lang))}</strong></p>
<payment-checkout client-secret="${escapeHtml(clientSecret)}" gateway="${escapeHtml(gateway)}"></payment-checkout>
<p id="choice" role="status" aria-live="polite">${t.none}</p>
<p id="charge" role="status" aria-live="polite"></p>
<button id="pay" type="button" disabled>${t.pay}</button>
</main>
</body>
</html>
`;
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': type, ...COMMON_HEADERS, ...headers });
  res.end(body);
}

/** A whole number query parameter within bounds, or the default; undefined when given but invalid. */
function intParam(url: URL, name: string, fallback: number, min: number, max: number): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  return /^[0-9]+$/.test(raw) && value >= min && value <= max ? value : undefined;
}

async function checkoutPage(url: URL, res: ServerResponse): Promise<void> {
  const amount = intParam(url, 'amount', 150000, 1, 1_000_000_000_000);
  const expiresInSeconds = intParam(url, 'expiresInSeconds', 900, 60, 86_400);
  const langParam = url.searchParams.get('lang') ?? 'id';
  if (amount === undefined || expiresInSeconds === undefined || (langParam !== 'id' && langParam !== 'en')) {
    send(res, 400, 'text/plain; charset=utf-8', 'amount must be a whole number of IDR; expiresInSeconds 60 to 86400; lang id or en.\n');
    return;
  }
  const lang: Lang = langParam;
  try {
    // The session carries the shopper's language, so the component speaks it even on a page without `lang`;
    // one session per page view: its own reference, since identical carts signed in the same second are one session.
    const session = await client.createCheckoutSession({ merchantId: merchant!.merchantId, amount, currency: 'IDR', expiresInSeconds, locale: lang, reference: randomUUID() });
    // The page holds a live client secret: never cached, never framed.
    send(res, 200, 'text/html; charset=utf-8', page(session.clientSecret, amount, lang, url), { 'Content-Security-Policy': CSP, 'Cache-Control': 'no-store' });
  } catch (err) {
    const why = err instanceof GatewayError ? `${err.status} ${err.code}: ${err.message}` : `cannot reach the gateway at ${gateway} (${err instanceof Error ? err.message : String(err)})`;
    process.stderr.write(`checkout session not created: ${why}\n`);
    send(res, 502, 'text/plain; charset=utf-8', `The checkout could not be prepared: ${why}\n`);
  }
}

/**
 * `POST /quote` `{ "quote": "<token>" }` from the page: verify the gateway's quote (SDK, offline), and answer
 * what this shop would charge. This is where a real shop creates the payment, for `totalAmount` of the
 * verified quote, once per `quoteId`.
 */
async function verifyQuote(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_QUOTE_BODY) {
      send(res, 413, 'application/json', JSON.stringify({ error: 'body too large' }));
      return;
    }
    chunks.push(chunk);
  }
  let token: unknown;
  try {
    token = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { quote?: unknown }).quote;
  } catch {
    token = undefined;
  }
  if (typeof token !== 'string') {
    send(res, 400, 'application/json', JSON.stringify({ error: 'send { "quote": "<token>" }' }));
    return;
  }
  try {
    const q = await client.verifyQuote(token);
    send(res, 200, 'application/json', JSON.stringify({ verified: true, quoteId: q.quoteId, method: q.method, currency: q.currency, amount: q.amount, fee: q.customerFee, totalAmount: q.totalAmount, expiresAt: q.expiresAt }));
  } catch (err) {
    if (err instanceof GatewayError) {
      send(res, 422, 'application/json', JSON.stringify({ verified: false, code: err.code, message: err.message }));
      return;
    }
    process.stderr.write(`quote not verified: ${err instanceof Error ? err.message : String(err)}\n`);
    send(res, 502, 'application/json', JSON.stringify({ verified: false, code: 'UNREACHABLE', message: 'The gateway\'s keys could not be fetched.' }));
  }
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://merchant.invalid');
  if (req.method === 'POST' && url.pathname === '/quote') {
    void verifyQuote(req, res);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, 'text/plain; charset=utf-8', 'GET only\n', { Allow: 'GET, HEAD' });
    return;
  }
  if (url.pathname === '/') {
    void checkoutPage(url, res);
    return;
  }
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204, COMMON_HEADERS);
    res.end();
    return;
  }
  const asset = assets[url.pathname];
  if (!asset) {
    send(res, 404, 'text/plain; charset=utf-8', 'Not found\n');
    return;
  }
  send(res, 200, asset.type, fs.readFileSync(asset.file, 'utf8'), { 'Cache-Control': 'no-cache' });
}

const server = createServer(handle);
server.listen(port, host, () => {
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  // One JSON line for scripts and tests, then the URL for people.
  process.stdout.write(`${JSON.stringify({ msg: 'merchant listening', url: `http://${host}:${actual}`, gateway })}\n`);
  process.stdout.write(`Open http://${host}:${actual}/ (gateway ${gateway}, merchant ${merchant.name})\n`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
