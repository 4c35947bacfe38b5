/**
 * SVC1 signature verification (contract §3) as a Yoga plugin, and, in the same step, checkout sessions'
 * `Authorization: Bearer` client secrets (contract §9; see `verifySession` below).
 *
 * Runs in `onRequest`, before any other user plugin that touches data, for every request to
 * the GraphQL endpoint (POST and GET, data and introspection alike; the GraphiQL page
 * for browsers is answered earlier, by createApiDocs, and carries no data; so is a browser's CORS preflight,
 * which carries no credentials), every `/v1/payments/*` route and `/v1/checkout/sessions`. Nothing behind it runs for an
 * unauthenticated request. Check order (contract §4): headers present →
 * timestamp format → skew → signature format → key known → HMAC. Merchant
 * scope is checked by the services, which know the requested merchant.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { EMPTY_BODY_SHA256, isWellFormedSignature, sha256Hex, SIGNATURE_MISMATCH_HINT, signatureMatches, stringToSign } from '../../modules/auth/svc1.js';
import { shellQuote } from '../../shared/shell-quote.js';
import type { SecretBox } from '../../modules/auth/secret-box.js';
import { VersionedCache } from '../../shared/versioned-cache.js';
import type { DataVersion } from '../../shared/versioned-cache.js';
import { AppError } from '../../shared/errors.js';
import { assertDeclaredLengthWithin, ClientClosedRequest, readBodyWithin, type HeaderSource } from '../transport/body.js';
import { toAppError } from '../error-normalizer.js';
import { BufferedRequest, hasLimitedBody } from '../transport/node-request.js';
import { requestStateOf, type Principal, type RequestState } from '../request-state.js';
import { errorResponseFor } from '../responses.js';
import type { ActiveKeyRecord } from '../../storage/model/records.js';
import type { SessionClaims } from '../../modules/auth/client-secret.js';

/**
 * The client secret of a request that authenticates as a checkout session: `Authorization: Bearer …` and
 * none of the SVC1 headers (a request carrying any SVC1 header is judged as SVC1, never as a session, so
 * a signed server call cannot be turned into a session one). Null: not a session request.
 */
export function sessionSecretOf(request: HeaderSource): string | null {
  const authorization = request.headers.get('authorization');
  if (authorization === null) return null;
  if (request.headers.get('x-service-api-key') !== null || request.headers.get('x-service-timestamp') !== null || request.headers.get('x-service-signature') !== null) return null;
  // `Bearer` and whatever follows it: every such header is a session attempt, so a damaged token (inner
  // spaces, nothing at all: HTTP trims `Bearer ` to `Bearer`) fails as SESSION_INVALID, never as a missing
  // SVC1 header. Plain string operations, linear in the header's length (no backtracking regex).
  const value = authorization.trim();
  if (value.slice(0, 6).toLowerCase() !== 'bearer') return null;
  const rest = value.slice(6);
  if (rest !== '' && !/^\s/.test(rest)) return null;
  return rest.trim();
}

/** Verified keys kept by default (KEY_CACHE_ENTRIES). */
export const DEFAULT_KEY_CACHE_ENTRIES = 100_000;

/** Options of {@link useSignatureAuth}. */
export interface SignatureAuthOptions {
  /** Verified keys (decrypted secrets) kept until their merchant's data changes; default {@link DEFAULT_KEY_CACHE_ENTRIES}. */
  keyCacheEntries?: number;
  /** Looks up a non-revoked key (called once per request: revocation is immediate). */
  findActiveKey: (keyId: string) => ActiveKeyRecord | undefined;
  secretBox: SecretBox;
  /** Accepted clock skew in seconds (±). */
  maxSkewSeconds: number;
  /** Largest accepted body in bytes. */
  bodyLimitBytes: number;
  /** Which paths require a signature. */
  isProtectedPath: (pathname: string) => boolean;
  /** Clock in milliseconds; injectable for tests. */
  now?: () => number;
  /**
   * When given, a key's record and prepared HMAC key are cached until the shared data changes or the key's
   * merchant changes (its record's stamp is superseded: any commit touching the merchant, from any process),
   * so a revocation or rotation takes effect on the next request. Absent: looked up and decrypted per request.
   */
  dataVersion?: DataVersion;
  /** Counters for tests and diagnosis. */
  stats?: KeyCacheStats;
  /** Checkout sessions (contract §9): `Authorization: Bearer <clientSecret>` instead of SVC1. Absent: SVC1 only. */
  sessions?: SessionAuthOptions;
}

/** How many verifications found their key in the key cache. */
export interface KeyCacheStats {
  keyHits: number;
}

/** How the authentication step verifies a checkout session's client secret (contract §9). */
export interface SessionAuthOptions {
  /**
   * The claims of an authentic secret (any state), undefined when malformed or forged. `request`: the one it
   * came with (the app reuses what the request's fair lane verified).
   */
  authenticClaims(clientSecret: string, request: Request): SessionClaims | undefined;
  /** The live session's principal; throws SESSION_INVALID / SESSION_EXPIRED. */
  principalOf(claims: SessionClaims | undefined): Principal;
  /** True when `origin` (exactly as sent) is an allowed web origin of the merchant. */
  originAllowed(merchantId: string, origin: string): boolean;
  /** The paths a session may call (the others answer SESSION_SCOPE). */
  isSessionPath(pathname: string): boolean;
}

/** What verification reads from a request: its method and headers (WHATWG Request or a Node adapter). */
export interface VerifiableRequest extends HeaderSource {
  method: string;
}

/** Checks one request per contract §3/§4; throws the contract AppError on failure. */
export type SignatureVerifier = (
  request: VerifiableRequest,
  target: string,
  /** Reads the raw body, rejecting more than `limit` bytes with PAYLOAD_TOO_LARGE. */
  readBody: (limit: number) => Promise<Uint8Array<ArrayBuffer>>,
) => Promise<{ principal: Principal; body: Uint8Array<ArrayBuffer> }>;

const DIGITS = /^[0-9]+$/;

/**
 * Debugging help on SIGNATURE_MISMATCH, for test keys only: the SHA-256 of
 * the server's string to sign and of the body it received, the body's length
 * in bytes (`bodyBytes`: a re-serialised body usually shows in its length
 * alone), `signCommand`:
 * the `npm run sign` command that recomputes both for this request (its
 * method, target, timestamp and key: with another timestamp the
 * string-to-sign hash always differs), and a hint on reading the
 * comparison against what the client SIGNED. Everything here is derived from what
 * the client itself sent, never the secret or the expected signature; live
 * keys get nothing, so a live key cannot be probed.
 */
export function signatureDebugDetails(
  mode: ActiveKeyRecord['mode'],
  parts: { method: string; target: string; timestamp: string; apiKey: string },
  toSign: string,
  bodySha256: string,
  bodyBytes: number,
): Record<string, string | number> {
  if (mode !== 'test' || !parts.apiKey.startsWith('pk_test_')) return {};
  const body = bodySha256 === EMPTY_BODY_SHA256 ? '' : ' --body-file YOUR_SIGNED_BODY_FILE';
  return {
    stringToSignSha256: sha256Hex(toSign),
    bodySha256,
    bodyBytes,
    signCommand: `npm run --silent sign -- ${parts.method.toUpperCase()} ${shellQuote(parts.target)}${body} --timestamp ${parts.timestamp} --key ${parts.apiKey} --secret YOUR_SECRET`,
    hint: SIGNATURE_MISMATCH_HINT,
  };
}

function headerValue(request: HeaderSource, name: string): string | null {
  const value = request.headers.get(name);
  return value === null || value.trim() === '' ? null : value;
}

/** A key as verification needs it: the record and its HMAC key, prepared once. */
interface PreparedKey {
  record: ActiveKeyRecord;
  hmacKey: KeyObject;
}

/**
 * THE signature check (contract §3, order of §4): one implementation, used by
 * the Yoga plugin below for every request.
 */
export function createSignatureVerifier(options: SignatureAuthOptions): SignatureVerifier {
  if (!Number.isInteger(options.maxSkewSeconds) || options.maxSkewSeconds <= 0) throw new Error('useSignatureAuth: maxSkewSeconds must be a positive integer');
  if (!Number.isInteger(options.bodyLimitBytes) || options.bodyLimitBytes <= 0) throw new Error('useSignatureAuth: bodyLimitBytes must be a positive integer');
  const now = options.now ?? Date.now;

  const prepare = (keyId: string): PreparedKey | undefined => {
    const record = options.findActiveKey(keyId);
    // The HMAC key is the UTF-8 bytes of the secret (contract §3); decrypted once per key and data version.
    return record ? { record, hmacKey: createSecretKey(Buffer.from(options.secretBox.decrypt(record.keyId, record.secretCiphertext), 'utf8')) } : undefined;
  };
  // Unknown keys are never cached (undefined), so guessing key ids cannot evict the real ones. At most
  // `keyCacheEntries` keys (KEY_CACHE_ENTRIES); past it the oldest goes.
  // Each key is kept under its merchant's stamp: a change to one merchant drops that merchant's keys only.
  const cache = options.dataVersion ? new VersionedCache<string, PreparedKey | undefined>(options.dataVersion, options.keyCacheEntries ?? DEFAULT_KEY_CACHE_ENTRIES) : null;
  const stats = options.stats;
  const findKey = (keyId: string): PreparedKey | undefined => {
    if (!cache) return prepare(keyId);
    const { value, token } = cache.peek(keyId);
    if (value !== undefined) {
      if (stats) stats.keyHits++;
      return value;
    }
    const prepared = prepare(keyId);
    // Built synchronously from the current catalogue: its stamp is current, and the token still holds.
    if (prepared) cache.put(keyId, prepared, token, prepared.record.merchantStamp);
    return prepared;
  };

  /** Verify and return the principal and the verified body bytes, or throw the contract error. */
  return async function verify(request, target, readBody) {
    assertDeclaredLengthWithin(request, options.bodyLimitBytes);

    const apiKey = headerValue(request, 'x-service-api-key');
    const timestamp = headerValue(request, 'x-service-timestamp');
    const signature = headerValue(request, 'x-service-signature');
    if (apiKey === null || timestamp === null || signature === null) {
      const missing = [
        apiKey === null && 'X-SERVICE-API-Key',
        timestamp === null && 'X-SERVICE-Timestamp',
        signature === null && 'X-SERVICE-Signature',
      ].filter((h): h is string => typeof h === 'string');
      throw new AppError('AUTH_HEADER_MISSING', `Missing authentication header(s): ${missing.join(', ')}.`, { headers: missing.join(', ') });
    }

    if (!DIGITS.test(timestamp) || timestamp.length > 13) {
      throw new AppError('TIMESTAMP_INVALID', 'X-SERVICE-Timestamp must be Unix time in seconds, decimal digits only.');
    }
    if (timestamp.length === 13) {
      throw new AppError('TIMESTAMP_INVALID', 'X-SERVICE-Timestamp looks like milliseconds; send Unix time in seconds, not milliseconds.', {
        hint: 'seconds, not milliseconds',
      });
    }
    const serverTime = Math.floor(now() / 1000);
    if (Math.abs(serverTime - Number(timestamp)) > options.maxSkewSeconds) {
      throw new AppError('TIMESTAMP_EXPIRED', `X-SERVICE-Timestamp is more than ${options.maxSkewSeconds} s away from the server clock.`, {
        serverTime,
        maxSkewSeconds: options.maxSkewSeconds,
      });
    }

    if (!isWellFormedSignature(signature)) {
      throw new AppError('SIGNATURE_MALFORMED', 'X-SERVICE-Signature must be 64 hexadecimal characters (hex HMAC-SHA256).');
    }

    const prepared = findKey(apiKey);
    if (!prepared) throw new AppError('INVALID_API_KEY', 'Unknown or revoked API key.');
    const key = prepared.record;

    const body = await readBody(options.bodyLimitBytes);
    const bodySha256 = sha256Hex(body);
    const toSign = stringToSign({ method: request.method, target, timestamp, apiKey }, bodySha256);
    const expected = createHmac('sha256', prepared.hmacKey).update(toSign, 'utf8').digest();
    if (!signatureMatches(signature, expected)) {
      throw new AppError(
        'SIGNATURE_MISMATCH',
        'The signature does not match the request: a line of the string to sign (method, target, timestamp, key, body SHA-256) or the secret differs from what the server used.',
        signatureDebugDetails(key.mode, { method: request.method, target, timestamp, apiKey }, toSign, bodySha256, body.byteLength),
      );
    }
    // The signature identifies this signed request (session creation derives its session from it); hex case is not part of it.
    const signedRequest = { timestamp: Number(timestamp), signature: signature.toLowerCase() };
    return { principal: { apiKeyId: key.keyId, mode: key.mode, merchantId: key.merchantId, merchantKyc: key.merchantKyc, merchantStamp: key.merchantStamp, signedRequest }, body };
  };
}

export function useSignatureAuth(options: SignatureAuthOptions): Plugin {
  const verifier = createSignatureVerifier(options);
  // A NodeRequest / BufferedRequest keeps its bytes for every later reader; any other Request is streamed once.
  const bodyReader = (request: Request) => (limit: number) => (hasLimitedBody(request) ? request.readBytes(limit) : readBodyWithin(request, limit));
  /** Verify and return the principal, or throw the contract error. */
  async function verify(request: Request, state: RequestState): Promise<void> {
    const { principal, body } = await verifier(request, state.target, bodyReader(request));
    state.verifiedBody = body;
    state.principal = principal;
  }

  /**
   * A checkout session (contract §9), in the same step as SVC1: authentic → not expired → its key active
   * (SESSION_INVALID / SESSION_EXPIRED) → the Origin, when sent, allowed for its merchant
   * (ORIGIN_NOT_ALLOWED) → a path sessions may call (SESSION_SCOPE). An authentic secret's allowed origin
   * may read even the refusal (CORS), so a browser can tell an expired session from a network failure.
   */
  async function verifySession(sessions: SessionAuthOptions, secret: string, request: Request, pathname: string, state: RequestState): Promise<void> {
    assertDeclaredLengthWithin(request, options.bodyLimitBytes);
    const claims = sessions.authenticClaims(secret, request);
    state.sessionId = claims?.id;
    const origin = request.headers.get('origin');
    if (claims && origin !== null && sessions.originAllowed(claims.merchantId, origin)) state.corsOrigin = origin;
    const principal = sessions.principalOf(claims);
    if (origin !== null && state.corsOrigin === undefined) {
      throw new AppError('ORIGIN_NOT_ALLOWED', 'This web origin is not allowed for the merchant of this checkout session (admin CLI: merchant origins add).', { sessionId: principal.session!.id });
    }
    if (!sessions.isSessionPath(pathname)) {
      throw new AppError('SESSION_SCOPE', 'A checkout session may only call POST /graphql (queries and subscriptions) and GET /v1/payments/channel.', { sessionId: principal.session!.id });
    }
    state.verifiedBody = await bodyReader(request)(options.bodyLimitBytes);
    state.principal = principal;
  }

  return {
    async onRequest({ request, url, serverContext, endResponse, setRequest, fetchAPI }) {
      const state = requestStateOf(serverContext);
      if (!state || !options.isProtectedPath(url.pathname)) return;
      try {
        const secret = options.sessions ? sessionSecretOf(request) : null;
        if (secret !== null) await verifySession(options.sessions!, secret, request, url.pathname, state);
        else await verify(request, state);
        const body = state.verifiedBody;
        // A plain Request's body stream is consumed now: hand the pipeline an identical request with the bytes
        // that were verified. (A NodeRequest serves the same bytes to every reader already.)
        if (body && body.byteLength > 0 && !hasLimitedBody(request)) {
          setRequest(new BufferedRequest(request.url, request.method, request.headers, body, request) as unknown as Request);
        }
      } catch (err) {
        const appError = toAppError(err) ?? new AppError('INTERNAL_ERROR', 'Unexpected error.');
        if (appError.code === 'INTERNAL_ERROR') state.unexpected = err;
        if (appError instanceof ClientClosedRequest) state.clientClosedRequest = true;
        endResponse(errorResponseFor(fetchAPI.Response, state, appError));
      }
    },
  };
}
