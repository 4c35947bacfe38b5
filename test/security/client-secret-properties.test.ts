/**
 * Checkout session client secrets (contract §9), property-based: any single-byte change to an authentic
 * client secret is refused (SESSION_INVALID), at the codec for every byte value and over the real pipeline
 * for the characters a header can carry; the length bound holds before any decoding.
 */
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClientSecretCodec, ClientSecretError, MAX_CLIENT_SECRET_LENGTH, newSessionId, type SessionClaims } from '../../src/modules/auth/client-secret.js';
import { createTestApp, UNREACHABLE_RATE_LIMIT, type TestApp } from '../helpers/app.js';

vi.setConfig({ testTimeout: 60_000 });

const codec = new ClientSecretCodec(randomBytes(32));
const claims = (methods: string[]): SessionClaims => ({
  id: newSessionId(),
  merchantId: '3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13',
  apiKeyId: `pk_test_${randomBytes(16).toString('hex')}`,
  amount: '150000.5',
  currency: 'IDR',
  methods,
  expiresAt: 1_900_000_000,
});

/** `secret` with the character at `at` replaced by the byte `value` (a different one). */
function changed(secret: string, at: number, value: number): string {
  return secret.slice(0, at) + String.fromCharCode(value) + secret.slice(at + 1);
}

describe('client secret codec', () => {
  it('verifies what it issued, claims intact', () => {
    const c = claims(['qris', 'ovo']);
    expect(codec.verify(codec.issue(c))).toEqual(c);
  });

  it('refuses every single-byte change, at every position, for every other byte value', () => {
    const secret = codec.issue(claims(['qris', 'ovo', 'bca_va']));
    let refused = 0;
    for (let at = 0; at < secret.length; at++) {
      for (let value = 0; value < 256; value++) {
        if (value === secret.charCodeAt(at)) continue;
        expect(() => codec.verify(changed(secret, at, value)), `position ${at}, byte ${value}`).toThrow(ClientSecretError);
        refused++;
      }
    }
    expect(refused).toBe(secret.length * 255);
  });

  it('refuses truncations, extensions and secrets of another key', () => {
    const secret = codec.issue(claims(['qris']));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: secret.length - 1 }), (n) => {
        expect(() => codec.verify(secret.slice(0, n))).toThrow(ClientSecretError);
      }),
    );
    expect(() => codec.verify(`${secret}A`)).toThrow(ClientSecretError);
    expect(() => new ClientSecretCodec(randomBytes(32)).verify(secret)).toThrow(ClientSecretError);
  });

  it(`refuses more than ${MAX_CLIENT_SECRET_LENGTH} characters before decoding, and never issues one that long`, () => {
    expect(() => codec.verify('x'.repeat(MAX_CLIENT_SECRET_LENGTH + 1))).toThrow('too long');
    const many = Array.from({ length: 200 }, (_, i) => `channel_code_${i}`);
    expect(() => codec.issue(claims(many))).toThrow(RangeError);
  });
});

describe('over the pipeline', () => {
  let t: TestApp;
  let secret: string;
  beforeAll(async () => {
    t = await createTestApp({ app: { rateLimit: UNREACHABLE_RATE_LIMIT } });
    const res = await t.signedFetch('/v1/checkout/sessions', { method: 'POST', body: JSON.stringify({ amount: 150000, currency: 'IDR' }) });
    secret = ((await res.json()) as { clientSecret: string }).clientSecret;
  });
  afterAll(() => t.close());

  it('the authentic secret lists; any single printable-character change → 401 SESSION_INVALID', async () => {
    expect((await t.fetch('/v1/payments/channel', { headers: { Authorization: `Bearer ${secret}` } })).status).toBe(200);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: secret.length - 1 }), fc.integer({ min: 0x20, max: 0x7e }), async (at, value) => {
        fc.pre(value !== secret.charCodeAt(at));
        const res = await t.fetch('/v1/payments/channel', { headers: { Authorization: `Bearer ${changed(secret, at, value)}` } });
        expect(res.status).toBe(401);
        expect(((await res.json()) as { code: string }).code).toBe('SESSION_INVALID');
      }),
      { numRuns: 150 },
    );
  });
});
