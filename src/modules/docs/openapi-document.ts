/**
 * The OpenAPI 3.1 description of the legacy REST routes (`/v1/payments/*`),
 * served at `GET /v1/openapi.json` and rendered at `/docs`.
 *
 * Statuses come from the one code → status table (src/shared/errors.ts); each
 * route lists the codes it can return. Every example is checked against the
 * live server by test/integration/openapi.test.ts, so examples here are real
 * responses (ids and request ids aside).
 */
import { z } from 'zod';
import { ERROR_STATUS, titleOf, type ErrorCode } from '../../shared/errors.js';
import { REST_ROUTES, type RestRouteDef } from '../../shared/routes.js';
import { SIGNATURE_MISMATCH_HINT } from '../auth/svc1.js';
import { CHANNEL_GROUPS } from '../../shared/vocabulary.js';

const listRoute = restRoute('listChannels');
const instructionsRoute = restRoute('channelInstructions');

/** A GET route's query parameters, from the route table. */
function queryParameters(route: RestRouteDef): Json[] {
  return (route.query ?? []).map((q) => ({ name: q.name, in: 'query', required: q.required ?? false, description: q.description, schema: q.schema }));
}
const calculateRoute = restRoute('calculateFee');
const createSessionRoute = restRoute('createCheckoutSession');
const verifyQuoteRoute = restRoute('verifyQuote');

function restRoute(name: RestRouteDef['name']): RestRouteDef {
  const route = REST_ROUTES.find((r) => r.name === name);
  if (!route) throw new Error(`no REST route ${name}`);
  return route;
}

/** The JSON Schema of a route's body, generated from the schema the REST adapter validates with. */
function bodySchema(route: RestRouteDef): Json {
  if (!route.body) throw new Error(`${route.path} takes no body`);
  const { $schema: _dialect, ...schema } = z.toJSONSchema(route.body, { io: 'input' });
  return schema;
}

const CODE_MEANING: Record<ErrorCode, string> = {
  AUTH_HEADER_MISSING: 'one of the three X-SERVICE-* headers is absent or empty',
  TIMESTAMP_INVALID: 'timestamp is not decimal seconds (13 digits: "seconds, not milliseconds")',
  TIMESTAMP_EXPIRED: 'timestamp outside the allowed skew (±300 s by default); includes `serverTime`',
  SIGNATURE_MALFORMED: 'signature is not 64 hex characters',
  INVALID_API_KEY: 'unknown or revoked key',
  SIGNATURE_MISMATCH: 'HMAC does not match; for `pk_test_` keys includes `stringToSignSha256`, `bodySha256`, `bodyBytes` (what was received) and the `signCommand` that recomputes them from the bytes you signed',
  MERCHANT_MISMATCH: '`merchantId` is not the key\'s merchant',
  KYC_REQUIRED: 'the channel requires approved KYC and the merchant\'s is not approved',
  INVALID_REQUEST: 'malformed JSON, missing/mistyped field or bad value; names the `field`',
  CHANNEL_NOT_FOUND: '`method` names no channel enabled for this merchant',
  CHANNEL_UNAVAILABLE: 'the channel is `offline` or `maintenance`',
  UNSUPPORTED_CURRENCY: 'the channel does not settle in that currency',
  AMOUNT_OUT_OF_RANGE: 'amount outside the channel\'s min/max; includes `min`, `max`',
  PAYLOAD_TOO_LARGE: 'body over the configured limit (default 100 KiB)',
  UNSUPPORTED_MEDIA_TYPE: 'POST body that is not JSON',
  NOT_FOUND: 'unknown route',
  METHOD_NOT_ALLOWED: 'wrong HTTP method for the route; `Allow` header',
  RATE_LIMITED: 'per-key rate limit exceeded; `Retry-After` header',
  SERVICE_UNAVAILABLE: 'the database cannot be reached',
  INTERNAL_ERROR: 'anything unexpected (masked; quote the requestId)',
  SESSION_INVALID: 'checkout session client secret malformed, unknown, forged, or its API key revoked',
  SESSION_EXPIRED: 'checkout session past its `expiresAt`',
  SESSION_SCOPE: 'outside the checkout session: another amount, currency or method, a mutation, quote verification, or a route sessions may not call',
  ORIGIN_NOT_ALLOWED: 'the `Origin` is not an allowed web origin of the session\'s merchant (admin CLI `merchant origins add`)',
  QUOTE_INVALID: 'not a fee quote of this gateway for this merchant: malformed, not its one canonical text (unpadded base64url, no spare bits), bad signature, unknown key, or another merchant\'s quote; `detail` says which in plain words',
  QUOTE_EXPIRED: 'a genuine quote past its `expiresAt`; ask for a new one',
};

type Json = Record<string, unknown>;

const problem = (code: ErrorCode, detail: string, extra: Json = {}): Json => ({
  ...extra,
  type: 'about:blank',
  title: titleOf(code),
  status: ERROR_STATUS[code],
  code,
  detail,
  requestId: '9d34ba20-6a41-4382-b25d-beae662a3afc',
});

/** The demo QRIS channel as a regular merchant sees it (shared by the list examples). */
const QRIS_EXAMPLE = {
  id: 'bd6189fa-2e83-4929-b41a-245e485e93a2',
  name: 'QRIS',
  code: 'qris',
  image_url: '/images/channels/qris.svg',
  status: 'active',
  is_fee_charged_to_customer: true,
  fee_info: { fee_percentage: 0.7, fee_value: 0, min_transactions: 1000, max_transactions: 10000000, minimum_fee: null, maximum_fee: null, tax_percentage: 0, customer_share: 100 },
  currency: 'IDR',
  group: 'qris',
};

/** Error examples per route and status (names are reproduced live by the test suite). */
const ERROR_EXAMPLES: Record<string, Record<number, Record<string, { summary: string; value: Json }>>> = {
  '/v1/payments/channel': {
    401: {
      headerMissing: {
        summary: 'No SVC1 headers',
        value: problem('AUTH_HEADER_MISSING', 'Missing authentication header(s): X-SERVICE-API-Key, X-SERVICE-Timestamp, X-SERVICE-Signature.', {
          headers: 'X-SERVICE-API-Key, X-SERVICE-Timestamp, X-SERVICE-Signature',
        }),
      },
      timestampInMilliseconds: {
        summary: 'Date.now() sent instead of seconds',
        value: problem('TIMESTAMP_INVALID', 'X-SERVICE-Timestamp looks like milliseconds; send Unix time in seconds, not milliseconds.', { hint: 'seconds, not milliseconds' }),
      },
      invalidApiKey: { summary: 'Unknown or revoked key', value: problem('INVALID_API_KEY', 'Unknown or revoked API key.') },
      signatureMismatch: {
        summary: 'Wrong secret or string to sign (test key: debugging hashes included)',
        value: problem('SIGNATURE_MISMATCH', 'The signature does not match the request: a line of the string to sign (method, target, timestamp, key, body SHA-256) or the secret differs from what the server used.', {
          stringToSignSha256: '1e5f796f1d4f65398bd297bc1fbcdcf075db2125f3c2a7239deb92b809522818',
          bodySha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
          bodyBytes: 0,
          signCommand: 'npm run --silent sign -- GET /v1/payments/channel --timestamp 1767225600 --key pk_test_4f9a1c2e7b5d3a6c --secret YOUR_SECRET',
          hint: SIGNATURE_MISMATCH_HINT,
        }),
      },
    },
    405: {
      methodNotAllowed: { summary: 'POST to the list', value: problem('METHOD_NOT_ALLOWED', '/v1/payments/channel accepts GET only.', { allow: 'GET' }) },
    },
  },
  '/v1/payments/instruction': {
    400: { payCodeWithMarkup: { summary: 'pay_code with markup', value: problem('INVALID_REQUEST', 'payCode must be 1 to 64 characters of letters, digits and "-".', { field: 'pay_code' }) } },
  },
  '/v1/payments/calculate': {
    400: { missingField: { summary: 'amount missing', value: problem('INVALID_REQUEST', 'amount is required.', { field: 'amount' }) } },
    401: {
      timestampExpired: {
        summary: 'Timestamp an hour old',
        value: problem('TIMESTAMP_EXPIRED', 'X-SERVICE-Timestamp is more than 300 s away from the server clock.', { serverTime: 1767225600, maxSkewSeconds: 300 }),
      },
    },
    403: {
      kycRequired: { summary: 'QRIS for a merchant whose KYC is pending', value: problem('KYC_REQUIRED', 'Channel "qris" requires approved KYC; this merchant\'s KYC is pending.', { kycStatus: 'pending' }) },
      merchantMismatch: { summary: "Another merchant's id", value: problem('MERCHANT_MISMATCH', 'merchantId is not the merchant of the API key used.', { field: 'merchantId' }) },
    },
    404: { channelNotFound: { summary: 'Unknown method', value: problem('CHANNEL_NOT_FOUND', 'No channel "bitcoin" is enabled for this merchant. Enabled: qris, bca_va, bni_va, bri_va, mandiri_va, permata_va, ovo, dana, shopeepay, alfamart, indomaret, credit_card.', { field: 'method' }) } },
    409: { channelUnavailable: { summary: 'Channel in maintenance', value: problem('CHANNEL_UNAVAILABLE', 'Channel "mandiri_va" is under maintenance.', { channelStatus: 'maintenance' }) } },
    415: {
      notJson: {
        summary: 'Form-encoded body',
        value: problem('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json).', { contentType: 'application/x-www-form-urlencoded' }),
      },
    },
    422: {
      amountOutOfRange: { summary: 'Below the channel minimum', value: problem('AMOUNT_OUT_OF_RANGE', 'amount must be between 1000 and 10000000 IDR for "qris".', { field: 'amount', min: 1000, max: 10000000 }) },
      unsupportedCurrency: { summary: 'USD on an IDR channel', value: problem('UNSUPPORTED_CURRENCY', 'Channel "qris" settles in IDR, not USD.', { field: 'currency', supported: 'IDR' }) },
    },
  },
};

const HEADER_DOC = {
  'X-Request-Id': { description: 'Request id (also in error bodies); send your own to correlate logs.', schema: { type: 'string' } },
};

/** The error responses of a route, grouped by status, from the codes the route table lists for it. */
function errorResponses(route: RestRouteDef): Json {
  const path = route.path;
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of route.errorCodes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const out: Json = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples = ERROR_EXAMPLES[path]?.[status];
    const headers: Json = { ...HEADER_DOC };
    if (codes.includes('RATE_LIMITED')) headers['Retry-After'] = { description: 'Seconds to wait.', schema: { type: 'integer' } };
    if (codes.includes('METHOD_NOT_ALLOWED')) headers.Allow = { description: 'The accepted method.', schema: { type: 'string' } };
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${CODE_MEANING[c]}`).join('; '),
      headers,
      content: {
        'application/problem+json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { status: { const: status }, code: { enum: codes } } }],
          },
          ...(examples ? { examples } : {}),
        },
      },
    };
  }
  return out;
}

const FEE_INFO = {
  type: 'object',
  description: 'Fee settings and limits for this merchant (overrides applied), in the currency major unit. The fee is that of the first band of the pricing rule in force (see `fee_tiers`).',
  required: ['fee_percentage', 'fee_value', 'min_transactions', 'max_transactions'],
  properties: {
    fee_percentage: { type: 'number', description: 'Percent of the amount: 0.7 means 0.7 %.' },
    fee_value: { type: 'number', description: 'Fixed part of the fee.' },
    min_transactions: { type: 'number', description: 'Smallest accepted amount (inclusive).' },
    max_transactions: { type: 'number', description: 'Largest accepted amount (inclusive).' },
    minimum_fee: { type: ['number', 'null'], description: 'Additive (contract §10): the fee is raised to this, null when the rule sets no minimum.' },
    maximum_fee: { type: ['number', 'null'], description: 'Additive: the fee is lowered to this, null when the rule sets no maximum.' },
    tax_percentage: { type: 'number', description: 'Additive: tax on fee + additional fee, percent (0 without a tax).' },
    customer_share: { type: 'number', minimum: 0, maximum: 100, description: 'Additive: percent of the charges the customer pays by default (`is_fee_charged_to_customer` is true exactly at 100).' },
  },
};

/** Build the document (cheap; callers keep the result). */
export function buildOpenApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment Fee & Channel Gateway — legacy REST API',
      version: '1.0.0',
      description: [
        'The `/v1` REST routes. Every request is signed with **SVC1**: send `X-SERVICE-API-Key`, `X-SERVICE-Timestamp`',
        '(Unix seconds) and `X-SERVICE-Signature` = hex(HMAC-SHA256(secret, stringToSign)), where stringToSign is five lines',
        'joined by `\\n` (no trailing newline): METHOD, the request target exactly as sent (path + `?query`), the timestamp,',
        'the API key, and the lowercase hex SHA-256 of the raw body bytes (empty body: `e3b0c442…b855`). Accepted clock skew ±300 s.',
        'All operations are read-only, so a replay inside the window has no effect.',
        '',
        'Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`.',
        'Debug a signature with `npm run sign -- METHOD TARGET [BODY]`. The same data is available over GraphQL at `/graphql`.',
      ].join('\n'),
    },
    servers: [{ url: '/', description: 'This server' }],
    security: [{ SVC1ApiKey: [], SVC1Timestamp: [], SVC1Signature: [] }],
    tags: [
      { name: 'payments', description: 'Payment channels and fee calculation.' },
      { name: 'checkout', description: 'Checkout sessions (contract §9): short-lived client secrets for browsers and apps, created by the merchant server.' },
    ],
    paths: {
      [listRoute.path]: {
        get: {
          operationId: listRoute.name,
          tags: ['payments'],
          // SVC1, or a checkout session's client secret (contract §9).
          security: [{ SVC1ApiKey: [], SVC1Timestamp: [], SVC1Signature: [] }, { CheckoutSession: [] }],
          summary: 'List the payment channels of the authenticated merchant',
          description:
            'All statuses are listed (hide `offline`/`maintenance` ones at checkout). Channels requiring approved KYC are left out for a merchant whose KYC is not approved. ' +
            'Responses carry an `ETag` and `Cache-Control: private, no-cache`; send `If-None-Match` to get `304 Not Modified` (after signature verification).',
          parameters: [
            ...queryParameters(listRoute),
            { name: 'If-None-Match', in: 'header', required: false, description: 'ETag of a list you hold.', schema: { type: 'string' } },
          ],
          responses: {
            '200': {
              description: 'The channel list (envelope `status` mirrors the HTTP status).',
              headers: {
                ...HEADER_DOC,
                ETag: { description: 'Strong validator of this merchant\'s list; changes with any data change.', schema: { type: 'string' } },
                'Cache-Control': { description: '`private, no-cache`.', schema: { type: 'string' } },
              },
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/ChannelList' },
                  examples: {
                    channels: {
                      summary: 'Demo merchant (two of its channels shown)',
                      value: {
                        status: 200,
                        data: [
                          QRIS_EXAMPLE,
                          {
                            id: '0c6f8a1e-4d1b-4f7e-9a53-2b8f6c1d9e70',
                            name: 'Mandiri Virtual Account',
                            code: 'mandiri_va',
                            image_url: '/images/channels/mandiri_va.svg',
                            status: 'maintenance',
                            is_fee_charged_to_customer: true,
                            fee_info: { fee_percentage: 0, fee_value: 4000, min_transactions: 10000, max_transactions: 50000000, minimum_fee: null, maximum_fee: null, tax_percentage: 0, customer_share: 100 },
                            currency: 'IDR',
                            group: 'virtual_account',
                          },
                        ],
                      },
                    },
                    microMerchant: {
                      summary: 'A micro merchant on a banded QRIS rule (free up to 500,000, 0.3 % above): fee_tiers present (its QRIS entry shown)',
                      value: {
                        status: 200,
                        data: [
                          {
                            ...QRIS_EXAMPLE,
                            fee_info: { ...QRIS_EXAMPLE.fee_info, fee_percentage: 0, maximum_fee: 5000 },
                            fee_tiers: [
                              { up_to: 500000, fee_percentage: 0, fee_value: 0 },
                              { up_to: null, fee_percentage: 0.3, fee_value: 0 },
                            ],
                          },
                        ],
                      },
                    },
                  },
                },
              },
            },
            '304': { description: 'Not modified: `If-None-Match` matched the current ETag.', headers: { ...HEADER_DOC, ETag: { schema: { type: 'string' } } } },
            ...errorResponses(listRoute),
          },
        },
      },
      [instructionsRoute.path]: {
        get: {
          operationId: instructionsRoute.name,
          tags: ['payments'],
          security: [{ SVC1ApiKey: [], SVC1Timestamp: [], SVC1Signature: [] }, { CheckoutSession: [] }],
          summary: 'How a customer pays with one channel (payment instructions, contract §14)',
          description:
            'Ordered sections (ATM, mobile banking, internet banking, the app, the cashier, the QR code) of plain-text steps, in Indonesian (`id`, default) or English. ' +
            'The placeholders `{{pay_code}}`, `{{amount}}`, `{{merchant_name}}` and `{{expires_at}}` are filled from the query (the merchant name always); those without a value ' +
            'stay in the text as written and are listed in `unfilled`. Amounts are written as Indonesians read them (`Rp 150.000`, both languages), times in the language and ' +
            '`Asia/Jakarta` unless `time_zone` names another IANA zone. Render the steps as text, never as HTML. A checkout session reads its own channels only, with its ' +
            'own amount (what its customer pays on the channel, fee included), expiry and locale by default. The query string is part of the signed target.',
          parameters: queryParameters(instructionsRoute),
          responses: {
            '200': {
              description: 'The instructions: sections as `data`, the placeholders left unfilled beside them.',
              headers: HEADER_DOC,
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/InstructionList' },
                  examples: {
                    bcaVa: {
                      summary: 'BCA Virtual Account in Indonesian with pay_code and amount (first section shown)',
                      value: {
                        status: 200,
                        data: [
                          {
                            key: 'atm',
                            title: 'ATM BCA',
                            steps: [
                              'Masukkan kartu ATM BCA dan PIN Anda.',
                              'Pilih menu Transaksi Lainnya, lalu Transfer, lalu ke Rekening BCA Virtual Account.',
                              'Masukkan nomor Virtual Account 3901081234567890, lalu pilih Benar.',
                              'Pastikan nama penerima Toko Kopi Nusantara dan jumlah tagihan Rp 150.000 sudah sesuai, lalu konfirmasi.',
                              'Ambil struk sebagai bukti pembayaran.',
                              'Bayar sebelum {{expires_at}}; setelah itu nomor Virtual Account tidak berlaku lagi.',
                            ],
                          },
                        ],
                        unfilled: ['expires_at'],
                      },
                    },
                  },
                },
              },
            },
            ...errorResponses(instructionsRoute),
          },
        },
      },
      [calculateRoute.path]: {
        post: {
          operationId: calculateRoute.name,
          tags: ['payments'],
          summary: 'Calculate the fee and totals of a payment',
          description:
            'fee = round_half_up(amount × fee_percentage / 100) + fee_value, with the percentage and fixed part of the band of the rule in force that contains the amount ' +
            '(a banded rule, see `fee_tiers`, prices the WHOLE amount with one band); additionalFee likewise from the channel settings. With the fee charged to the customer: ' +
            'totalAmount = amount + fee + additionalFee, getBalance = amount; otherwise totalAmount = amount, getBalance = amount − fee − additionalFee. ' +
            'Rounding is half-up to the currency minor unit (IDR: 0 decimals), per percentage part. Sign the exact body bytes you send.',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/CalculateRequest' },
                examples: {
                  seedSample: {
                    summary: 'QRIS, fee charged to the customer (the seed sample)',
                    value: { amount: 150000, currency: 'IDR', method: 'QRIS', merchantId: '3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13', chargeFeeToCustomer: true },
                  },
                  merchantPaysFee: {
                    summary: 'Credit card with an additional fee, merchant absorbs the fees',
                    value: { amount: 250000, currency: 'IDR', method: 'credit_card', merchantId: '3f1c9a52-7d4e-4b8a-9c61-2e5f0d7a8b13', chargeFeeToCustomer: false },
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'The priced payment (flat object, no envelope).',
              headers: HEADER_DOC,
              content: {
                'application/json': {
                  schema: { $ref: '#/components/schemas/FeeCalculation' },
                  examples: {
                    seedSample: { summary: 'Customer pays the fee', value: { amount: 150000, fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR', feeTax: 0, customerFee: 1050, merchantFee: 0 } },
                    merchantPaysFee: {
                      summary: 'Merchant absorbs fee (2.9 % + 2000) and additional fee (1000)',
                      value: { amount: 250000, fee: 9250, additionalFee: 1000, totalAmount: 250000, getBalance: 239750, currency: 'IDR', feeTax: 0, customerFee: 0, merchantFee: 10250 },
                    },
                  },
                },
              },
            },
            ...errorResponses(calculateRoute),
          },
        },
      },
      [verifyQuoteRoute.path]: {
        post: {
          operationId: verifyQuoteRoute.name,
          tags: ['payments'],
          summary: 'Verify a fee quote and get the calculation it states',
          description:
            'Contract §11. `200` with the quoted calculation (the calculate fields plus `method`, `chargeFeeToCustomer`, `ruleId`, `quoteId`, `issuedAt`, `expiresAt`), whatever the pricing is now: ' +
            'charge what the quote says. `422 QUOTE_INVALID`: malformed, not the token\'s one canonical text, bad signature, unknown key, or another merchant\'s quote; `422 QUOTE_EXPIRED`: a genuine quote past `expiresAt`; ' +
            '`403 MERCHANT_MISMATCH`: `merchantId` (optional) names another merchant. A checkout session may not call it (`403 SESSION_SCOPE`). Each verification costs 1 work unit of the key\'s budget. ' +
            'The same check works offline with any JOSE library and the keys at `/.well-known/jwks.json`.',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/VerifyQuoteRequest' } } },
          },
          responses: {
            '200': {
              description: 'The quoted calculation (flat object, no envelope).',
              headers: HEADER_DOC,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/VerifiedQuote' } } },
            },
            ...errorResponses(verifyQuoteRoute),
          },
        },
      },
      [createSessionRoute.path]: {
        post: {
          operationId: createSessionRoute.name,
          tags: ['checkout'],
          summary: 'Create a checkout session for a browser or app',
          description:
            'Called by the merchant server (SVC1-signed). The answer\'s `clientSecret` is shown only here: hand it to the browser, which sends ' +
            '`Authorization: Bearer <clientSecret>` on `POST /graphql` (queries and the `paymentChannelsChanged` subscription) and `GET /v1/payments/channel`. ' +
            'The session acts for this merchant only, read-only: channel lists are judged against its amount and currency and hold only its methods; ' +
            'fees only for its amount and currency (else `403 SESSION_SCOPE`). After `expiresAt`: `401 SESSION_EXPIRED`; revoking the creating API key ends it. ' +
            'Browsers: the page\'s origin must be an allowed origin of the merchant (admin CLI `merchant origins add`), else `403 ORIGIN_NOT_ALLOWED`. ' +
            'Limits per session: 20 requests/s (burst 40), 2 open event streams.',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/CreateCheckoutSessionRequest' } } } },
          responses: {
            '201': {
              description: 'The session and its client secret (flat object, no envelope).',
              headers: HEADER_DOC,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/CheckoutSession' } } },
            },
            ...errorResponses(createSessionRoute),
          },
        },
      },
    },
    components: {
      securitySchemes: {
        CheckoutSession: {
          type: 'http',
          scheme: 'bearer',
          description: 'A checkout session\'s client secret (`cs_…_secret_…`), instead of the SVC1 headers, on `GET /v1/payments/channel` and `/graphql` only (contract §9).',
        },
        SVC1ApiKey: { type: 'apiKey', in: 'header', name: 'X-SERVICE-API-Key', description: 'The API key id, e.g. `pk_test_…` / `pk_live_…`.' },
        SVC1Timestamp: { type: 'apiKey', in: 'header', name: 'X-SERVICE-Timestamp', description: 'Unix time in seconds, decimal digits only.' },
        SVC1Signature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SERVICE-Signature',
          description: '64 hex characters: hex(HMAC-SHA256(utf8(secret), METHOD\\nTARGET\\nTIMESTAMP\\nAPI_KEY\\nhex(sha256(body)))).',
        },
      },
      schemas: {
        Channel: {
          type: 'object',
          description: 'A payment channel as configured for the merchant (seed field names; more fields may be added).',
          required: ['id', 'name', 'code', 'image_url', 'status', 'is_fee_charged_to_customer', 'fee_info'],
          properties: {
            id: { type: 'string', format: 'uuid' },
            name: { type: 'string', description: 'Display name.' },
            code: { type: 'string', description: 'Method code (lower case); `method` in calculate matches it case-insensitively.' },
            image_url: { type: 'string', description: 'Path of the channel image, served by this service.' },
            status: { type: 'string', enum: ['active', 'offline', 'maintenance'], description: 'Only `active` channels are selectable.' },
            is_fee_charged_to_customer: { type: 'boolean', description: 'Default fee bearer.' },
            fee_info: FEE_INFO,
            currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'Additive field: ISO 4217 code the channel settles in.' },
            group: {
              type: 'string',
              enum: [...CHANNEL_GROUPS],
              description: "Additive field (contract §12): the group a checkout shows the channel under. The list is in the merchant's channel order.",
            },
            fee_tiers: {
              type: 'array',
              minItems: 2,
              description:
                'Additive field, present only when the pricing rule in force for this merchant has more than one amount band: the bands in ascending order. ' +
                'The band whose `up_to` is the first ≥ the amount prices the whole amount; `fee_info.fee_percentage`/`fee_value` are those of the first band.',
              items: {
                type: 'object',
                required: ['up_to', 'fee_percentage', 'fee_value'],
                properties: {
                  up_to: { type: ['number', 'null'], description: 'Inclusive upper bound of the band (major unit); null for the last band.' },
                  fee_percentage: { type: 'number', description: 'Percentage part in percent.' },
                  fee_value: { type: 'number', description: 'Fixed part.' },
                },
              },
            },
          },
        },
        ChannelList: {
          type: 'object',
          required: ['status', 'data'],
          properties: { status: { type: 'integer', const: 200 }, data: { type: 'array', items: { $ref: '#/components/schemas/Channel' } } },
        },
        InstructionList: {
          type: 'object',
          required: ['status', 'data', 'unfilled'],
          properties: {
            status: { type: 'integer', const: 200 },
            data: {
              type: 'array',
              maxItems: 8,
              items: {
                type: 'object',
                required: ['key', 'title', 'steps'],
                properties: {
                  key: { type: 'string', description: '`atm`, `mobile_banking`, `internet_banking`, `app`, `counter`, `qr`, `card`, …' },
                  title: { type: 'string' },
                  steps: { type: 'array', maxItems: 15, items: { type: 'string', description: 'Plain text (render as text).' } },
                },
              },
            },
            unfilled: { type: 'array', items: { type: 'string', enum: ['pay_code', 'amount', 'merchant_name', 'expires_at'] }, description: 'Placeholders still in the text.' },
          },
        },
        CalculateRequest: bodySchema(calculateRoute),
        CreateCheckoutSessionRequest: bodySchema(createSessionRoute),
        CheckoutSession: {
          type: 'object',
          required: ['id', 'clientSecret', 'expiresAt', 'amount', 'currency', 'methods'],
          additionalProperties: false,
          properties: {
            id: { type: 'string', pattern: '^cs_[0-9a-f]{32}$', description: 'Session id (safe to log).' },
            clientSecret: { type: 'string', maxLength: 1024, description: 'Opaque; `<id>_secret_<…>`. Never log it in full.' },
            expiresAt: { type: 'string', format: 'date-time' },
            amount: { type: 'number' },
            currency: { type: 'string' },
            methods: { type: 'array', items: { type: 'string' }, description: 'Lower-case channel codes.' },
            locale: { type: ['string', 'null'], enum: ['id', 'en', null], description: "Contract §12: the session's language; null when none was given." },
          },
        },
        FeeCalculation: {
          type: 'object',
          required: ['amount', 'fee', 'additionalFee', 'totalAmount', 'getBalance', 'currency', 'feeTax', 'customerFee', 'merchantFee'],
          additionalProperties: false,
          properties: {
            amount: { type: 'number' },
            fee: { type: 'number' },
            additionalFee: { type: 'number' },
            totalAmount: { type: 'number', description: 'What the customer pays.' },
            getBalance: { type: 'number', description: 'What the merchant receives.' },
            currency: { type: 'string' },
            feeTax: { type: 'number', description: 'Additive (contract §10): tax on fee + additionalFee; 0 without a tax.' },
            customerFee: { type: 'number', description: 'Additive: the customer\'s part of fee + additionalFee + feeTax (in totalAmount).' },
            merchantFee: { type: 'number', description: 'Additive: the merchant\'s part (deducted in getBalance); customerFee + merchantFee = fee + additionalFee + feeTax.' },
            quote: { type: 'string', description: 'Only with `"quote": true` (contract §11): a signed fee quote, JWS compact (EdDSA/Ed25519, `typ` fee-quote+jwt), verifiable with the keys at `/.well-known/jwks.json`.' },
            quoteExpiresAt: { type: 'string', format: 'date-time', description: 'Only with `"quote": true`: until when the gateway honours the quote (QUOTE_TTL_SECONDS, default 900 s).' },
          },
        },
        VerifyQuoteRequest: bodySchema(verifyQuoteRoute),
        VerifiedQuote: {
          type: 'object',
          required: ['amount', 'fee', 'additionalFee', 'totalAmount', 'getBalance', 'currency', 'feeTax', 'customerFee', 'merchantFee', 'method', 'chargeFeeToCustomer', 'ruleId', 'quoteId', 'merchantId', 'issuedAt', 'expiresAt'],
          additionalProperties: false,
          properties: {
            amount: { type: 'number' },
            fee: { type: 'number' },
            additionalFee: { type: 'number' },
            totalAmount: { type: 'number', description: 'What the customer was quoted to pay.' },
            getBalance: { type: 'number', description: 'What the merchant receives.' },
            currency: { type: 'string' },
            feeTax: { type: 'number' },
            customerFee: { type: 'number' },
            merchantFee: { type: 'number' },
            method: { type: 'string', description: 'Channel code that priced it.' },
            chargeFeeToCustomer: { type: 'boolean', description: 'True when the customer bears all the charges.' },
            ruleId: { type: 'string', description: 'The pricing rule that priced it.' },
            quoteId: { type: 'string', description: '`qt_…` (the JWT `jti`): use it to accept each quote once.' },
            merchantId: { type: 'string' },
            issuedAt: { type: 'string', format: 'date-time' },
            expiresAt: { type: 'string', format: 'date-time' },
          },
        },
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details. Extra members depend on the code.',
          required: ['type', 'title', 'status', 'code', 'detail', 'requestId'],
          properties: {
            type: { type: 'string', const: 'about:blank' },
            title: { type: 'string' },
            status: { type: 'integer', description: 'The HTTP status.' },
            code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
            detail: { type: 'string' },
            requestId: { type: 'string' },
            field: { type: 'string', description: 'The offending request field.' },
            min: { type: 'number' },
            max: { type: 'number' },
            serverTime: { type: 'integer', description: 'Server Unix time (TIMESTAMP_EXPIRED).' },
            maxSkewSeconds: { type: 'integer' },
            hint: { type: 'string' },
            stringToSignSha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Test keys only (SIGNATURE_MISMATCH): SHA-256 of the server\'s string to sign.' },
            bodySha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Test keys only (SIGNATURE_MISMATCH): SHA-256 of the body bytes received.' },
            bodyBytes: { type: 'integer', minimum: 0, description: 'Test keys only (SIGNATURE_MISMATCH): length in bytes of the body received; compare with the bytes your code signed.' },
            signCommand: { type: 'string', description: 'Test keys only (SIGNATURE_MISMATCH): the `npm run sign` command that recomputes both hashes for this request (same method, target, timestamp and key).' },
          },
        },
      },
    },
  };
}
