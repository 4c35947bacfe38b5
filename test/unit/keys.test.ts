import { describe, expect, it } from 'vitest';
import { generateKey } from '../../src/modules/auth/keys.js';

describe('generateKey', () => {
  it.each(['test', 'live'] as const)('%s: pk_/sk_ prefixes and at least 256 random bits in the secret', (mode) => {
    const keys = Array.from({ length: 500 }, () => generateKey(mode));
    for (const k of keys) {
      expect(k.apiKey).toMatch(new RegExp(`^pk_${mode}_[0-9a-f]{32}$`));
      expect(k.apiSecret).toMatch(new RegExp(`^sk_${mode}_[A-Za-z0-9_-]{43}$`));
      expect(Buffer.from(k.apiSecret.slice(`sk_${mode}_`.length), 'base64url').length).toBeGreaterThanOrEqual(32);
    }
    expect(new Set(keys.map((k) => k.apiKey)).size).toBe(keys.length);
    expect(new Set(keys.map((k) => k.apiSecret)).size).toBe(keys.length);
  });
});
