import { describe, expect, it } from 'vitest';
import { sign } from '../../src/modules/auth/svc1.js';
import { signRequestWeb } from '../../src/client/svc1-web.js';
import { SVC1_VECTORS, VECTOR_KEY, VECTOR_SECRET, VECTOR_TIMESTAMP } from '../helpers/svc1-vectors.js';

const KEY = VECTOR_KEY;
const SECRET = VECTOR_SECRET;
const TS = VECTOR_TIMESTAMP;

describe('WebCrypto SVC1 signer (SDK and GraphiQL page)', () => {
  it.each(SVC1_VECTORS)('reproduces the contract vector %s %s', async (method, target, body, expected) => {
    const signed = await signRequestWeb({ method, target, body, apiKey: KEY, apiSecret: SECRET, timestamp: TS });
    expect(signed.signature).toBe(expected);
    expect(signed.headers).toEqual({ 'X-SERVICE-API-Key': KEY, 'X-SERVICE-Timestamp': TS, 'X-SERVICE-Signature': expected });
    // Same bytes as a Uint8Array give the same signature.
    const bytes = await signRequestWeb({ method, target, body: new TextEncoder().encode(body), apiKey: KEY, apiSecret: SECRET, timestamp: TS });
    expect(bytes.signature).toBe(expected);
  });

  it('agrees with the node:crypto signer on non-ASCII bodies and secrets', async () => {
    const body = '{"note":"kopi ☕ – Rp 15.000"}';
    const secret = 'sk_test_ünïcode';
    const web = await signRequestWeb({ method: 'post', target: '/graphql?x=1', body, apiKey: KEY, apiSecret: secret, timestamp: TS });
    expect(web.signature).toBe(sign(secret, { method: 'POST', target: '/graphql?x=1', body, apiKey: KEY, timestamp: TS }));
  });
});
