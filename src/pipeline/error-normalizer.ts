/**
 * The single place where arbitrary failures become contract errors.
 *
 * - {@link toAppError}: an AppError anywhere in the cause chain wins; a
 *   database that cannot be used becomes SERVICE_UNAVAILABLE; anything else
 *   is unexpected (null).
 * - {@link createMaskError}: Yoga's `maskedErrors.maskError`. Unexpected
 *   errors become "Unexpected error." / INTERNAL_ERROR; the original is kept
 *   aside (never sent) so the request's own hook can log it with the
 *   request id.
 * - {@link normalizeResultErrors}: every error leaving as GraphQL gets a
 *   contract code, the request id, and the HTTP status the contract wants.
 */
import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import { isStorageUnavailable } from '../storage/errors.js';
import { AppError, MASKED_MESSAGE, isErrorCode, withoutStackTraces, type ErrorCode } from '../shared/errors.js';

/** Map a failure to the AppError a client may see, or null when it is unexpected. */
export function toAppError(err: unknown): AppError | null {
  let current: unknown = err;
  for (let depth = 0; current != null && depth < 8; depth++) {
    if (current instanceof AppError) return current;
    if (isStorageUnavailable(current)) return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry later.');
    current = current instanceof GraphQLError ? current.originalError : current instanceof Error ? current.cause : undefined;
  }
  return null;
}

/** Originals of masked errors, for logging only. */
const maskedOriginals = new WeakMap<GraphQLError, unknown>();

/** The unexpected error a masked GraphQL error replaced, if any. */
export function originalOfMasked(error: GraphQLError): unknown {
  return maskedOriginals.get(error);
}

/** True when every link of the cause chain is a GraphQLError (graphql-js and Yoga's own request errors). */
function isPureGraphQLError(error: unknown): boolean {
  let current: unknown = error;
  while (current instanceof GraphQLError) {
    if (current.originalError == null) return true;
    current = current.originalError;
  }
  return false;
}

/** Statuses that the surfaces set for these codes even on GraphQL (the rest answer 200 with errors). */
const GRAPHQL_HTTP_STATUS: Partial<Record<ErrorCode, number>> = {
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  // A checkout session asking outside its scope is refused like the authentication step refuses it (contract §9).
  SESSION_SCOPE: 403,
};

/**
 * A GraphQLError that answers the client, built without capturing a stack trace: graphql-js captures one
 * in every GraphQLError's constructor (the `Error` super call), nobody reads it (the error is an answer;
 * an unexpected error is logged with its own original's stack), and with the pipeline's deep stacks it
 * was a tenth of a heavy document's CPU (four per-channel errors made eight stack captures).
 */
export function answerError(message: string, options: GraphQLErrorOptions): GraphQLError {
  return withoutStackTraces(() => new GraphQLError(message, options));
}

/** A GraphQLError's fields, all writable (for {@link restatedError}). */
type Fields = { -readonly [K in 'message' | 'name' | 'path' | 'locations' | 'extensions' | 'nodes' | 'source' | 'positions' | 'originalError']: GraphQLError[K] };

/**
 * `base` restated with another message, extensions or original (masking, the contract code, the request
 * id): a GraphQLError with the same path, nodes and locations, built by assigning its fields rather than by
 * graphql-js's constructor. That constructor is an Error (a stack capture), scans the document text for each
 * location, defines its properties one by one and reads the original's `stack` (V8 formats it on first
 * read); a live event's per-channel errors were each restated twice (masked, then normalised), and this was
 * a tenth of the event's CPU. The result is `instanceof GraphQLError`, serialises through its
 * `toJSON`, and has no `stack` of its own: it is an answer; an unexpected original is logged with its own.
 *
 * Locations are kept as graphql-js would derive them from the nodes or source positions, i.e. none for
 * graphql-jit's errors (which carry locations but no nodes): what Yoga's serialiser of a query's answer
 * keeps, so an event and the matching query answer stay the same text.
 */
export function restatedError(base: GraphQLError, message: string, extensions: GraphQLErrorOptions['extensions'], originalError: Error | undefined): GraphQLError {
  const error = Object.create(GraphQLError.prototype) as Fields;
  error.message = message;
  error.name = 'GraphQLError';
  error.path = base.path;
  error.locations = base.nodes !== undefined || (base.source !== undefined && base.positions !== undefined) ? base.locations : undefined;
  error.extensions = extensions ?? {};
  error.nodes = base.nodes;
  error.source = base.source;
  error.positions = base.positions;
  error.originalError = originalError;
  return error as unknown as GraphQLError;
}

export function createMaskError() {
  return (error: unknown, _message: string): Error => {
    const appError = toAppError(error);
    const base = error instanceof GraphQLError ? error : undefined;
    if (appError) {
      const status = GRAPHQL_HTTP_STATUS[appError.code];
      const extensions = { ...appError.details, code: appError.code, ...(status ? { http: { status } } : {}) };
      return base ? restatedError(base, appError.message, extensions, appError) : answerError(appError.message, { originalError: appError, extensions });
    }
    if (isPureGraphQLError(error)) return error as GraphQLError;
    const masked = answerError(MASKED_MESSAGE, {
      path: base?.path,
      extensions: { code: 'INTERNAL_ERROR', http: { status: 500 } },
    });
    maskedOriginals.set(masked, error);
    return masked;
  };
}

/** Contract code for an error Yoga or graphql-js raised without one, from the status it carries. */
function codeForUncoded(status: number | undefined): ErrorCode {
  switch (status) {
    case 404:
      return 'NOT_FOUND';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    default:
      // Parse, validation, variable coercion and Yoga's BAD_REQUEST: the client sent something malformed.
      return 'INVALID_REQUEST';
  }
}

interface HttpExtension {
  status?: number;
  headers?: Record<string, string>;
  spec?: boolean;
}

/** graphql-js variable coercion: `Variable "$input" got invalid value … at "input.amount"; <reason>`. */
const VARIABLE_ERROR = /^Variable "\$[_A-Za-z][_0-9A-Za-z]*" got invalid value [\s\S]*?(?: at "([^"]+)")?; ([\s\S]*)$/;
const MISSING_FIELD = /^Field "([^"]+)" of required type "[^"]+" was not provided\.$/;

/**
 * Restate a variable coercion error without echoing the client's value and
 * without GraphQL plumbing (`$input`), naming the field (`amount`,
 * `currency`, …) as the contract asks of INVALID_REQUEST.
 */
function describeCoercion(message: string): { field: string; message: string } | null {
  const match = VARIABLE_ERROR.exec(message);
  if (!match) return null;
  const reason = match[2]!;
  // The path starts with the variable's own name ("input.amount"): the field is what follows.
  const path = match[1]?.split('.').slice(1).join('.');
  const missing = MISSING_FIELD.exec(reason);
  const field = [path, missing?.[1]].filter(Boolean).join('.') || 'variables';
  const text = missing ? `${field} is required.` : `${field}: ${reason.replace(/^Expected type "[^"]+"\. /, '')}`;
  return { field, message: text };
}

/**
 * Give one outgoing error its contract code and request id.
 * @param requestLevel the result has no data: the request as a whole failed.
 */
export function normalizeError(error: GraphQLError, requestId: string, requestLevel: boolean): GraphQLError {
  const ext = { ...(error.extensions as Record<string, unknown>) };
  const http = { ...((ext.http as HttpExtension | undefined) ?? {}) };
  if (!isErrorCode(ext.code)) ext.code = codeForUncoded(http.status);
  // Yoga attaches the JSON parser's message as `originalError`; it is not part of our error model.
  delete ext.originalError;
  const code = ext.code as ErrorCode;
  let message = error.message;
  if (code === 'INVALID_REQUEST' && ext.field === undefined) {
    const coercion = describeCoercion(message);
    if (coercion) {
      message = coercion.message;
      ext.field = coercion.field;
    }
  }
  if (requestLevel && code !== 'INTERNAL_ERROR' && code !== 'SERVICE_UNAVAILABLE' && !error.path) {
    // A malformed request sets its status on every media type (contract §4), not only graphql-response+json.
    const status = code === 'INVALID_REQUEST' ? 400 : http.status;
    if (status) {
      http.status = status;
      delete http.spec;
    }
  }
  if (Object.keys(http).length > 0) ext.http = http;
  else delete ext.http;
  ext.requestId = requestId;
  const normalized = restatedError(error, message, ext, error.originalError ?? undefined);
  const original = maskedOriginals.get(error);
  if (original !== undefined) maskedOriginals.set(normalized, original);
  return normalized;
}

/** Normalise all errors of one execution result. */
export function normalizeResultErrors<T extends { errors?: readonly GraphQLError[]; data?: unknown }>(result: T, requestId: string): T {
  if (!result.errors?.length) return result;
  const requestLevel = result.data == null;
  return { ...result, errors: result.errors.map((e) => normalizeError(e, requestId, requestLevel)) };
}
