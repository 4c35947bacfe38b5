/**
 * The one error model of the service (contract §4).
 *
 * Every failure a client can see is an {@link AppError} with a code from
 * {@link ERROR_STATUS}. GraphQL puts the code in `extensions.code`; the REST
 * adapter renders the same error as RFC 9457 problem details. Nothing else
 * maps codes to statuses: both surfaces read this table.
 */

/** Code → HTTP status (contract §4). The only such table in the project. */
export const ERROR_STATUS = {
  AUTH_HEADER_MISSING: 401,
  TIMESTAMP_INVALID: 401,
  TIMESTAMP_EXPIRED: 401,
  SIGNATURE_MALFORMED: 401,
  INVALID_API_KEY: 401,
  SIGNATURE_MISMATCH: 401,
  MERCHANT_MISMATCH: 403,
  KYC_REQUIRED: 403,
  INVALID_REQUEST: 400,
  CHANNEL_NOT_FOUND: 404,
  CHANNEL_UNAVAILABLE: 409,
  UNSUPPORTED_CURRENCY: 422,
  AMOUNT_OUT_OF_RANGE: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  SESSION_INVALID: 401,
  SESSION_EXPIRED: 401,
  SESSION_SCOPE: 403,
  ORIGIN_NOT_ALLOWED: 403,
  QUOTE_INVALID: 422,
  QUOTE_EXPIRED: 422,
} as const;

/** A contract error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The authentication failures (contract §3 check order, 401), in that order. */
export const AUTH_ERROR_CODES: readonly ErrorCode[] = [
  'AUTH_HEADER_MISSING',
  'TIMESTAMP_INVALID',
  'TIMESTAMP_EXPIRED',
  'SIGNATURE_MALFORMED',
  'INVALID_API_KEY',
  'SIGNATURE_MISMATCH',
];

/** The failures of a checkout session's client secret (contract §9), besides the common ones. */
export const SESSION_ERROR_CODES: readonly ErrorCode[] = ['SESSION_INVALID', 'SESSION_EXPIRED', 'SESSION_SCOPE', 'ORIGIN_NOT_ALLOWED'];

/** Short human titles for problem details (`title` member). */
const TITLES: Record<ErrorCode, string> = {
  AUTH_HEADER_MISSING: 'Authentication header missing',
  TIMESTAMP_INVALID: 'Timestamp invalid',
  TIMESTAMP_EXPIRED: 'Timestamp expired',
  SIGNATURE_MALFORMED: 'Signature malformed',
  INVALID_API_KEY: 'Invalid API key',
  SIGNATURE_MISMATCH: 'Signature mismatch',
  MERCHANT_MISMATCH: 'Merchant mismatch',
  KYC_REQUIRED: 'KYC required',
  INVALID_REQUEST: 'Invalid request',
  CHANNEL_NOT_FOUND: 'Channel not found',
  CHANNEL_UNAVAILABLE: 'Channel unavailable',
  UNSUPPORTED_CURRENCY: 'Unsupported currency',
  AMOUNT_OUT_OF_RANGE: 'Amount out of range',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  RATE_LIMITED: 'Too many requests',
  SERVICE_UNAVAILABLE: 'Service unavailable',
  INTERNAL_ERROR: 'Internal error',
  SESSION_INVALID: 'Checkout session invalid',
  SESSION_EXPIRED: 'Checkout session expired',
  SESSION_SCOPE: 'Outside the checkout session',
  ORIGIN_NOT_ALLOWED: 'Origin not allowed',
  QUOTE_INVALID: 'Quote invalid',
  QUOTE_EXPIRED: 'Quote expired',
};

/** Extra problem members a code may carry (`field`, `min`, `max`, `serverTime`, …). */
export type ErrorDetails = Record<string, string | number | boolean | null>;

/** The message every masked (unexpected) failure shows to clients. */
export const MASKED_MESSAGE = 'Unexpected error.';

/** A failure the client is allowed to see, with its contract code. */
/**
 * V8's `Error.stackTraceLimit` (Node, Chromium; other engines ignore it), typed here because this file is
 * also the SDK's, compiled without Node's types.
 */
const V8Error = Error as ErrorConstructor & { stackTraceLimit?: number };

/**
 * Run `fn` with V8's stack capture off: every Error built meanwhile (synchronously) has an empty stack. For
 * errors that are answers, not faults (4xx, GraphQL answer errors, the per-channel errors of live events):
 * capturing a stack through the pipeline's deep call chains was most of what such an error cost.
 */
export function withoutStackTraces<T>(fn: () => T): T {
  const limit = V8Error.stackTraceLimit;
  V8Error.stackTraceLimit = 0;
  try {
    return fn();
  } finally {
    V8Error.stackTraceLimit = limit;
  }
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** Response headers this error needs (e.g. `Allow`, `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, headers: Record<string, string> = {}) {
    // A 4xx is an answer to the client, not a fault of ours: nobody reads its stack, and capturing one was
    // the largest part of a refusal's CPU (refusals must cost next to nothing). 5xx keep theirs.
    if (ERROR_STATUS[code] < 500) {
      // (Not withoutStackTraces: `super` must be called in the constructor itself.)
      const limit = V8Error.stackTraceLimit;
      V8Error.stackTraceLimit = 0;
      super(message);
      V8Error.stackTraceLimit = limit;
    } else {
      super(message);
    }
    this.name = 'AppError';
    // What V8 would format without frames, as a plain value: GraphQL wraps a 4xx into an error that reads its
    // `stack`, and V8 formats a captured one on first read (a live event's per-channel errors).
    if (ERROR_STATUS[code] < 500) this.stack = `AppError: ${message}`;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  get title(): string {
    return TITLES[this.code];
  }
}

/** Shorthand for the most common client error: a bad value in a named field. */
export function invalidRequest(field: string, message: string): AppError {
  return new AppError('INVALID_REQUEST', message, { field });
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, value);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

export function titleOf(code: ErrorCode): string {
  return TITLES[code];
}

/** RFC 9457 problem details body, as the REST surface renders it. */
export interface ProblemDetails extends ErrorDetails {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  requestId: string;
}

export function problemDetails(code: ErrorCode, detail: string, details: ErrorDetails, requestId: string): ProblemDetails {
  return {
    ...details,
    type: 'about:blank',
    title: TITLES[code],
    status: ERROR_STATUS[code],
    code,
    detail,
    requestId,
  };
}
