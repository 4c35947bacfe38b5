/**
 * Every public HTTP route of the service, once: its path, surface, methods, metric label and, for the
 * signed REST routes, the error codes it can answer and the shape of its body. Everything that needs to
 * know the routes derives from this table: REST routing and the answer cache (src/pipeline), the metric
 * route labels, the public paths that need no signature, and the OpenAPI document's paths with their
 * error responses and request schema (src/modules/docs). The REST routes' GraphQL operations and their
 * wire rendering are the pipeline's (src/pipeline/rest-routes.ts), keyed by the route's `name`.
 *
 * A leaf module: the route facts are part of the public API, like the error table beside it.
 */
import { z } from 'zod';
import { AUTH_ERROR_CODES, type ErrorCode } from './errors.js';
import { CHANNEL_GROUPS } from './vocabulary.js';

/** Which surface a request is served by; decides the error format. */
export type Surface = 'graphql' | 'rest' | 'public';

export const GRAPHQL_ENDPOINT = '/graphql';
/** Every path under it is the REST surface: signed first, then routed (an unknown one answers NOT_FOUND). */
export const REST_PREFIX = '/v1/payments';
/** Checkout session creation (contract §9): a signed REST route outside the legacy prefix. */
export const CHECKOUT_SESSIONS_PATH = '/v1/checkout/sessions';
export const METRICS_PATH = '/metrics';
export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PATH = '/docs';
export const FAVICON_PATH = '/favicon.ico';
/** Channel images live under this prefix (`image_url`); public. */
export const IMAGE_PREFIX = '/images/channels/';
/** The drop-in checkout component (one ES module; `v1` is its interface version); public. */
export const CHECKOUT_COMPONENT_PATH = '/checkout/v1/checkout.js';
/** The public keys fee quotes are signed with (contract §11, RFC 7517 JWK Set); public. */
export const JWKS_PATH = '/.well-known/jwks.json';
/** Payment instructions of one channel (contract §14): a signed REST route a checkout session may call. */
export const INSTRUCTIONS_PATH = `${REST_PREFIX}/instruction`;
/** Quote verification (contract §11): a signed REST route. */
export const VERIFY_QUOTE_PATH = `${REST_PREFIX}/quotes/verify`;
export const HEALTH_PATH = '/health';
/** The way in: a small page linking GraphiQL, the reference, the OpenAPI document, the checkout example and /health. An exact path, not a prefix. */
export const HOME_PATH = '/';
export const READY_PATH = '/ready';

/** The seed's calculate request: types only here; values (amount > 0, precision, limits) are judged by the fee service. */
export const calculateRequestBody = z.object({
  amount: z.number().meta({ exclusiveMinimum: 0, description: "Major unit, at most the currency's decimals (IDR: integer)." }),
  currency: z.string().meta({ pattern: '^[A-Za-z]{3}$', description: "ISO 4217; must be the channel's currency." }),
  method: z.string().meta({ minLength: 1, maxLength: 64, description: 'Channel code, case-insensitive (`QRIS`).' }),
  merchantId: z.string().meta({ description: "Must be the API key's merchant." }),
  chargeFeeToCustomer: z.boolean().nullish().meta({ description: "Fee bearer; default: the channel's `is_fee_charged_to_customer`." }),
  quote: z.boolean().nullish().meta({ description: 'true: the answer adds `quote` (a signed fee quote, contract §11) and `quoteExpiresAt`.' }),
});
export type CalculateRequestBody = z.infer<typeof calculateRequestBody>;

/** Contract §9's session creation body: types only here; values are judged by the session service. */
export const createSessionRequestBody = z.object({
  merchantId: z.string().nullish().meta({ description: "Optional; must be the API key's merchant." }),
  amount: z.number().meta({ exclusiveMinimum: 0, description: "Major unit, at most the currency's decimals (IDR: integer)." }),
  currency: z.string().meta({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, a currency this service settles.' }),
  methods: z.array(z.string()).nullish().meta({ description: 'Channel codes (case-insensitive) enabled for the merchant; default: every channel of the merchant.' }),
  groups: z.array(z.enum(CHANNEL_GROUPS)).nullish().meta({ description: 'Contract §14: only channels of these groups (lower case); with `methods`, the intersection.' }),
  expiresInSeconds: z.number().int().nullish().meta({ minimum: 60, maximum: 86400, description: 'Lifetime in seconds, 60–86400 (default 900).' }),
  locale: z.string().nullish().meta({ enum: ['id', 'en'], description: "Contract §12: the shopper's language; the default locale of the session's channel and group names." }),
});
export type CreateSessionRequestBody = z.infer<typeof createSessionRequestBody>;

/** Contract §11's verification body. */
export const verifyQuoteRequestBody = z.object({
  quote: z.string().meta({ minLength: 1, maxLength: 4096, description: 'The token of a fee quote (`quote` of a calculate answer), exactly as received.' }),
  merchantId: z.string().nullish().meta({ description: "Optional; must be the API key's merchant (else 403 MERCHANT_MISMATCH)." }),
});
export type VerifyQuoteRequestBody = z.infer<typeof verifyQuoteRequestBody>;

/** Codes any signed /v1 route can answer (auth, limits, pipeline). */
const COMMON_REST_CODES: readonly ErrorCode[] = [...AUTH_ERROR_CODES, 'METHOD_NOT_ALLOWED', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR'];

/** A signed legacy REST route (contract §2): executed as a prebuilt GraphQL operation named `name`. */
export interface RestRouteDef {
  path: string;
  method: 'GET' | 'POST';
  name: 'listChannels' | 'calculateFee' | 'createCheckoutSession' | 'verifyQuote' | 'channelInstructions';
  /** What it can answer besides its success (contract §4), for the OpenAPI document. */
  errorCodes: readonly ErrorCode[];
  /** The JSON body a POST route takes. */
  body?: typeof calculateRequestBody | typeof createSessionRequestBody | typeof verifyQuoteRequestBody;
  /** Status of a success (200 unless it creates something). */
  successStatus: 200 | 201;
  /** The query parameters a GET route reads (others are ignored), for the OpenAPI document; checked by the REST adapter. */
  query?: readonly RestQueryParam[];
  /** A checkout session (contract §9) may call it with `Authorization: Bearer`. */
  sessionAllowed: boolean;
  /** It creates something: its answer is never kept or replayed. */
  creates: boolean;
}

/** A query parameter of a GET route (contract §14). */
export interface RestQueryParam {
  name: string;
  description: string;
  required?: boolean;
  /** JSON Schema of one value, as the OpenAPI document shows it. */
  schema: Record<string, unknown>;
}

/** Most values a comma-separated list parameter (`code`, `exclude`) may name (contract §14; the channel service says the same). */
export const MAX_LIST_PARAM_VALUES = 50;

const SESSION_CODES: readonly ErrorCode[] = ['SESSION_INVALID', 'SESSION_EXPIRED', 'SESSION_SCOPE', 'ORIGIN_NOT_ALLOWED'];

export const REST_ROUTES: readonly RestRouteDef[] = [
  {
    path: `${REST_PREFIX}/channel`,
    method: 'GET',
    name: 'listChannels',
    errorCodes: [...COMMON_REST_CODES, 'INVALID_REQUEST', ...SESSION_CODES],
    query: [
      { name: 'code', description: `Only these channels: codes separated by commas, case-insensitive, at most ${MAX_LIST_PARAM_VALUES}; an unknown code is INVALID_REQUEST naming \`code\` and the value.`, schema: { type: 'string', example: 'bca_va,bni_va' } },
      { name: 'exclude', description: `Leave out these channels (codes separated by commas, at most ${MAX_LIST_PARAM_VALUES}).`, schema: { type: 'string', example: 'credit_card' } },
      { name: 'group', description: 'Only channels of these groups, separated by commas: qris, virtual_account, ewallet, retail_outlet, card.', schema: { type: 'string', example: 'virtual_account,ewallet' } },
    ],
    successStatus: 200,
    sessionAllowed: true,
    creates: false,
  },
  {
    path: INSTRUCTIONS_PATH,
    method: 'GET',
    name: 'channelInstructions',
    errorCodes: [...COMMON_REST_CODES, 'INVALID_REQUEST', 'CHANNEL_NOT_FOUND', ...SESSION_CODES],
    query: [
      { name: 'code', required: true, description: 'The channel (code, case-insensitive), e.g. `bca_va`.', schema: { type: 'string', example: 'bca_va' } },
      { name: 'locale', description: '`id` (default; a checkout session: its locale) or `en`.', schema: { type: 'string', enum: ['id', 'en'] } },
      { name: 'pay_code', description: 'The virtual account number or pay code filled into `{{pay_code}}`: 1–64 characters of `[A-Za-z0-9-]`.', schema: { type: 'string', pattern: '^[A-Za-z0-9-]{1,64}$', example: '3901081234567890' } },
      { name: 'amount', description: "What the customer pays, major unit (> 0, at most the currency's decimals), written as `Rp 150.000`. A checkout session: its own amount by default, no other.", schema: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', example: '154000' } },
      { name: 'expires_at', description: 'ISO 8601 instant filled into `{{expires_at}}` (a checkout session: its expiry by default).', schema: { type: 'string', example: '2026-11-27T11:41:58Z' } },
      { name: 'time_zone', description: 'IANA time zone `{{expires_at}}` is written in; default `Asia/Jakarta`.', schema: { type: 'string', example: 'Asia/Makassar' } },
    ],
    successStatus: 200,
    sessionAllowed: true,
    creates: false,
  },
  {
    path: `${REST_PREFIX}/calculate`,
    method: 'POST',
    name: 'calculateFee',
    errorCodes: [
      ...COMMON_REST_CODES,
      'INVALID_REQUEST',
      'UNSUPPORTED_MEDIA_TYPE',
      'MERCHANT_MISMATCH',
      'KYC_REQUIRED',
      'CHANNEL_NOT_FOUND',
      'CHANNEL_UNAVAILABLE',
      'UNSUPPORTED_CURRENCY',
      'AMOUNT_OUT_OF_RANGE',
    ],
    body: calculateRequestBody,
    successStatus: 200,
    sessionAllowed: false,
    creates: false,
  },
  {
    path: VERIFY_QUOTE_PATH,
    method: 'POST',
    name: 'verifyQuote',
    errorCodes: [...COMMON_REST_CODES, 'INVALID_REQUEST', 'UNSUPPORTED_MEDIA_TYPE', 'MERCHANT_MISMATCH', 'SESSION_SCOPE', 'QUOTE_INVALID', 'QUOTE_EXPIRED'],
    body: verifyQuoteRequestBody,
    successStatus: 200,
    sessionAllowed: false,
    // Its answer depends on the clock (a quote expires), never on the data version alone: never kept or replayed.
    creates: true,
  },
  {
    path: CHECKOUT_SESSIONS_PATH,
    method: 'POST',
    name: 'createCheckoutSession',
    errorCodes: [...COMMON_REST_CODES, 'INVALID_REQUEST', 'UNSUPPORTED_MEDIA_TYPE', 'MERCHANT_MISMATCH', 'SESSION_SCOPE'],
    body: createSessionRequestBody,
    successStatus: 201,
    sessionAllowed: false,
    creates: true,
  },
];

/** The REST route of an exact path, if any. */
export const REST_ROUTE_BY_PATH: ReadonlyMap<string, RestRouteDef> = new Map(REST_ROUTES.map((r) => [r.path, r]));

/** A route as the pipeline sees it: the path (or path prefix, ending in "/") and the surface it belongs to. */
export interface Route {
  path: string;
  surface: Surface;
}

/**
 * Every route. GraphiQL is the GraphQL endpoint asked for HTML (public); every other request to it is a
 * signed GraphQL operation.
 */
export const ROUTES: readonly Route[] = [
  { path: GRAPHQL_ENDPOINT, surface: 'graphql' },
  ...REST_ROUTES.map((r): Route => ({ path: r.path, surface: 'rest' })),
  { path: HOME_PATH, surface: 'public' },
  { path: HEALTH_PATH, surface: 'public' },
  { path: READY_PATH, surface: 'public' },
  { path: METRICS_PATH, surface: 'public' },
  { path: IMAGE_PREFIX, surface: 'public' },
  { path: OPENAPI_PATH, surface: 'public' },
  { path: DOCS_PATH, surface: 'public' },
  { path: FAVICON_PATH, surface: 'public' },
  { path: CHECKOUT_COMPONENT_PATH, surface: 'public' },
  { path: JWKS_PATH, surface: 'public' },
];

/** Paths (exact, or prefixes ending in "/") that are served without a signature. */
export const PUBLIC_PATHS: readonly string[] = ROUTES.filter((r) => r.surface === 'public').map((r) => r.path);

/** A path ending in "/" names every path under it, except "/" itself (the home page, not every path). */
export function isPrefixPath(path: string): boolean {
  return path.endsWith('/') && path !== HOME_PATH;
}

const EXACT_LABELS = new Set(ROUTES.filter((r) => !isPrefixPath(r.path)).map((r) => r.path));
const PREFIX_LABELS = ROUTES.filter((r) => isPrefixPath(r.path)).map((r) => r.path);

/**
 * The metric label of a request path: the route's path, a prefix route as `<prefix>:file`, anything else
 * `unmatched`. A fixed set, so raw paths never become label values.
 */
export function routeTemplateOf(pathname: string): string {
  if (EXACT_LABELS.has(pathname)) return pathname;
  for (const prefix of PREFIX_LABELS) if (pathname.startsWith(prefix)) return `${prefix}:file`;
  return 'unmatched';
}
