/**
 * The TypeScript SDK against a real server started like `npm start`.
 *
 * One pass (npm test): the SDK is its subject, not the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createSessionClient, GatewayError, type GatewayClient } from '../../src/client/index.js';
import { startRealServer, type RealServer } from '../helpers/real-server.js';

let server: RealServer;
let client: GatewayClient;
beforeAll(async () => {
  server = await startRealServer();
  client = createClient({ baseUrl: server.baseUrl, apiKey: server.approved.apiKey, apiSecret: server.approved.apiSecret });
});
afterAll(() => server?.stop());

describe('SDK over a real server', () => {
  it('lists channels (REST) with the seed field names', async () => {
    const channels = await client.listChannels();
    const qris = channels.find((c) => c.code === 'qris')!;
    expect(qris).toMatchObject({ name: 'QRIS', status: 'active', is_fee_charged_to_customer: true, fee_info: { fee_percentage: 0.7, fee_value: 0 } });
  });

  it('lists the channels of one order and reads a channel’s instructions (contract §14), signed and with a session', async () => {
    expect((await client.listChannels({ group: ['virtual_account'], exclude: ['permata_va'] })).map((c) => c.code)).toEqual(['bca_va', 'bni_va', 'bri_va', 'mandiri_va']);
    expect((await client.listChannels({ code: ['OVO', 'dana'] })).map((c) => c.code)).toEqual(['ovo', 'dana']);
    const signed = await client.getInstructions({ code: 'bca_va', locale: 'en', payCode: '3901081234567890', amount: 150000, expiresAt: '2026-11-27T11:41:58Z' });
    expect(signed.unfilled).toEqual([]);
    expect(signed.sections.map((s) => s.key)).toEqual(['atm', 'mobile_banking', 'internet_banking']);
    expect(signed.sections[0]!.steps.join('\n')).toContain('Rp 150.000');
    const error = await client.getInstructions({ code: 'bca_va', payCode: '<b>' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    const session = await client.createCheckoutSession({ merchantId: server.approved.merchantId, amount: 150000, currency: 'IDR', methods: ['bca_va'], locale: 'id' });
    const browser = createSessionClient({ baseUrl: server.baseUrl, clientSecret: session.clientSecret });
    const own = await browser.getInstructions({ code: 'bca_va', payCode: '123' });
    expect(own.sections[0]!.title).toBe('ATM BCA');
    expect(own.sections[0]!.steps.join('\n')).toContain('Rp 154.000');
    expect((await browser.listChannels({ group: ['virtual_account'] })).map((c) => c.code)).toEqual(['bca_va']);
    browser.dispose();
  });

  it('calculates the seed sample (REST)', async () => {
    const fee = await client.calculateFee({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: server.approved.merchantId, chargeFeeToCustomer: true });
    expect(fee).toEqual({ amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0 });
  });

  it('runs GraphQL with typed data, equal to REST', async () => {
    const data = await client.graphql<{ paymentChannels: { code: string; status: string }[] }>('{ paymentChannels { code status } }');
    const rest = await client.listChannels();
    expect(data.paymentChannels.map((c) => c.code)).toEqual(rest.map((c) => c.code));
    expect(data.paymentChannels.map((c) => c.status.toLowerCase())).toEqual(rest.map((c) => c.status));
  });

  it('throws a typed GatewayError for REST problems', async () => {
    const err = await client
      .calculateFee({ amount: 10, currency: 'IDR', method: 'QRIS', merchantId: server.approved.merchantId })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'AMOUNT_OUT_OF_RANGE', status: 422, problem: { min: 1000, max: 10000000, field: 'amount' } });
    expect((err as GatewayError).requestId).toMatch(/.+/);
  });

  it('throws a typed GatewayError for GraphQL errors, with the contract status', async () => {
    const pendingClient = createClient({ baseUrl: server.baseUrl, apiKey: server.pending.apiKey, apiSecret: server.pending.apiSecret });
    const err = (await pendingClient
      .graphql('query($i: CalculateFeeInput!) { calculateFee(input: $i) { fee } }', { i: { amount: 150000, currency: 'IDR', method: 'QRIS' } })
      .catch((e: unknown) => e)) as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ code: 'KYC_REQUIRED', status: 403 });
  });

  it('a wrong secret is SIGNATURE_MISMATCH (401) with the test-key debugging hashes', async () => {
    const bad = createClient({ baseUrl: server.baseUrl, apiKey: server.approved.apiKey, apiSecret: 'sk_test_wrong' });
    const err = (await bad.listChannels().catch((e: unknown) => e)) as GatewayError;
    expect(err).toMatchObject({ code: 'SIGNATURE_MISMATCH', status: 401 });
    expect(err.problem.bodySha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(err.problem.stringToSignSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the real server publishes /v1/openapi.json and /docs without signature', async () => {
    const doc = await fetch(`${server.baseUrl}/v1/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { openapi: string }).openapi).toBe('3.1.0');
    const html = await fetch(`${server.baseUrl}/docs`);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('<h1>');
  });

  it('revalidates the channel list with ETag through client.request', async () => {
    const first = await client.request('GET', '/v1/payments/channel');
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const again = await client.request('GET', '/v1/payments/channel', undefined, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
  });
});
