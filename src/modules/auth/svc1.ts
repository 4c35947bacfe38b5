/**
 * SVC1 request signing (contract §3), shared by the server, the tests and
 * any client in this repository.
 *
 *   stringToSign = METHOD \n TARGET \n TIMESTAMP \n API_KEY \n hex(sha256(body))
 *   signature    = hex(HMAC-SHA256(utf8(secret), stringToSign))
 *
 * Pure functions over bytes; no I/O.
 */
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { buildStringToSign, EMPTY_BODY_SHA256, isWellFormedSignature } from './svc1-core.js';

export { EMPTY_BODY_SHA256, isWellFormedSignature };

/** The signed parts of one request. */
export interface SignedParts {
  /** HTTP method; upper-cased before signing. */
  method: string;
  /** Request target exactly as sent: path plus `?query` if any. */
  target: string;
  /** `X-SERVICE-Timestamp` value, decimal Unix seconds. */
  timestamp: string;
  /** `X-SERVICE-API-Key` value. */
  apiKey: string;
  /** Raw body bytes (or a string, hashed as UTF-8). Empty when absent. */
  body?: Uint8Array | string;
}

export function sha256Hex(body: Uint8Array | string | undefined): string {
  if (body === undefined || body.length === 0) return EMPTY_BODY_SHA256;
  // One-shot hash (Node ≥ 20.12): less than half the cost of createHash().update().digest() per request.
  return hash('sha256', body, 'hex');
}

/** The five-line string to sign (no trailing newline). */
export function stringToSign(parts: SignedParts, bodySha256: string = sha256Hex(parts.body)): string {
  return buildStringToSign(parts, bodySha256);
}

/** Raw 32-byte HMAC of a string to sign. */
export function hmacBytes(secret: string, toSign: string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(toSign, 'utf8').digest();
}

/** Lower-case hex signature of a request. */
export function sign(secret: string, parts: SignedParts): string {
  return hmacBytes(secret, stringToSign(parts)).toString('hex');
}

/** The three SVC1 headers for a request, ready to send. */
export function signatureHeaders(
  apiKey: string,
  secret: string,
  parts: Omit<SignedParts, 'apiKey' | 'timestamp'> & { timestamp?: string },
): Record<'X-SERVICE-API-Key' | 'X-SERVICE-Timestamp' | 'X-SERVICE-Signature', string> {
  const timestamp = parts.timestamp ?? String(Math.floor(Date.now() / 1000));
  return {
    'X-SERVICE-API-Key': apiKey,
    'X-SERVICE-Timestamp': timestamp,
    'X-SERVICE-Signature': sign(secret, { ...parts, apiKey, timestamp }),
  };
}


/**
 * Constant-time comparison of a presented hex signature with the expected
 * HMAC bytes. The hex is validated first (Buffer.from silently drops bad hex)
 * and lengths are equal by construction before `timingSafeEqual`.
 */
export function signatureMatches(presentedHex: string, expected: Uint8Array): boolean {
  if (!isWellFormedSignature(presentedHex)) return false;
  const presented = Buffer.from(presentedHex, 'hex');
  if (presented.length !== expected.length) return false;
  return timingSafeEqual(presented, expected);
}

/**
 * How to read a SIGNATURE_MISMATCH (test keys), the same words for every request. The comparison is
 * between what the client SIGNED and what the server RECEIVED: hashing the body as it was sent (or
 * captured) reproduces the server's hashes whatever the client signed, and would wrongly blame the secret.
 */
export const SIGNATURE_MISMATCH_HINT =
  'Test keys only. bodySha256 and bodyBytes describe the body the server RECEIVED; compare them with what your code SIGNED: ' +
  'the SHA-256 and byte length of the exact bytes it passed to the HMAC (log them where you sign, or save those bytes to ' +
  'YOUR_SIGNED_BODY_FILE and run signCommand with your secret; not a copy of the body you meant to send). ' +
  'Body hash or length differs → the bytes sent are not the bytes signed: the body was re-serialised after signing ' +
  '(pretty-printed or re-encoded JSON, reordered keys, a trailing newline, another encoding); send the signed string itself. ' +
  'Body equal but stringToSignSha256 differs (same timestamp as sent) → the method, the target (path plus ?query, exactly as sent), ' +
  'the timestamp or the key line differs. Both equal → the secret is wrong (not the secret of this key, or with extra characters).';
