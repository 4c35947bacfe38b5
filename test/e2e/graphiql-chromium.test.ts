/**
 * The signing GraphiQL page in real headless Chromium (Debian `chromium`,
 * driven by playwright-core) against a real server: the first load sends
 * nothing and logs no error until credentials exist; with the demo
 * credentials the example query runs; a wrong secret or key turns the
 * credentials bar red with what to check; no stack trace reaches the page.
 * Every request the page makes must stay on the server's origin (no CDN),
 * and every GraphQL request — introspection included — must carry a valid
 * SVC1 signature. Both pages run under the Content-Security-Policy the
 * gateway sends (no 'unsafe-eval', scripts by hash) with no violation
 * reported, and neither page can be framed by another origin.
 *
 * Screenshot: artifacts/graphiql.png (gitignored; CI keeps it as an artefact).
 * Without /usr/bin/chromium the test is skipped locally, and FAILS in CI (CI=true).
 *
 * One pass (npm test): the browser page is its subject, not the engine.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { CHROMIUM, hasChromium, inCI, launchChromium } from '../helpers/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealServer, type RealServer } from '../helpers/real-server.js';

const ARTIFACT = path.resolve(import.meta.dirname, '../../artifacts/graphiql.png');
const README = path.resolve(import.meta.dirname, '../../README.md');

describe('Chromium is available where it must be', () => {
  it('in CI, /usr/bin/chromium exists (.ci/run installs it)', () => {
    if (inCI) expect(hasChromium, `${CHROMIUM} is missing in CI: install the Debian chromium package`).toBe(true);
    else if (!hasChromium) console.warn(`[graphiql e2e] ${CHROMIUM} not found: the browser test is skipped (apt-get install -y chromium)`);
  });
});

describe.skipIf(!hasChromium && !inCI)('GraphiQL in headless Chromium', () => {
  let server: RealServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startRealServer();
    browser = await launchChromium();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A fresh page that records console errors, uncaught page errors, foreign requests and every /graphql exchange. */
  async function openPage(viewport?: { width: number; height: number }) {
    const context = await browser.newContext(viewport ? { viewport } : {});
    const page = await context.newPage();
    const origin = new URL(server.baseUrl).origin;
    const foreign: string[] = [];
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message}`));
    // No CDN: anything not on the server's own origin (or an in-page blob/data URL) is recorded and blocked.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    const calls: { method: string; path: string; body: string; signature: string | undefined; status: number }[] = [];
    page.on('response', async (response) => {
      const request = response.request();
      const url = new URL(request.url());
      if (url.origin !== origin) return;
      calls.push({ method: request.method(), path: url.pathname, body: request.postData() ?? '', signature: (await request.allHeaders())['x-service-signature'], status: response.status() });
    });
    const graphqlPosts = () => calls.filter((c) => c.path === '/graphql' && c.method === 'POST');
    // Every CSP violation the page reports (the console shows them too, but this names the directive).
    const violations: string[] = [];
    await page.exposeFunction('__reportCspViolation', (v: string) => void violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        void (window as unknown as { __reportCspViolation: (v: string) => Promise<void> }).__reportCspViolation(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sample})`);
      });
    });
    return { context, page, foreign, consoleErrors, calls, graphqlPosts, violations };
  }

  it('first load without credentials: a "paste your key" state, no request to /graphql, no console error, no 404', async () => {
    const { context, page, foreign, consoleErrors, calls, graphqlPosts, violations } = await openPage();
    const loaded = await page.goto(`${server.baseUrl}/graphql`);
    const headers = loaded!.headers();
    expect(headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'sha256-/);
    expect(headers['content-security-policy']).not.toContain('unsafe-eval');
    expect(headers['x-frame-options']).toBe('DENY');
    await page.locator('#svc1-panel').waitFor();
    await expect.poll(async () => page.locator('#svc1-status').innerText()).toMatch(/Paste an API key and secret/);
    await expect(page.locator('#svc1-waiting').innerText()).resolves.toContain('data/demo-credentials.json');
    // Give GraphiQL ample time to have sent its introspection, had it been mounted.
    await page.waitForTimeout(2_000);
    expect(graphqlPosts()).toEqual([]);
    expect(calls.filter((c) => c.status === 401 || c.status === 404)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(foreign).toEqual([]);
    // The /docs page does not make the browser ask for /favicon.ico either.
    const docs = await page.goto(`${server.baseUrl}/docs`);
    expect(docs!.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[^;]*'; img-src data:;/);
    await page.waitForLoadState('load');
    await page.waitForTimeout(500);
    // The reference is styled (its inline style is allowed by hash): the body font is not the browser default.
    expect(await page.evaluate(() => getComputedStyle(document.body).fontFamily)).toContain('system-ui');
    expect(calls.filter((c) => c.status === 404)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(violations).toEqual([]);
    await context.close();
  }, 120_000);

  it('signs introspection and queries with the credentials entered in the panel; the example query stays in front', async () => {
    const { context, page, foreign, consoleErrors, graphqlPosts, violations } = await openPage({ width: 1400, height: 900 });
    await page.goto(`${server.baseUrl}/graphql`);
    await page.locator('#svc1-panel').waitFor();
    await page.fill('#svc1-key', server.approved.apiKey);
    await page.fill('#svc1-secret', server.approved.apiSecret);
    await page.click('#svc1-save');

    // Credentials stay in this tab's sessionStorage unless "remember" is ticked.
    const stored = await page.evaluate(() => ({
      session: sessionStorage.getItem('payment-gateway.svc1.credentials'),
      local: localStorage.getItem('payment-gateway.svc1.credentials'),
    }));
    expect(JSON.parse(stored.session ?? '{}')).toMatchObject({ apiKey: server.approved.apiKey });
    expect(stored.local).toBeNull();

    // Introspection, the first request the page ever sends, is signed and accepted.
    await expect.poll(() => graphqlPosts().some((c) => c.body.includes('__schema') && c.status === 200), { timeout: 30_000 }).toBe(true);
    expect(graphqlPosts()[0]!.body).toContain('__schema');

    // One tab, holding the example query, and Run answers it.
    expect(await page.locator('.graphiql-tab').count()).toBeLessThanOrEqual(1);
    await page.locator('.graphiql-execute-button').click();
    const response = page.locator('.graphiql-response');
    await expect.poll(async () => (await response.innerText()).replace(/\s+/g, ' '), { timeout: 30_000 }).toContain('"code": "qris"');
    let text = (await response.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('"paymentChannels"');
    expect(text).toContain('"status": "ACTIVE"');
    expect(text).toContain('"availability"');
    expect(text).not.toContain('errors');

    const dataCall = graphqlPosts().find((c) => c.body.includes('paymentChannels'));
    expect(dataCall).toMatchObject({ status: 200 });
    expect(graphqlPosts().map((c) => [/^[0-9a-f]{64}$/.test(c.signature ?? ''), c.status])).toEqual(graphqlPosts().map(() => [true, 200]));
    expect(await page.locator('#svc1-status').innerText()).toContain(server.approved.apiKey);
    expect(await page.locator('#svc1-status').innerText()).toMatch(/; the signature of the last one was accepted\.$/);

    // A reload (as a second "Save & sign" does) brings back the example tab, not a new empty one.
    await page.reload();
    await expect.poll(() => graphqlPosts().filter((c) => c.body.includes('__schema')).length, { timeout: 30_000 }).toBeGreaterThan(1);
    expect(await page.locator('.graphiql-tab').count()).toBeLessThanOrEqual(1);
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(async () => (await response.innerText()).replace(/\s+/g, ' '), { timeout: 30_000 }).toContain('"code": "qris"');

    // The README's query ("Exploring in GraphiQL"), typed in and run: its answer is what the screenshot shows.
    const readmeQuery = /### Exploring in GraphiQL[\s\S]*?```graphql\n([\s\S]*?)```/.exec(fs.readFileSync(README, 'utf8'))![1]!.trim();
    await page.locator('.graphiql-query-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    // One line: the editor's auto-indentation would otherwise re-indent the pasted lines.
    await page.keyboard.insertText(readmeQuery.replace(/\s*\n\s*/g, ' '));
    // GraphiQL's own Prettify lays it out again as the README shows it.
    await page.getByRole('button', { name: /prettify/i }).click();
    // Cursor (and view) back to the start of the document, so the picture shows the query from its first line.
    await page.locator('.graphiql-query-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+Home');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(async () => (await response.innerText()).replace(/\s+/g, ' '), { timeout: 30_000 }).toContain('"totalAmount"');
    text = (await response.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('"feeBearer"');
    expect(text).toContain('"reasons"');
    fs.mkdirSync(path.dirname(ARTIFACT), { recursive: true });
    await page.screenshot({ path: ARTIFACT });

    // Nothing so far has logged an error in the console, nor violated the page's policy (editor, workers, signing).
    expect(consoleErrors).toEqual([]);
    expect(violations).toEqual([]);

    // An empty document (what the extra empty tab used to run): the server's syntax error, never a stack trace.
    await page.locator('.graphiql-query-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.locator('.graphiql-execute-button').click();
    await expect.poll(async () => (await response.innerText()).replace(/\s+/g, ' '), { timeout: 30_000 }).toContain('Syntax Error');
    text = await response.innerText();
    expect(text).not.toMatch(/stack|\bat \S+ \(/);
    // The only console line since: the browser noting the 400 that a malformed document gets (contract §4).
    expect(consoleErrors.map((e) => e.replace(/\d{3} \(.*\)/, 'STATUS'))).toEqual(['Failed to load resource: the server responded with a status of STATUS']);
    expect(consoleErrors[0]).toContain('400');
    // The bar says what was accepted (the signature), not that the request was: it failed with 400.
    const bar = page.locator('#svc1-status');
    await expect.poll(async () => bar.innerText(), { timeout: 10_000 }).toContain('but the request failed (400');
    expect(await bar.innerText()).toMatch(/; the signature of the last one was accepted, but the request failed \(400 [A-Z_]+\): see the result\.$/);
    expect(await bar.getAttribute('data-kind')).toBe('warn');
    expect(foreign).toEqual([]);
    await context.close();
  }, 120_000);

  it('a wrong secret turns the bar red with what to check', async () => {
    const { context, page, graphqlPosts } = await openPage();
    await page.goto(`${server.baseUrl}/graphql`);
    await page.locator('#svc1-panel').waitFor();
    await page.fill('#svc1-key', server.approved.apiKey);
    await page.fill('#svc1-secret', 'sk_test_not-the-secret');
    await page.click('#svc1-save');
    await expect.poll(() => graphqlPosts().some((c) => c.status === 401), { timeout: 30_000 }).toBe(true);
    const status = page.locator('#svc1-status');
    await expect.poll(async () => status.innerText(), { timeout: 10_000 }).toContain('SIGNATURE_MISMATCH');
    expect(await status.innerText()).toMatch(/secret is not the secret of pk_test_.*demo-credentials\.json/);
    expect(await status.getAttribute('data-kind')).toBe('error');

    // An unknown key says so instead.
    await page.fill('#svc1-key', 'pk_test_00000000000000000000000000000000');
    await Promise.all([page.waitForEvent('load'), page.click('#svc1-save')]);
    await expect.poll(async () => status.innerText(), { timeout: 30_000 }).toContain('INVALID_API_KEY');
    expect(await status.innerText()).toMatch(/unknown or revoked/);
    await context.close();
  }, 120_000);

  it('another origin cannot frame GraphiQL or /docs (frame-ancestors \'none\', X-Frame-Options: DENY)', async () => {
    const { context, page } = await openPage();
    // A merchant's page (another origin) framing both pages, and, as the control, a frame that may load.
    await page.route('http://merchant.test/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: route.request().url().endsWith('/ok.html')
          ? '<h1>framed fine</h1>'
          : `<iframe src="${server.baseUrl}/graphql"></iframe><iframe src="${server.baseUrl}/docs"></iframe><iframe src="/ok.html"></iframe>`,
      }),
    );
    await page.goto('http://merchant.test/frames.html');
    const frames = () => page.frames().filter((f) => f !== page.mainFrame());
    await expect.poll(() => frames().map((f) => f.url()).sort(), { timeout: 10_000 }).toEqual(['chrome-error://chromewebdata/', 'chrome-error://chromewebdata/', 'http://merchant.test/ok.html']);
    // The control frame shows its page; the gateway's frames show the browser's refusal instead of theirs.
    const control = frames().find((f) => f.url().endsWith('/ok.html'))!;
    expect(await control.locator('h1').innerText()).toBe('framed fine');
    for (const frame of frames().filter((f) => f !== control)) expect(await frame.locator('#svc1-panel, main h1').count()).toBe(0);
    await context.close();
  }, 60_000);
});
