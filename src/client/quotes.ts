/**
 * Fee quote verification in the SDK (contract §11), browser-safe (jose over WebCrypto):
 * - offline: the gateway's JWK Set (`/.well-known/jwks.json`) is fetched once and kept; a token naming a
 *   `kid` the kept set lacks (a rotation newer than the copy) fetches it again, at most once per second
 *   (concurrent misses share one fetch), so forged `kid`s cannot turn verification into a request flood;
 * - online: `POST /v1/payments/quotes/verify` through the signed client (./index.ts).
 * Both resolve with the quoted calculation or reject with a {@link GatewayError} whose code is
 * `QUOTE_INVALID` or `QUOTE_EXPIRED` (status 422, as the endpoint answers).
 */
import { createLocalJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { ERROR_STATUS, titleOf } from '../shared/errors.js';
import { GatewayError, restError } from './errors.js';
import { compactJwsProblem, quoteProblemOf, type VerifiedQuote } from '../shared/quote-claims.js';

/** What a verified quote states (the endpoint's answer; offline, the same fields from the claims). */
export type { VerifiedQuote } from '../shared/quote-claims.js';

/** The JWS `typ` of a quote. */
export const QUOTE_TYP = 'fee-quote+jwt';

/** Shortest pause between two fetches of the key set caused by unknown `kid`s. */
const REFETCH_INTERVAL_MS = 1000;

/** Options of {@link createQuoteVerifier}. */
export interface QuoteVerifierOptions {
  /** The gateway, e.g. `https://pay.example` (its `/.well-known/jwks.json` is read). */
  baseUrl: string;
  /** When set, a quote issued to another merchant is `QUOTE_INVALID` (the endpoint always checks this). */
  merchantId?: string;
  fetch?: typeof globalThis.fetch;
  /** Clock in ms; default `Date.now`. */
  now?: () => number;
}

export interface QuoteVerifier {
  /** Verify offline against the gateway's published keys. */
  verifyQuote(token: string): Promise<VerifiedQuote>;
}

function quoteError(code: 'QUOTE_INVALID' | 'QUOTE_EXPIRED', detail: string): GatewayError {
  const status = ERROR_STATUS[code];
  return new GatewayError(code, status, detail, { type: 'about:blank', title: titleOf(code), status, code, detail }, undefined);
}

export function createQuoteVerifier(options: QuoteVerifierOptions): QuoteVerifier {
  const jwksUrl = new URL('/.well-known/jwks.json', options.baseUrl).toString();
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const now = options.now ?? Date.now;
  let kept: { set: JSONWebKeySet; kids: Set<string | undefined>; at: number } | undefined;
  let inFlight: Promise<void> | undefined;

  async function load(): Promise<void> {
    inFlight ??= (async () => {
      try {
        const res = await doFetch(jwksUrl, { headers: { accept: 'application/jwk-set+json, application/json' } });
        if (!res.ok) throw await restError(res);
        const set = (await res.json()) as JSONWebKeySet;
        kept = { set, kids: new Set(set.keys.map((k) => k.kid)), at: now() };
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  }

  return {
    async verifyQuote(token: string): Promise<VerifiedQuote> {
      // One text per quote, as the endpoint insists (jose alone accepts padding and spare bits).
      const malformed = compactJwsProblem(token);
      if (malformed) throw quoteError('QUOTE_INVALID', quoteProblemOf(malformed));
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        throw quoteError('QUOTE_INVALID', quoteProblemOf('ERR_JWS_INVALID'));
      }
      if (!kept || (!kept.kids.has(kid) && now() - kept.at >= REFETCH_INTERVAL_MS)) await load();
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, createLocalJWKSet(kept!.set), { algorithms: ['EdDSA'], typ: QUOTE_TYP, currentDate: new Date(now()), requiredClaims: ['sub', 'jti', 'iat', 'exp'] }));
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) {
          if (options.merchantId !== undefined && err.payload.sub !== options.merchantId) throw quoteError('QUOTE_INVALID', 'This quote was not issued to this merchant.');
          throw quoteError('QUOTE_EXPIRED', `This quote expired at ${new Date(Number(err.payload.exp) * 1000).toISOString()}.`);
        }
        // Plain words, never the library's code (the endpoint's detail for the same token).
        if (err instanceof joseErrors.JOSEError) throw quoteError('QUOTE_INVALID', quoteProblemOf(err.code));
        throw err;
      }
      if (options.merchantId !== undefined && payload.sub !== options.merchantId) throw quoteError('QUOTE_INVALID', 'This quote was not issued to this merchant.');
      return quoteOf(payload);
    },
  };
}

/** The calculation of a verified payload. */
function quoteOf(p: JWTPayload): VerifiedQuote {
  const c = p as JWTPayload & Partial<VerifiedQuote>;
  const numbers = [c.amount, c.fee, c.additionalFee, c.feeTax, c.customerFee, c.merchantFee, c.totalAmount, c.getBalance];
  if (numbers.some((n) => typeof n !== 'number') || typeof c.method !== 'string' || typeof c.currency !== 'string' || typeof c.ruleId !== 'string' || typeof c.chargeFeeToCustomer !== 'boolean') {
    throw quoteError('QUOTE_INVALID', 'This quote lacks part of its calculation.');
  }
  return {
    quoteId: p.jti!,
    merchantId: p.sub!,
    issuedAt: new Date(p.iat! * 1000).toISOString(),
    expiresAt: new Date(p.exp! * 1000).toISOString(),
    method: c.method,
    amount: c.amount!,
    currency: c.currency,
    fee: c.fee!,
    additionalFee: c.additionalFee!,
    feeTax: c.feeTax!,
    customerFee: c.customerFee!,
    merchantFee: c.merchantFee!,
    totalAmount: c.totalAmount!,
    getBalance: c.getBalance!,
    chargeFeeToCustomer: c.chargeFeeToCustomer,
    ruleId: c.ruleId,
  };
}
