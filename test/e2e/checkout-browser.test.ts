/**
 * The drop-in checkout in headless Chromium across two origins, all real processes (issue 23 item 6):
 * the gateway (`npm start`) on one port, the reference merchant integration
 * (docs/examples/checkout-merchant, `npm run example:checkout`) on another, allowed for the demo merchant
 * with the admin CLI (`merchant origins add`), and a second merchant page on an origin nobody allowed.
 *
 * - the session's channels render with the gateway's totals, unavailable ones disabled with a reason;
 * - mouse and keyboard choose (radio roles), the page hears the choice as an event;
 * - a CLI maintenance change disables the chosen channel and says so within 1 s;
 * - a session created with the shortest lifetime (60 s) shows its expiry message; revoking the API key that
 *   created a session ends it on the page;
 * - a page on a non-allowed origin is refused by the browser (CORS) and by the gateway (403);
 * - no console error on the allowed pages; neither the API secret nor another merchant's client secret
 *   appears in the pages, their network traffic or their storage.
 *
 * Without /usr/bin/chromium the browser tests are skipped locally and FAIL in CI (CI=true).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, inCI, launchChromium } from '../helpers/chromium.js';
import { admin, childEnv, ROOT } from '../helpers/ops.js';
import { makeTempDir } from '../helpers/app.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import type { DemoMerchantCredentials } from '../../src/modules/admin/demo-seed.js';

interface Merchant {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** What the page shows once the merchant server verified the component's quote (looked at by people). */
const QUOTE_ARTIFACT = path.resolve(import.meta.dirname, '../../artifacts/checkout-quote-verified.png');

/** The reference merchant integration as a developer runs it, on a free port. */
async function startMerchant(server: RunningServer): Promise<Merchant> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'docs/examples/checkout-merchant/server.ts'], {
    cwd: ROOT,
    env: childEnv({ MERCHANT_PORT: '0', GATEWAY_URL: server.baseUrl, CREDENTIALS_FILE: path.join(server.dataDir, 'demo-credentials.json') }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`merchant did not start:\n${out}`)), 20_000);
    child.stdout.on('data', () => {
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then(() => reject(new Error(`merchant exited:\n${out}`)));
  });
  return {
    url,
    child,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

interface Traffic {
  url: string;
  requestHeaders: string;
  requestBody: string;
  responseHeaders: string;
  responseBody: string;
}

/** Everything a page exposes: its console errors, its network traffic (both directions), its storage. */
function observe(page: Page): { errors: string[]; traffic: Traffic[] } {
  const errors: string[] = [];
  const traffic: Traffic[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('requestfinished', (request) => {
    void (async () => {
      const response = await request.response();
      const type = response?.headers()['content-type'] ?? '';
      // A finished event stream's bytes are the same channel data as the queries'; its body is not kept by the browser.
      const responseBody = response && !type.includes('text/event-stream') ? await response.text() : '';
      traffic.push({
        url: request.url(),
        requestHeaders: JSON.stringify(await request.allHeaders()),
        requestBody: request.postData() ?? '',
        responseHeaders: JSON.stringify(response ? await response.allHeaders() : {}),
        responseBody,
      });
    })();
  });
  return { errors, traffic };
}

const radios = (page: Page) => page.getByRole('radio');
const row = (page: Page, code: string) => page.locator(`[role="radio"][data-code="${code}"]`);
const statusText = (page: Page) => page.locator('payment-checkout').getByRole('status').innerText();

describe.skipIf(!hasChromium && !inCI)('the drop-in checkout in Chromium, gateway and merchant on two origins', () => {
  let root: string;
  let server: RunningServer;
  let approved: DemoMerchantCredentials;
  let merchant: Merchant;
  let stranger: Merchant;
  let browser: Browser;
  let context: BrowserContext;
  let expiring: Page;
  let expiringSeen: ReturnType<typeof observe>;
  let otherClientSecret: string;
  let otherApiSecret: string;
  const seen: ReturnType<typeof observe>[] = [];

  beforeAll(async () => {
    root = makeTempDir('pgw-checkout-');
    server = await startServer(path.join(root, 'data'));
    const merchants = server.credentials();
    approved = merchants.find((m) => m.kyc === 'approved')!;
    [merchant, stranger] = await Promise.all([startMerchant(server), startMerchant(server)]);
    const added = await admin(server.dataDir, ['merchant', 'origins', 'add', approved.merchantId, merchant.url]);
    expect(added.code, added.stderr).toBe(0);
    // Another (approved) merchant's session, which must never reach this merchant's pages.
    const another = merchants.find((m) => m.kyc === 'approved' && m.merchantId !== approved.merchantId)!;
    const created = await server.signedFetch('/v1/checkout/sessions', { method: 'POST', as: another, body: JSON.stringify({ merchantId: another.merchantId, amount: 150000, currency: 'IDR' }) });
    expect(created.status).toBe(201);
    otherClientSecret = ((await created.json()) as { clientSecret: string }).clientSecret;
    otherApiSecret = another.apiSecret;
    browser = await launchChromium();
    context = await browser.newContext();
    // The shortest session the API allows (60 s), opened first: the last test waits for its end.
    expiring = await context.newPage();
    expiringSeen = observe(expiring);
    seen.push(expiringSeen);
    await expiring.goto(`${merchant.url}/?expiresInSeconds=60`);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([merchant?.stop(), stranger?.stop()]);
    await server?.stop();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists the session’s channels with the gateway’s fees and totals; unavailable ones are disabled with a reason', async () => {
    const page = await context.newPage();
    seen.push(observe(page));
    await page.goto(`${merchant.url}/?amount=150000`);
    await expect.poll(() => radios(page).count(), { timeout: 15_000 }).toBeGreaterThan(5);

    // The gateway's own answer for the same payment, signed (what the component must show).
    const res = await server.signedFetch('/graphql', {
      method: 'POST',
      body: JSON.stringify({ query: '{ paymentChannels(filter: { amount: 150000, currency: "IDR" }) { code name availability { selectable reasons } fee(amount: 150000) { totalAmount customerFee merchantFee } } }' }),
    });
    const expected = ((await res.json()) as { data: { paymentChannels: { code: string; name: string; availability: { selectable: boolean; reasons: string[] }; fee: { totalAmount: number; customerFee: number; merchantFee: number } | null }[] } }).data.paymentChannels;
    const money = new Intl.NumberFormat('id', { style: 'currency', currency: 'IDR', minimumFractionDigits: 0 });
    const norm = (s: string) => s.replace(/\s+/g, ' ');
    expect(await radios(page).count()).toBe(expected.length);
    for (const channel of expected) {
      const r = row(page, channel.code);
      const text = norm(await r.innerText());
      expect(text).toContain(channel.name);
      if (channel.availability.selectable) {
        expect(await r.getAttribute('aria-disabled')).toBeNull();
        expect(text).toContain(`Total ${norm(money.format(channel.fee!.totalAmount))}`);
        expect(text).toMatch(channel.fee!.merchantFee === 0 ? /paid by you/ : channel.fee!.customerFee === 0 ? /paid by the shop/ : /by the shop/);
        // The image is the gateway's.
        expect(await r.locator('img').getAttribute('src')).toBe(`${server.baseUrl}/images/channels/${channel.code}.svg`);
      } else {
        expect(await r.getAttribute('aria-disabled')).toBe('true');
        expect(text).toMatch(/maintenance|unavailable|not available/i);
      }
    }
    expect(norm(await row(page, 'qris').innerText())).toContain(`Total ${norm(money.format(151050))}`);
    expect(await row(page, 'mandiri_va').innerText()).toContain('Under maintenance');
    await page.close();
  }, 60_000);

  it('chooses with the mouse and the keyboard and tells the page; a CLI maintenance change disables the choice within 1 s', async () => {
    const page = await context.newPage();
    seen.push(observe(page));
    await page.goto(merchant.url);
    await expect.poll(() => radios(page).count(), { timeout: 15_000 }).toBeGreaterThan(5);

    const focused = () => page.evaluate(() => document.querySelector('payment-checkout')!.shadowRoot!.activeElement?.getAttribute('data-code'));
    // Keyboard: the group is one Tab stop (the first selectable channel); Space chooses.
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('qris');
    await page.keyboard.press('Space');
    expect(await row(page, 'qris').getAttribute('aria-checked')).toBe('true');
    // The event comes once the component has the choice's fee quote (contract §11).
    await expect.poll(() => page.locator('#choice').innerText(), { timeout: 5_000 }).toBe('Chosen: QRIS, total IDR 151,050');
    // The merchant's server verified the quote the component handed the page, and says what it would charge.
    await expect.poll(() => page.locator('#charge').getAttribute('data-verified'), { timeout: 5_000 }).toBe('true');
    expect(await page.locator('#charge').getAttribute('data-total')).toBe('151050');
    expect(await page.locator('#charge').innerText()).toMatch(/^Quote verified by the shop: you will be charged IDR 151,050 \(quote qt_[A-Za-z0-9_-]+, valid until \d{4}-/);
    fs.mkdirSync(path.dirname(QUOTE_ARTIFACT), { recursive: true });
    await page.screenshot({ path: QUOTE_ARTIFACT });

    // Mouse.
    await row(page, 'bca_va').click();
    expect(await row(page, 'bca_va').getAttribute('aria-checked')).toBe('true');
    expect(await row(page, 'qris').getAttribute('aria-checked')).toBe('false');
    await expect.poll(() => page.locator('#choice').getAttribute('data-code'), { timeout: 5_000 }).toBe('bca_va');

    // Arrow keys move the choice to the next selectable channel and focus it.
    await page.keyboard.press('ArrowDown');
    expect(await row(page, 'bni_va').getAttribute('aria-checked')).toBe('true');
    await page.keyboard.press('ArrowDown');
    expect(await row(page, 'bri_va').getAttribute('aria-checked')).toBe('true');
    expect(await focused()).toBe('bri_va');
    await expect.poll(() => page.locator('#choice').getAttribute('data-code'), { timeout: 5_000 }).toBe('bri_va');

    const r = await admin(server.dataDir, ['channel', 'update', 'bri_va', '--status', 'maintenance']);
    expect(r.code, r.stderr).toBe(0);
    // The contract's bound, polled from the moment the CLI has committed and exited.
    await expect.poll(() => row(page, 'bri_va').getAttribute('aria-disabled'), { timeout: 1_000, interval: 50 }).toBe('true');
    expect(await row(page, 'bri_va').getAttribute('aria-checked')).toBe('false');
    expect(await statusText(page)).toBe('BRI Virtual Account: under maintenance right now. Please choose another payment method.');
    expect(await page.locator('#choice').innerText()).toBe('Please choose a payment method.');
    const back = await admin(server.dataDir, ['channel', 'update', 'bri_va', '--status', 'active']);
    expect(back.code, back.stderr).toBe(0);
    await expect.poll(() => row(page, 'bri_va').getAttribute('aria-disabled'), { timeout: 5_000 }).toBeNull();
    await page.close();
  }, 60_000);

  it('a page on an origin the merchant did not allow is refused by the browser (CORS) and by the gateway (403)', async () => {
    const page = await context.newPage();
    const { errors } = observe(page);
    await page.goto(stranger.url);
    await expect.poll(() => statusText(page), { timeout: 15_000 }).toBe('Payment methods cannot be shown right now. Please try again later.');
    expect(await radios(page).count()).toBe(0);
    expect(errors.some((e) => /CORS policy/.test(e))).toBe(true);

    // What the browser sent, by hand: the preflight gets no permission for this origin, the request itself a 403.
    const secret = /client-secret="([^"]+)"/.exec(await (await fetch(stranger.url)).text())![1]!;
    const preflight = await fetch(`${server.baseUrl}/graphql`, { method: 'OPTIONS', headers: { Origin: stranger.url, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const direct = await fetch(`${server.baseUrl}/graphql`, { method: 'POST', headers: { Origin: stranger.url, Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ checkoutSession { id } }' }) });
    expect(direct.status).toBe(403);
    expect(direct.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await direct.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('ORIGIN_NOT_ALLOWED');
    await page.close();
  }, 60_000);

  it('shows the expiry of a 60-second session; no console error and no secret anywhere in the pages', async () => {
    await expect.poll(() => statusText(expiring), { timeout: 75_000, interval: 500 }).toBe('This checkout session has expired. Reload the page to start again.');
    expect(await expiring.locator('#choice').innerText()).toBe('This checkout session has expired. Reload the page to start again.');
    const enabled = await expiring.locator('[role="radio"]:not([aria-disabled="true"])').count();
    expect(enabled).toBe(0);

    const secrets = [approved.apiSecret, otherApiSecret, otherClientSecret];
    for (const page of context.pages()) {
      const html = await page.content();
      const storage = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
      for (const s of secrets) {
        expect(html.includes(s)).toBe(false);
        expect(storage.includes(s)).toBe(false);
      }
    }
    expect((await context.cookies()).length).toBe(0);
    const traffic = seen.flatMap((o) => o.traffic);
    expect(traffic.some((t) => t.url.startsWith(server.baseUrl))).toBe(true);
    for (const t of traffic) for (const s of secrets) expect(JSON.stringify(t).includes(s), t.url).toBe(false);
    expect(seen.flatMap((o) => o.errors)).toEqual([]);
  }, 90_000);

  it('revoking the API key that created the session ends it on the page within 1 s', async () => {
    const page = await context.newPage();
    const { errors } = observe(page);
    await page.goto(merchant.url);
    await expect.poll(() => radios(page).count(), { timeout: 15_000 }).toBeGreaterThan(5);
    const r = await admin(server.dataDir, ['key', 'revoke', approved.apiKey]);
    expect(r.code, r.stderr).toBe(0);
    await expect.poll(() => statusText(page), { timeout: 1_000, interval: 50 }).toBe('This checkout session is no longer valid. Reload the page to start again.');
    expect(await page.locator('[role="radio"]:not([aria-disabled="true"])').count()).toBe(0);
    // At most the browser's own note of the gateway's 401 SESSION_INVALID, which told the component why.
    expect(errors.filter((e) => e !== 'Failed to load resource: the server responded with a status of 401 (Unauthorized)')).toEqual([]);
    await page.close();
  }, 60_000);
});
