/**
 * Rendering an {@link AppError} for each surface. The status always comes
 * from the contract table in src/errors.ts.
 */
import { AppError, problemDetails, type ErrorCode, type ErrorDetails } from '../errors.js';
import type { RequestState } from './request-state.js';

type ResponseCtor = typeof Response;

/**
 * Responses whose bytes are already in memory (the answer cache's, src/plugins/use-answer-cache.ts) carry
 * them under this key, so onResponse hooks can read them without copying and the Node transport writes
 * them as they are; the same Buffer object is sent for every hit of a kept answer and is never modified
 * (hooks may memoise per Buffer, as useHttpCaching does for ETags).
 */
export const RESPONSE_BYTES = Symbol('responseBytes');

/** A response that may carry {@link RESPONSE_BYTES}. */
export type ResponseWithBytes = Response & { [RESPONSE_BYTES]?: Buffer };

/** RFC 9457 problem details response (REST and public routes). */
export function problemResponse(Response: ResponseCtor, error: AppError, requestId: string): Response {
  return new Response(JSON.stringify(problemDetails(error.code, error.message, error.details, requestId)), {
    status: error.status,
    headers: { 'Content-Type': 'application/problem+json', ...error.headers },
  });
}

/** GraphQL-shaped error response, for failures before execution (auth, body limits). */
export function graphqlErrorResponse(Response: ResponseCtor, error: AppError, requestId: string): Response {
  const body = { errors: [{ message: error.message, extensions: graphqlExtensions(error.code, error.details, requestId) }] };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...error.headers },
  });
}

/** The `extensions` of a GraphQL error for a contract code. */
export function graphqlExtensions(code: ErrorCode, details: ErrorDetails, requestId: string): Record<string, unknown> {
  return { ...details, code, requestId };
}

/** The error response for this request's surface. */
export function errorResponseFor(Response: ResponseCtor, state: RequestState, error: AppError): Response {
  state.errorCode = error.code;
  return state.surface === 'graphql' ? graphqlErrorResponse(Response, error, state.id) : problemResponse(Response, error, state.id);
}
