/**
 * The drop-in checkout component's module as the gateway serves it (`/checkout/v1/checkout.js`): public,
 * JavaScript, loadable cross-origin as a module script (CORS `*`, CORP cross-origin), cacheable with a strong
 * ETag (304), self-contained (graphql-sse bundled: no bare import, no CDN) and free of the constructs a strict
 * CSP refuses or that build HTML from strings. The browser behaviour is test/e2e/checkout-browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_COMPONENT_PATH } from '../../src/shared/routes.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('the checkout component module', () => {
  it('is served without a signature as cacheable, cross-origin-loadable JavaScript with a strong ETag', async () => {
    const res = await t.fetch(CHECKOUT_COMPONENT_PATH, { headers: { Origin: 'http://127.0.0.1:4100' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+, immutable$/);
    // Any page may load it ('*'; or the page's origin where the gateway's CORS layer reflects allowed origins).
    expect(['*', 'http://127.0.0.1:4100']).toContain(res.headers.get('access-control-allow-origin'));
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const code = await res.text();
    expect(code).toContain('payment-checkout');

    const again = await t.fetch(CHECKOUT_COMPONENT_PATH, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    const other = await t.fetch(CHECKOUT_COMPONENT_PATH, { headers: { 'If-None-Match': '"something-else"' } });
    expect(other.status).toBe(200);
    expect(await other.text()).toBe(code);
  });

  it('is self-contained and uses no string-to-code or string-to-HTML sink', async () => {
    const code = await (await t.fetch(CHECKOUT_COMPONENT_PATH)).text();
    // Bundled: no import of another module (graphql-sse is inside), so nothing is loaded from elsewhere.
    expect(code).not.toMatch(/\bimport\s*[{*\w]|\bimport\s*\(|\bfrom\s*["']/);
    // graphql-sse's client is in the bundle (its protocol's event names and accept header).
    expect(code).toContain('text/event-stream');
    for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function', "setAttribute(\"style\"", "setAttribute('style'"]) {
      expect(code, sink).not.toContain(sink);
    }
  });

  it('answers another method with 405 and Allow', async () => {
    const res = await t.fetch(CHECKOUT_COMPONENT_PATH, { method: 'POST', body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});
