/**
 * How to reproduce, against a test app, every example documented in the
 * OpenAPI document (keyed "<path> <status> <exampleName>"). The OpenAPI test
 * fails when an example has no recipe, so every example is checked live.
 */
import { signatureHeaders } from '../../src/modules/auth/svc1.js';
import type { TestApp } from './app.js';

export type Recipe = (t: TestApp) => Promise<Response>;

const calc = (t: TestApp, body: Record<string, unknown>, as = t.approved) =>
  t.signedFetch('/v1/payments/calculate', { method: 'POST', body: JSON.stringify({ merchantId: as.merchantId, ...body }), as });

export const RECIPES: Record<string, Recipe> = {
  '/v1/payments/channel 200 channels': (t) => t.signedFetch('/v1/payments/channel'),
  '/v1/payments/instruction 200 bcaVa': (t) => t.signedFetch('/v1/payments/instruction?code=bca_va&locale=id&pay_code=3901081234567890&amount=150000'),
  '/v1/payments/instruction 400 payCodeWithMarkup': (t) => t.signedFetch('/v1/payments/instruction?code=bca_va&pay_code=%3Cb%3E'),
  '/v1/payments/channel 200 microMerchant': (t) => t.signedFetch('/v1/payments/channel', { as: t.data.seeded!.find((m) => m.category === 'micro')! }),
  '/v1/payments/channel 401 headerMissing': (t) => t.fetch('/v1/payments/channel'),
  '/v1/payments/channel 401 timestampInMilliseconds': (t) => t.signedFetch('/v1/payments/channel', { timestamp: String(t.clock.now) }),
  '/v1/payments/channel 401 signatureMismatch': (t) => t.signedFetch('/v1/payments/channel', { as: { ...t.approved, apiSecret: 'sk_test_wrong' } }),
  '/v1/payments/channel 401 invalidApiKey': (t) => t.signedFetch('/v1/payments/channel', { as: { ...t.approved, apiKey: 'pk_test_unknown' } }),
  '/v1/payments/channel 405 methodNotAllowed': (t) => t.signedFetch('/v1/payments/channel', { method: 'POST', body: '{}' }),
  '/v1/payments/calculate 200 seedSample': (t) => calc(t, { amount: 150000, currency: 'IDR', method: 'QRIS', chargeFeeToCustomer: true }),
  '/v1/payments/calculate 200 merchantPaysFee': (t) => calc(t, { amount: 250000, currency: 'IDR', method: 'credit_card', chargeFeeToCustomer: false }),
  '/v1/payments/calculate 400 missingField': (t) =>
    t.signedFetch('/v1/payments/calculate', { method: 'POST', body: JSON.stringify({ currency: 'IDR', method: 'QRIS', merchantId: t.approved.merchantId }) }),
  '/v1/payments/calculate 401 timestampExpired': (t) =>
    t.signedFetch('/v1/payments/calculate', { method: 'POST', body: '{}', timestamp: String(Math.floor(t.clock.now / 1000) - 3600) }),
  '/v1/payments/calculate 403 kycRequired': (t) => calc(t, { amount: 150000, currency: 'IDR', method: 'QRIS' }, t.pending),
  '/v1/payments/calculate 403 merchantMismatch': (t) => calc(t, { amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: t.pending.merchantId }),
  '/v1/payments/calculate 404 channelNotFound': (t) => calc(t, { amount: 150000, currency: 'IDR', method: 'bitcoin' }),
  '/v1/payments/calculate 409 channelUnavailable': (t) => calc(t, { amount: 150000, currency: 'IDR', method: 'mandiri_va' }),
  '/v1/payments/calculate 415 notJson': (t) => {
    const body = 'amount=150000';
    const headers = signatureHeaders(t.approved.apiKey, t.approved.apiSecret, { method: 'POST', target: '/v1/payments/calculate', body, timestamp: String(Math.floor(t.clock.now / 1000)) });
    return t.fetch('/v1/payments/calculate', { method: 'POST', body, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
  },
  '/v1/payments/calculate 422 amountOutOfRange': (t) => calc(t, { amount: 500, currency: 'IDR', method: 'QRIS' }),
  '/v1/payments/calculate 422 unsupportedCurrency': (t) => calc(t, { amount: 150000, currency: 'USD', method: 'QRIS' }),
};

/** Members whose values legitimately differ between runs (compared by presence only). */
export const VOLATILE = new Set(['requestId', 'serverTime', 'stringToSignSha256', 'signCommand', 'id']);
