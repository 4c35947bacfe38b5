import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_BODY_SHA256, hmacBytes, sha256Hex, sign, signatureMatches, stringToSign, type SignedParts } from '../../src/modules/auth/svc1.js';
import { SVC1_VECTORS, VECTOR_KEY, VECTOR_SECRET, VECTOR_TIMESTAMP } from '../helpers/svc1-vectors.js';

const KEY = VECTOR_KEY;
const SECRET = VECTOR_SECRET;
const TS = VECTOR_TIMESTAMP;

describe('SVC1 contract test vectors (CONTRACT §3)', () => {
  it.each(SVC1_VECTORS)('%s %s', (method, target, body, expected) => {
    expect(sign(SECRET, { method, target, timestamp: TS, apiKey: KEY, body })).toBe(expected);
  });

  it('hashes the empty body as e3b0…b855 and joins five lines without a trailing newline', () => {
    expect(sha256Hex('')).toBe(EMPTY_BODY_SHA256);
    const s = stringToSign({ method: 'get', target: '/x?a=1', timestamp: TS, apiKey: KEY });
    expect(s).toBe(`GET\n/x?a=1\n${TS}\n${KEY}\n${EMPTY_BODY_SHA256}`);
  });
});

describe('signatureMatches', () => {
  const expected = hmacBytes(SECRET, 'x');
  it('accepts upper- and lower-case hex of the right bytes', () => {
    expect(signatureMatches(expected.toString('hex'), expected)).toBe(true);
    expect(signatureMatches(expected.toString('hex').toUpperCase(), expected)).toBe(true);
  });
  it('rejects malformed hex without throwing (Buffer.from would silently truncate)', () => {
    const hex = expected.toString('hex');
    for (const bad of ['', hex.slice(0, 63), `${hex}0`, `${hex.slice(0, 62)}zz`, `${hex.slice(0, 63)} `]) {
      expect(signatureMatches(bad, expected)).toBe(false);
    }
  });
});

describe('SVC1 properties', () => {
  const parts = fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
    target: fc.webPath().map((p) => `/${p.replace(/^\/+/, '')}`),
    timestamp: fc.integer({ min: 1, max: 99_999_999_999 }).map(String),
    apiKey: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\n')),
    body: fc.uint8Array({ maxLength: 256 }),
  });
  const secret = fc.string({ minLength: 1, maxLength: 64 });

  it('sign-then-verify always passes', () => {
    fc.assert(
      fc.property(parts, secret, (p, s) => {
        const sig = sign(s, p);
        return signatureMatches(sig, hmacBytes(s, stringToSign(p)));
      }),
    );
  });

  it('any single change of method, target, timestamp, key or one body byte fails', () => {
    const mutations: ((p: SignedParts) => SignedParts)[] = [
      (p) => ({ ...p, method: p.method === 'GET' ? 'POST' : 'GET' }),
      (p) => ({ ...p, target: `${p.target}x` }),
      (p) => ({ ...p, timestamp: String(Number(p.timestamp) + 1) }),
      (p) => ({ ...p, apiKey: `${p.apiKey}k` }),
    ];
    fc.assert(
      fc.property(parts, secret, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.nat({ max: 3 }), (p, s, idx, flip, which) => {
        const sig = sign(s, p);
        const body = p.body as Uint8Array;
        const mutated =
          body.length > 0 && idx % 5 === 4
            ? { ...p, body: body.map((b, i) => (i === idx % body.length ? b ^ flip : b)) }
            : mutations[which]!(p);
        return !signatureMatches(sig, hmacBytes(s, stringToSign(mutated)));
      }),
    );
  });
});
