/**
 * The one place that reads the fetch ponyfill's internals (docs/DEPENDENCIES.md): the in-memory body of a
 * `@whatwg-node/node-fetch` Response, read the way `@whatwg-node/server`'s own `sendNodeResponse` reads it.
 * Why: an answer whose bytes are already in memory is written with one `end()` and a Content-Length instead
 * of being streamed (chunked, two socket writes per answer). If an upgrade changes the layout, this answers
 * null and every response is streamed: still correct, only slower; test/unit/dependency-internals.test.ts
 * fails then, naming this file.
 */

/** The ponyfill Response's own fields. */
interface PonyfillInternals {
  bodyType?: string;
  bodyInit?: unknown;
  _buffer?: Buffer;
}

const EMPTY = Buffer.alloc(0);

/** The whole body of a ponyfill Response built from a string, bytes or nothing; null for anything else. */
export function ponyfillBodyBytes(response: Response): Buffer | null {
  const p = response as unknown as PonyfillInternals;
  if (p._buffer !== undefined) return p._buffer;
  if (!('bodyInit' in p)) return null;
  if (p.bodyInit == null) return EMPTY;
  if (p.bodyType === 'String' && typeof p.bodyInit === 'string') return Buffer.from(p.bodyInit, 'utf8');
  if (Buffer.isBuffer(p.bodyInit)) return p.bodyInit;
  return null;
}
