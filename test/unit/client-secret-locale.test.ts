/**
 * Contract §12: a checkout session's locale is part of the signed client-secret payload (version 2), and a
 * secret without one, as every release before §12 issued it (version 1), stays valid and means "no locale".
 */
import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClientSecretCodec, ClientSecretError, newSessionId, type SessionClaims } from '../../src/modules/auth/client-secret.js';

const key = randomBytes(32);
const codec = new ClientSecretCodec(key);
const base: Omit<SessionClaims, 'id'> = { merchantId: 'm-1', apiKeyId: 'pk_test_1', amount: '150000', currency: 'IDR', methods: ['qris', 'ovo'], expiresAt: 1_900_000_000 };

/** A version-1 secret built byte by byte as the pre-§12 code wrote it (no locale field). */
function legacySecret(id: string): string {
  const text = (s: string) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)]);
  const expires = Buffer.alloc(4);
  expires.writeUInt32BE(base.expiresAt);
  const payload = Buffer.concat([
    Buffer.from([1]),
    expires,
    text(base.merchantId),
    text(base.apiKeyId),
    text(base.amount),
    text(base.currency),
    Buffer.from([base.methods.length]),
    ...base.methods.map(text),
  ]);
  const mac = createHmac('sha256', key).update(`cs1\n${id}\n`, 'utf8').update(payload).digest();
  return `${id}_secret_${Buffer.concat([payload, mac]).toString('base64url')}`;
}

describe('client secret with a locale', () => {
  it('round-trips the locale', () => {
    const claims = { ...base, id: newSessionId(), locale: 'id' };
    expect(codec.verify(codec.issue(claims))).toEqual(claims);
  });

  it('a secret without a locale is byte for byte the pre-§12 format, and an old secret verifies with no locale', () => {
    const id = newSessionId();
    expect(codec.issue({ ...base, id })).toBe(legacySecret(id));
    const claims = codec.verify(legacySecret(id));
    expect(claims).toEqual({ ...base, id });
    expect('locale' in claims).toBe(false);
  });

  it('the locale is under the MAC: changing it in the payload is refused', () => {
    const id = newSessionId();
    const secret = codec.issue({ ...base, id, locale: 'en' });
    const raw = Buffer.from(secret.slice(id.length + '_secret_'.length), 'base64url');
    // The locale is the payload's last field, just before the 32-byte MAC: "en" → "id".
    const at = raw.length - 32 - 2;
    expect(raw.subarray(at, at + 2).toString()).toBe('en');
    raw.write('id', at);
    expect(() => codec.verify(`${id}_secret_${raw.toString('base64url')}`)).toThrow(ClientSecretError);
  });
});
