/**
 * ResponseHeaders (src/pipeline/responses.ts): the headers object of every response the service builds itself.
 * It must behave as fetch's `Headers` does for everything the pipeline and the transport use, and become the
 * ponyfill Response's own `headers` (the reason it exists: no dictionary-mode object per response).
 */
// The Response Yoga's pipeline builds (the fetch ponyfill), as @whatwg-node/server re-exports it.
import { Response as PonyfillResponse } from '@whatwg-node/server';
import { describe, expect, it } from 'vitest';
import { ResponseHeaders, responseHeaders } from '../../src/pipeline/responses.js';

describe('ResponseHeaders', () => {
  it('is case-insensitive, keeps insertion order, and never modifies its init', () => {
    const init = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
    const h = new ResponseHeaders(init);
    h.set('ETag', '"x"');
    h.append('vary', 'Accept');
    h.append('Vary', 'Origin');
    h.delete('CACHE-CONTROL');
    expect(h.get('content-type')).toBe('application/json');
    expect(h.get('etag')).toBe('"x"');
    expect(h.has('Etag')).toBe(true);
    expect(h.get('cache-control')).toBeNull();
    expect(h.has('cache-control')).toBe(false);
    expect([...h]).toEqual([
      ['content-type', 'application/json'],
      ['etag', '"x"'],
      ['vary', 'Accept, Origin'],
    ]);
    const seen: string[] = [];
    h.forEach((v, k) => seen.push(`${k}=${v}`));
    expect(seen).toEqual(['content-type=application/json', 'etag="x"', 'vary=Accept, Origin']);
    expect(init).toEqual({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  });

  it('agrees with fetch Headers on the same operations', () => {
    const ops = (h: Pick<Headers, 'set' | 'append' | 'delete'>) => {
      h.set('X-Request-Id', 'r1');
      h.append('x-a', '1');
      h.append('X-A', '2');
      h.set('x-request-id', 'r2');
      h.delete('x-missing');
    };
    const ours = new ResponseHeaders({ 'Content-Type': 'text/plain' });
    const std = new Headers({ 'Content-Type': 'text/plain' });
    ops(ours);
    ops(std);
    expect(Object.fromEntries(ours)).toEqual(Object.fromEntries(std));
  });

  it('becomes the ponyfill Response headers object, which adds the body length to it', async () => {
    const headers = responseHeaders({ 'Content-Type': 'application/json; charset=utf-8' });
    const response = new PonyfillResponse(Buffer.from('{"a":1}'), { status: 200, headers });
    expect(response.headers).toBe(headers);
    expect(response.headers.get('content-length')).toBe('7');
    response.headers.set('ETag', '"e"');
    expect(headers.get('etag')).toBe('"e"');
    expect(await response.text()).toBe('{"a":1}');
  });
});
