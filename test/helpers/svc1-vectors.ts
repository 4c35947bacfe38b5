/** The SVC1 test vectors of the contract (docs/API.md §3), in one place for every signer's tests. */
export const VECTOR_KEY = 'pk_test_4f9a1c2e7b5d3a6c';
export const VECTOR_SECRET = 'sk_test_9xQeWvG816bUx9EPjHmaT23yvVMZbrpp';
export const VECTOR_TIMESTAMP = '1767225600';

/** [method, target, body, expected signature]. */
export const SVC1_VECTORS: [method: string, target: string, body: string, signature: string][] = [
  ['GET', '/v1/payments/channel', '', '72c8d3db46601f4144c285d92cdb3ed8ed63ddb8545f9043f0f8de29cd874f78'],
  [
    'POST',
    '/v1/payments/calculate',
    '{"amount":150000,"currency":"IDR","method":"QRIS","merchantId":"3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13","chargeFeeToCustomer":true}',
    '6e35f8b4343a767e00588addb31506ece6dd6030a98d6cc46c796d45a4d1e4dd',
  ],
  ['POST', '/graphql', '{"query":"{ paymentChannels { code status } }"}', 'e88d025a3f04a90cd42c59ba0fc4e022ad0bc6fba0186b34e5933f6a5b2cf66a'],
];
