/**
 * How the SDK turns the gateway's answers into results or a {@link GatewayError}: REST problem details
 * and GraphQL errors alike, for the signed client (./index.ts) and the session client (./session.ts).
 */
import { ERROR_STATUS, isErrorCode, titleOf, type ErrorCode } from '../shared/errors.js';

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

export function codeOf(value: unknown): ErrorCode {
  return isErrorCode(value) ? value : 'INTERNAL_ERROR';
}

export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return text;
  }
}

/** Turn a non-2xx REST response into a GatewayError. */
export async function restError(res: Response): Promise<GatewayError> {
  const body = await readJson(res);
  const requestId = res.headers.get('x-request-id') ?? undefined;
  const problem: ProblemDetails =
    body && typeof body === 'object' && 'code' in body
      ? (body as ProblemDetails)
      : { type: 'about:blank', title: res.statusText || 'Error', status: res.status, code: 'INTERNAL_ERROR', detail: typeof body === 'string' ? body : 'Unexpected response.' };
  return new GatewayError(codeOf(problem.code), res.status, problem.detail ?? problem.title, problem, requestId);
}

/** A GraphQL answer's `data`, or the {@link GatewayError} of its first error (or of an unexpected answer). */
export async function graphqlData<TData>(res: Response): Promise<TData> {
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
}
