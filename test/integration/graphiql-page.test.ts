/**
 * The GraphiQL page as served: public (no signature), rendered once,
 * compressed (brotli, gzip) with `Vary`, a strong `ETag` (304 on a match)
 * and a public cache lifetime; its icon inline (no /favicon.ico request).
 * In-process against a temp DB; the browser behaviour is in
 * test/e2e/graphiql-chromium.test.ts.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedQuality } from '../../src/modules/docs/graphiql-page.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  // In-process on purpose: these tests inspect the compressed bytes, which fetch over HTTP (undici) would
  // decode before the test sees them. The browser's view over HTTP is test/e2e/graphiql-chromium.test.ts.
  t = await createTestApp({ transport: 'in-process' });
});
afterAll(() => t.close());

const page = (headers: Record<string, string>) => t.fetch('/graphql', { headers: { Accept: 'text/html', ...headers } });
const bytes = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('GraphiQL page', () => {
  it('is served brotli- or gzip-compressed by Accept-Encoding, identical once decoded, with Vary, ETag and Cache-Control', async () => {
    const plain = await page({ 'Accept-Encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    const html = await bytes(plain);
    expect(html.toString('utf8')).toContain('id="svc1-panel"');
    expect(html.toString('utf8')).toContain('window.__SVC1_GRAPHIQL__.boot(');

    const br = await page({ 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    expect(br.headers.get('content-encoding')).toBe('br');
    const brBytes = await bytes(br);
    expect(brBytes.length).toBeLessThan(html.length / 3);
    expect(zlib.brotliDecompressSync(brBytes).equals(html)).toBe(true);

    const gz = await page({ 'Accept-Encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(zlib.gunzipSync(await bytes(gz)).equals(html)).toBe(true);

    for (const res of [plain, br, gz]) {
      expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      expect(res.headers.get('etag')).toBe(plain.headers.get('etag'));
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
  }, 60_000);

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await page({ 'Accept-Encoding': 'br' });
    const etag = first.headers.get('etag')!;
    const again = await page({ 'Accept-Encoding': 'br', 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await bytes(again)).length).toBe(0);
    expect((await page({ 'If-None-Match': '"something-else"' })).status).toBe(200);
  }, 60_000);

  it('carries its icon inline, small (no /favicon.ico request from the browser)', async () => {
    const html = (await bytes(await page({}))).toString('utf8');
    expect(html).toMatch(/<link rel="icon" href="data:image\/svg\+xml,/);
    expect(html).not.toContain('data:image/x-icon');
    const docs = await (await t.fetch('/docs')).text();
    expect(docs).toMatch(/<link rel="icon" href="data:image\/svg\+xml,/);
  }, 60_000);

  it('/favicon.ico is served too (public, the same icon), so a direct request is no 404', async () => {
    const res = await t.fetch('/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toMatch(/^<svg [^>]*>.*Rp.*<\/svg>$/);
  });

  it('a non-HTML GET of /graphql is still an API request that needs a signature', async () => {
    const res = await t.fetch('/graphql?query=%7B__typename%7D', { headers: { Accept: 'application/json' } });
    expect(res.status).toBe(401);
  });
});

describe('Accept-Encoding q-values', () => {
  it.each([
    [null, 'br', 0],
    [null, 'identity', 1],
    ['br;q=0, gzip', 'br', 0],
    ['br;q=0, gzip', 'gzip', 1],
    ['*;q=0.5', 'br', 0.5],
    ['gzip', 'identity', 1],
    ['identity;q=0', 'identity', 0],
    ['*;q=0', 'identity', 0],
  ] as const)('%s → %s q=%s', (header, coding, q) => {
    expect(acceptedQuality(header, coding)).toBe(q);
  });
});
