/**
 * TypeScript client SDK for the payment gateway, published as the package
 * `@payment-gateway/client` (packages/client: built ES module + `.d.ts`).
 * Works in Node ≥ 20 and browsers: signing uses WebCrypto
 * (src/client/svc1-web.ts), transport is the standard `fetch`. The signed
 * client (`createClient`) belongs on a server; a browser gets only a checkout
 * session's client secret (`createSessionClient`, ./session.ts).
 *
 * ```ts
 * const client = createClient({ baseUrl: 'http://127.0.0.1:4000', apiKey, apiSecret });
 * const channels = await client.listChannels();
 * const quote = await client.calculateFee({ amount: 150000, currency: 'IDR', method: 'QRIS', merchantId });
 * const data = await client.graphql<{ paymentChannels: { code: string }[] }>('{ paymentChannels { code } }');
 * ```
 *
 * Every failure is a {@link GatewayError} with the contract `code`, the HTTP
 * `status` and the problem details / GraphQL error the server sent.
 */
import { graphqlData, restError } from './errors.js';
import { channelListTarget, instructionsTarget, type Channel, type ChannelListFilter, type CheckoutLocale, type RestChannelGroup, type InstructionsQuery, type PaymentInstructions } from './wire.js';
import { signRequestWeb } from './svc1-web.js';
import { createQuoteVerifier, type VerifiedQuote } from './quotes.js';
import { documentText, type TypedDocument } from './typed-document.js';

export { signRequestWeb, sha256HexWeb, hmacHexWeb, type WebSignInput, type WebSignature } from './svc1-web.js';
export type { ErrorCode } from '../shared/errors.js';
export { GatewayError, type ProblemDetails, type GraphQLErrorPayload } from './errors.js';
export type { Channel, ChannelListFilter, CheckoutLocale, FeeTier, InstructionSection, InstructionsQuery, PaymentInstructions, RestChannelGroup, RestChannelStatus } from './wire.js';
export type { CheckoutTexts, CheckoutTranslations } from './checkout/messages.js';
export { createQuoteVerifier, QUOTE_TYP, type QuoteVerifier, type QuoteVerifierOptions, type VerifiedQuote } from './quotes.js';
export { createSessionClient, type SessionClient, type SessionClientOptions, type SubscriptionHandlers } from './session.js';
export type { DocumentTypeDecoration, TypedDocument } from './typed-document.js';

/** `POST /v1/payments/calculate` request body (seed field names). */
export interface CalculateFeeInput {
  amount: number;
  currency: string;
  /** Channel code, case-insensitive (`"QRIS"`). */
  method: string;
  /** Must be the key's merchant; required by the REST route. */
  merchantId: string;
  /** Default: the channel's `is_fee_charged_to_customer`. */
  chargeFeeToCustomer?: boolean;
  /** true: the answer adds a signed fee quote, `quote` and `quoteExpiresAt` (contract §11). */
  quote?: boolean;
}

/** `POST /v1/payments/calculate` result. */
export interface FeeCalculation {
  amount: number;
  fee: number;
  additionalFee: number;
  totalAmount: number;
  getBalance: number;
  currency: string;
  /** Tax on fee + additionalFee (contract §10; 0 without a tax). */
  feeTax: number;
  /** The customer's part of fee + additionalFee + feeTax (in totalAmount). */
  customerFee: number;
  /** The merchant's part of the same charges (deducted in getBalance). */
  merchantFee: number;
  /** Only when asked for (`quote: true`): the signed fee quote (JWS) and until when it is honoured (ISO 8601). */
  quote?: string;
  quoteExpiresAt?: string;
}

/** `POST /v1/checkout/sessions` request body (contract §9). */
export interface CheckoutSessionInput {
  /** Must be the key's merchant. */
  merchantId: string;
  /** The payment's amount in the currency's major unit. */
  amount: number;
  currency: string;
  /** Channel codes the session may list; default every channel of the merchant. */
  methods?: string[];
  /** Contract §14: only channels of these groups; with `methods`, the channels in both. */
  groups?: RestChannelGroup[];
  /** Lifetime in seconds, 60–86400; default 900. */
  expiresInSeconds?: number;
  /** Contract §12: the shopper's language; the checkout component and the session's names use it by default. */
  locale?: CheckoutLocale;
  /**
   * Your own reference (an order or cart id), signed with the rest and otherwise ignored. Creation is
   * idempotent by the signed request: the same body signed in the same second is the same session, so give
   * each page view's cart its own reference when two may be identical.
   */
  reference?: string;
}

/** The created session (contract §9). `clientSecret` is shown only here: hand it to the browser, never log it. */
export interface CheckoutSession {
  id: string;
  clientSecret: string;
  /** ISO 8601 instant. */
  expiresAt: string;
  amount: number;
  currency: string;
  methods: string[];
  /** The session's language, null when none was given. */
  locale: CheckoutLocale | null;
}

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** e.g. `http://127.0.0.1:4000` (no trailing path). */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** fetch implementation; default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Clock in ms for the timestamp; default `Date.now`. */
  now?: () => number;
  /** This key's merchant: offline quote verification then refuses another merchant's quote (`QUOTE_INVALID`). */
  merchantId?: string;
}

/** The client. */
export interface GatewayClient {
  /** `GET /v1/payments/channel`: the merchant's channels (all statuses; hide non-active ones), narrowed by `filter` (contract §14). */
  listChannels(filter?: ChannelListFilter): Promise<Channel[]>;
  /** `GET /v1/payments/instruction`: how a customer pays with one channel, in one language (contract §14). */
  getInstructions(query: InstructionsQuery): Promise<PaymentInstructions>;
  /** `POST /v1/payments/calculate`. */
  calculateFee(input: CalculateFeeInput): Promise<FeeCalculation>;
  /**
   * `POST /v1/checkout/sessions` (server side only: the call is signed with the API secret). Give the
   * browser the answer's `clientSecret` (see `createSessionClient` and the checkout component).
   */
  createCheckoutSession(input: CheckoutSessionInput): Promise<CheckoutSession>;
  /**
   * Verify a fee quote (contract §11) offline, with the gateway's published keys (fetched once, again for an
   * unknown `kid`): the quoted calculation, or a {@link GatewayError} `QUOTE_INVALID` / `QUOTE_EXPIRED`.
   */
  verifyQuote(token: string): Promise<VerifiedQuote>;
  /** The same check through `POST /v1/payments/quotes/verify` (the gateway also checks the merchant). */
  verifyQuoteOnline(token: string): Promise<VerifiedQuote>;
  /** `POST /graphql`; resolves with `data`, rejects with a {@link GatewayError} when any error is returned. */
  graphql<TData = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, operationName?: string): Promise<TData>;
  /**
   * The same with a typed document (a `TypedDocumentNode`, or graphql-codegen's `TypedDocumentString`):
   * variables and result typed by the document (README, "Typed GraphQL").
   */
  graphql<TResult, TVariables>(document: TypedDocument<TResult, TVariables>, variables?: TVariables, operationName?: string): Promise<TResult>;
  /** Any signed request (body sent exactly as given); the raw Response. */
  request(method: string, target: string, body?: string, headers?: Record<string, string>): Promise<Response>;
}

export function createClient(options: ClientOptions): GatewayClient {
  const { apiKey, apiSecret } = options;
  if (!apiKey || !apiSecret) throw new TypeError('createClient: apiKey and apiSecret are required');
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new TypeError(`createClient: baseUrl is not a URL: ${options.baseUrl}`);
  }
  const origin = base.origin;
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const now = options.now ?? Date.now;

  async function request(method: string, target: string, body?: string, extraHeaders: Record<string, string> = {}): Promise<Response> {
    if (!target.startsWith('/')) throw new TypeError('target must start with "/"');
    const upper = method.toUpperCase();
    const { headers } = await signRequestWeb({ method: upper, target, body, apiKey, apiSecret, timestamp: String(Math.floor(now() / 1000)) });
    const all: Record<string, string> = { accept: 'application/json', ...extraHeaders, ...headers };
    if (body !== undefined && body !== '' && !Object.keys(all).some((k) => k.toLowerCase() === 'content-type')) all['content-type'] = 'application/json';
    return doFetch(`${origin}${target}`, { method: upper, headers: all, body: body === undefined || body === '' ? undefined : body });
  }

  const quotes = createQuoteVerifier({ baseUrl: origin, merchantId: options.merchantId, fetch: doFetch, now });

  return {
    request,
    verifyQuote: (token) => quotes.verifyQuote(token),
    async verifyQuoteOnline(token) {
      const res = await request('POST', '/v1/payments/quotes/verify', JSON.stringify({ quote: token }));
      if (!res.ok) throw await restError(res);
      return (await res.json()) as VerifiedQuote;
    },
    async listChannels(filter) {
      const res = await request('GET', channelListTarget(filter));
      if (!res.ok) throw await restError(res);
      const body = (await res.json()) as { status: number; data: Channel[] };
      return body.data;
    },
    async getInstructions(query) {
      const res = await request('GET', instructionsTarget(query));
      if (!res.ok) throw await restError(res);
      const body = (await res.json()) as { status: number; data: PaymentInstructions['sections']; unfilled: string[] };
      return { sections: body.data, unfilled: body.unfilled };
    },
    async calculateFee(input) {
      const res = await request('POST', '/v1/payments/calculate', JSON.stringify(input));
      if (!res.ok) throw await restError(res);
      return (await res.json()) as FeeCalculation;
    },
    async createCheckoutSession(input) {
      const res = await request('POST', '/v1/checkout/sessions', JSON.stringify(input));
      if (!res.ok) throw await restError(res);
      return (await res.json()) as CheckoutSession;
    },
    async graphql<TData>(document: string | TypedDocument<TData, unknown>, variables?: unknown, operationName?: string): Promise<TData> {
      return graphqlData<TData>(await request('POST', '/graphql', JSON.stringify({ query: documentText(document), variables, operationName })));
    },
  };
}
