import { describe, expect, it } from 'vitest';
import { sign } from '../../src/auth/svc1.js';
import { signRequestWeb } from '../../src/client/svc1-web.js';

const KEY = 'pk_test_4f9a1c2e7b5d3a6c';
const SECRET = 'sk_test_9xQeWvG816bUx9EPjHmaT23yvVMZbrpp';
const TS = '1767225600';

describe('WebCrypto SVC1 signer (SDK and GraphiQL page)', () => {
  it.each([
    ['GET', '/v1/payments/channel', '', '72c8d3db46601f4144c285d92cdb3ed8ed63ddb8545f9043f0f8de29cd874f78'],
    [
      'POST',
      '/v1/payments/calculate',
      '{"amount":150000,"currency":"IDR","method":"QRIS","merchantId":"3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13","chargeFeeToCustomer":true}',
      '6e35f8b4343a767e00588addb31506ece6dd6030a98d6cc46c796d45a4d1e4dd',
    ],
    ['POST', '/graphql', '{"query":"{ paymentChannels { code status } }"}', 'e88d025a3f04a90cd42c59ba0fc4e022ad0bc6fba0186b34e5933f6a5b2cf66a'],
  ])('reproduces the contract vector %s %s', async (method, target, body, expected) => {
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
