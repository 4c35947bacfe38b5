/** Reading a request body with a hard byte limit (contract §4 PAYLOAD_TOO_LARGE). */
import { AppError } from '../../shared/errors.js';

/** JSON media types (`application/json`, `application/graphql-response+json`, …), any parameters. */
export const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * The client closed its connection before its body was complete (it aborted, or its connection broke).
 * The client's doing, never the service's: answered 400 INVALID_REQUEST (`field: body`) should it still
 * listen, and logged and counted as `499` (nginx's "client closed request"; the request state's
 * `clientClosedRequest`). Before this had its own error, the socket's ECONNRESET read as an unreachable
 * database's and the request was logged and counted as 503, inflating 5xx alerts.
 */
export class ClientClosedRequest extends AppError {
  constructor(cause?: unknown) {
    super('INVALID_REQUEST', 'The request body ended before it was complete (the client closed the request).', { field: 'body' });
    if (cause !== undefined) this.cause = cause;
  }
}

export function tooLarge(limit: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes.`, { limit });
}

/** Anything with WHATWG-style header access (a Request, or a Node request adapter). */
export interface HeaderSource {
  headers: { get(name: string): string | null };
}

/** Declared Content-Length, or undefined when absent/unparseable. */
export function declaredLength(request: HeaderSource): number | undefined {
  const header = request.headers.get('content-length');
  if (header === null || !/^\d{1,15}$/.test(header)) return undefined;
  return Number(header);
}

/** Throw PAYLOAD_TOO_LARGE when the declared length already exceeds the limit (no body read). */
export function assertDeclaredLengthWithin(request: HeaderSource, limit: number): void {
  const length = declaredLength(request);
  if (length !== undefined && length > limit) throw tooLarge(limit);
}

/**
 * The raw body bytes, never more than `limit` of them: a body that turns out
 * larger (chunked uploads have no Content-Length) is rejected while streaming.
 */
export async function readBodyWithin(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let total = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array<ArrayBuffer>>;
    try {
      step = await reader.read();
    } catch (err) {
      // An incoming body's stream fails only when the client's side of it does (the transport's abort).
      throw new ClientClosedRequest(err);
    }
    const { done, value } = step;
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined); // the connection may already be gone; nothing to recover
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
