/**
 * TypeScript client SDK for the payment gateway (package export
 * `payment-gateway/client`). Works in Node ≥ 20 and browsers: signing uses
 * WebCrypto (src/client/svc1-web.ts), transport is the standard `fetch`.
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
import { ERROR_STATUS, isErrorCode, titleOf, type ErrorCode } from '../shared/errors.js';
import { signRequestWeb } from './svc1-web.js';

export { signRequestWeb, sha256HexWeb, hmacHexWeb, type WebSignInput, type WebSignature } from './svc1-web.js';
export type { ErrorCode } from '../shared/errors.js';

/** Channel status on the REST surface (lower case, as in the seed). */
export type RestChannelStatus = 'active' | 'offline' | 'maintenance';

/** A channel as `GET /v1/payments/channel` returns it (seed field names). */
export interface Channel {
  id: string;
  name: string;
  code: string;
  image_url: string;
  status: RestChannelStatus;
  is_fee_charged_to_customer: boolean;
  fee_info: { fee_percentage: number; fee_value: number; min_transactions: number; max_transactions: number };
  /** Additive field: ISO 4217 code the channel settles in. */
  currency: string;
  /**
   * Additive field (contract §7), present only when the pricing rule in force
   * has more than one amount band: the bands, ascending. The band whose
   * `up_to` is the first ≥ the amount prices the whole amount; `fee_info`
   * carries the first band.
   */
  fee_tiers?: FeeTier[];
}

/** One amount band of a banded pricing rule (`Channel.fee_tiers`). */
export interface FeeTier {
  /** Inclusive upper bound in the major unit; null for the last band. */
  up_to: number | null;
  fee_percentage: number;
  fee_value: number;
}

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
}

/** RFC 9457 problem details as the service sends them. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  requestId?: string;
  [member: string]: unknown;
}

/** One GraphQL error as the service sends it. */
export interface GraphQLErrorPayload {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; requestId?: string; [k: string]: unknown };
}

/** A failed call: contract code, HTTP status (or the code's contract status for GraphQL field errors) and details. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  constructor(
    /** Contract error code, e.g. `SIGNATURE_MISMATCH` (`INTERNAL_ERROR` when the server sent none). */
    readonly code: ErrorCode,
    /** HTTP status of the response; for GraphQL errors in a 200 response, the code's contract status. */
    readonly status: number,
    message: string,
    /** The problem details (REST) or the first error's extensions plus message (GraphQL). */
    readonly problem: ProblemDetails,
    /** Request id from `X-Request-Id`, to quote to support. */
    readonly requestId: string | undefined,
    /** For GraphQL: every error and whatever partial data came with them. */
    readonly graphql?: { errors: GraphQLErrorPayload[]; data: unknown },
  ) {
    super(message);
  }
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
}

/** The client. */
export interface GatewayClient {
  /** `GET /v1/payments/channel`: the merchant's channels (all statuses; hide non-active ones). */
  listChannels(): Promise<Channel[]>;
  /** `POST /v1/payments/calculate`. */
  calculateFee(input: CalculateFeeInput): Promise<FeeCalculation>;
  /** `POST /graphql`; resolves with `data`, rejects with a {@link GatewayError} when any error is returned. */
  graphql<TData = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, operationName?: string): Promise<TData>;
  /** Any signed request (body sent exactly as given); the raw Response. */
  request(method: string, target: string, body?: string, headers?: Record<string, string>): Promise<Response>;
}

function codeOf(value: unknown): ErrorCode {
  return isErrorCode(value) ? value : 'INTERNAL_ERROR';
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

/** Turn a non-2xx REST response into a GatewayError. */
async function restError(res: Response): Promise<GatewayError> {
  const body = await readJson(res);
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const problem: ProblemDetails =
    body && typeof body === 'object' && 'code' in body
      ? (body as ProblemDetails)
      : { type: 'about:blank', title: res.statusText || 'Error', status: res.status, code: 'INTERNAL_ERROR', detail: typeof body === 'string' ? body : 'Unexpected response.' };
  return new GatewayError(codeOf(problem.code), res.status, problem.detail ?? problem.title, problem, requestId);
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

  return {
    request,
    async listChannels() {
      const res = await request('GET', '/v1/payments/channel');
      if (!res.ok) throw await restError(res);
      const body = (await res.json()) as { status: number; data: Channel[] };
      return body.data;
    },
    async calculateFee(input) {
      const res = await request('POST', '/v1/payments/calculate', JSON.stringify(input));
      if (!res.ok) throw await restError(res);
      return (await res.json()) as FeeCalculation;
    },
    async graphql<TData>(query: string, variables?: Record<string, unknown>, operationName?: string) {
      const res = await request('POST', '/graphql', JSON.stringify({ query, variables, operationName }));
      const requestId = res.headers.get('x-request-id') ?? undefined;
      const body = (await readJson(res)) as { data?: TData | null; errors?: GraphQLErrorPayload[] } | string | null;
      if (body === null || typeof body !== 'object') {
        throw new GatewayError('INTERNAL_ERROR', res.status, 'Unexpected response.', { type: 'about:blank', title: 'Unexpected response', status: res.status, code: 'INTERNAL_ERROR', detail: String(body) }, requestId);
      }
      const first = body.errors?.[0];
      if (first) {
        const code = codeOf(first.extensions?.code);
        const status = res.status !== 200 ? res.status : ERROR_STATUS[code];
        const problem: ProblemDetails = { ...first.extensions, type: 'about:blank', title: titleOf(code), status, code, detail: first.message };
        throw new GatewayError(code, status, first.message, problem, requestId, { errors: body.errors ?? [], data: body.data ?? null });
      }
      if (!res.ok || body.data == null) {
        const detail = `Unexpected GraphQL response (HTTP ${res.status}).`;
        throw new GatewayError('INTERNAL_ERROR', res.status, detail, { type: 'about:blank', title: titleOf('INTERNAL_ERROR'), status: res.status, code: 'INTERNAL_ERROR', detail }, requestId);
      }
      return body.data;
    },
  };
}
