/**
 * What a browser (or a balancer) meets first, over real HTTP through the app's Node listener: `GET /` is a
 * small page linking the way in, with the page headers every page has; HEAD answers declare the length GET
 * sends; `/ready` says why in a small JSON body, its status unchanged. /docs at 375 px in a browser:
 * test/e2e/docs-mobile-chromium.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspHash, inlineElementsOf } from '../../src/shared/security-headers.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ transport: 'node' });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('GET /', () => {
  it('is a small page linking GraphiQL, /docs, the OpenAPI document, the checkout example and /health', async () => {
    const res = await t.fetch('/', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    for (const href of ['/graphql', '/docs', '/v1/openapi.json', '/checkout/v1/checkout.js', 'http://127.0.0.1:4100/', '/health', '/ready']) expect(html).toContain(`href="${href}"`);
    expect(html).toContain('npm run example:checkout');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html.length).toBeLessThan(4000);
    // Nothing loaded from elsewhere, no script.
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<(link|img)[^>]+(src|href)=["']https?:/i);
  });

  it('carries the headers of the other pages: nosniff, not framed, its style by hash and nothing else runs', async () => {
    const res = await t.fetch('/');
    const policy = res.headers.get('content-security-policy')!;
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    const { styles } = inlineElementsOf(await res.text());
    expect(styles).toHaveLength(1);
    expect(policy).toContain(`style-src ${cspHash(styles[0]!)}`);
    expect(policy).not.toContain('script-src');
    // The /docs page has the same header set.
    const docs = await t.fetch('/docs');
    for (const h of ['x-content-type-options', 'x-frame-options']) expect(res.headers.get(h), h).toBe(docs.headers.get(h));
  });

  it('is exact: other unknown paths are still 404 problems, and POST / is refused', async () => {
    expect((await t.fetch('/nope')).status).toBe(404);
    expect((await t.fetch('//')).status).toBe(404);
    expect((await t.fetch('/', { method: 'POST', body: 'x' })).status).toBe(405);
  });
});

describe('HEAD answers carry the length GET sends', () => {
  it.each(['/', '/docs', '/v1/openapi.json', '/favicon.ico', '/images/channels/qris.svg', '/checkout/v1/checkout.js', '/.well-known/jwks.json'])('%s', async (path) => {
    const get = await t.fetch(path);
    expect(get.status).toBe(200);
    const bytes = new Uint8Array(await get.arrayBuffer()).byteLength;
    expect(bytes).toBeGreaterThan(0);
    const head = await t.fetch(path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('/metrics (its text grows between two requests: the length is of the text at that moment)', async () => {
    const head = await t.fetch('/metrics', { method: 'HEAD' });
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
  });
});

describe('/ready says why', () => {
  it('200 {"ready":true} while ready, as JSON that is not cached', async () => {
    const res = await t.fetch('/ready');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ ready: true });
  });

  it('503 with the reason once a shutdown begins', async () => {
    const draining = await createTestApp({ transport: 'node' });
    try {
      draining.app.beginShutdown();
      const res = await draining.fetch('/ready');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ ready: false, reason: 'shutting down' });
    } finally {
      await draining.close();
    }
  }, 60_000);
});
