/**
 * Fee quotes (contract §11): a calculation signed by the gateway (JWS compact, EdDSA/Ed25519, `typ`
 * fee-quote+jwt, `kid` of the signing key), verifiable offline by anyone holding the published keys, and
 * honoured by {@link QuoteService.verify} until it expires whatever the pricing is by then.
 *
 * Keys come from the in-memory catalogue (every replica the same rows, src/modules/catalogue/catalog.ts): the
 * `signing` key signs; retired keys stay published (JWKS, verification) while a quote they signed may still
 * be valid. Signing happens only for requests that ask (GraphQL `FeeCalculation.quote` selected, REST
 * `"quote": true`); nothing else pays for it.
 *
 * A retired key is published by what it signed, never by this process's QUOTE_TTL_SECONDS (a restart
 * or a replica with a shorter TTL unpublished the keys of longer-lived quotes). Each key row carries
 * `maxTtlSeconds`, the longest TTL any server signed with it, and a server raises it to its own TTL, durably,
 * before its first signature with that key ({@link QuoteServiceOptions.recordTtl}; one write per server and
 * key, none per signature). Every quote of a key then expires by `retiredAt` + `maxTtlSeconds` (+ the
 * propagation bound, inside {@link RETIRED_KEY_MARGIN_SECONDS}), whichever server signed it with whatever TTL,
 * and the key stays published until then. Why not the exact latest `exp` per key: a write per signature; why
 * not each server's TTL at start only: a key made by a later rotation would have no record of it.
 */
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, errors as joseErrors, importJWK, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { AppError } from '../../shared/errors.js';
import { compactJwsProblem, quoteProblemOf } from '../../shared/quote-claims.js';
import { assertMerchantScope } from '../pricing/service.js';
import type { Principal } from '../auth/principal.js';
import type { SecretBox } from '../auth/secret-box.js';
import type { QuoteKeyRow } from '../../storage/model/rows.js';
import { publicJwkOf, QUOTE_ALG, type PublicQuoteJwk } from './keys.js';
import type { FeeCalculationModel } from '../pricing/service.js';
import type { QuoteCalculation, VerifiedQuote } from '../../shared/quote-claims.js';

/** Lifetime bounds of a quote (contract §11, `QUOTE_TTL_SECONDS`), seconds. */
export const QUOTE_TTL = { min: 60, max: 86_400, default: 900 } as const;

/** The JWS `typ` header of a quote. */
export const QUOTE_TYP = 'fee-quote+jwt';

/**
 * How long past `retiredAt + maxTtlSeconds` a retired key stays published, seconds: a replica may still sign
 * with the old key until it applies the rotation (the 1 s propagation bound), and replicas' clocks differ a
 * little.
 */
export const RETIRED_KEY_MARGIN_SECONDS = 60;

/** The longest TTL a key signed with, seconds: its recorded one, or (a key older than the record) the largest allowed. */
export function maxTtlOf(row: Pick<QuoteKeyRow, 'maxTtlSeconds'>): number {
  return row.maxTtlSeconds ?? QUOTE_TTL.max;
}

/** Until when (ms) a retired key stays published: its last quote's latest expiry plus the margin. */
export function publishedUntilOf(row: Pick<QuoteKeyRow, 'retiredAt' | 'maxTtlSeconds'>): number {
  if (row.retiredAt === null) return Number.POSITIVE_INFINITY;
  return Date.parse(row.retiredAt) + (maxTtlOf(row) + RETIRED_KEY_MARGIN_SECONDS) * 1000;
}

/** Longest token {@link QuoteService.verify} looks at (a real quote is ~700 characters). */
export const MAX_QUOTE_LENGTH = 4096;

/** What {@link QuoteService} reads from the catalogue. */
export interface QuoteKeySource {
  quoteKeys(): readonly QuoteKeyRow[];
}

/** A quote as GraphQL's `FeeQuote` and REST's `quote`/`quoteExpiresAt` show it. */
export interface IssuedQuote {
  token: string;
  /** `qt_…`, the JWT `jti`. */
  id: string;
  /** ISO 8601 UTC instant (the JWT `exp`). */
  expiresAt: string;
}

export type { QuoteCalculation, VerifiedQuote } from '../../shared/quote-claims.js';

export interface QuoteServiceOptions {
  /** `iss` of every quote: the gateway's public base URL (a function: a server learns its port when it listens). */
  issuer: () => string;
  /** QUOTE_TTL_SECONDS. */
  ttlSeconds: number;
  /**
   * Durably raise a key's `maxTtlSeconds` to (at least) `ttlSeconds` (the storage's `raiseQuoteKeyMaxTtl`): awaited
   * before this process's first signature with a key whose row records less (module comment).
   */
  recordTtl: (keyId: string, ttlSeconds: number) => Promise<void>;
  now?: () => number;
}

const CALCULATION_NUMBERS = ['amount', 'fee', 'additionalFee', 'feeTax', 'customerFee', 'merchantFee', 'totalAmount', 'getBalance'] as const;

function invalid(message: string): AppError {
  return new AppError('QUOTE_INVALID', message, { field: 'quote' });
}

/**
 * QUOTE_INVALID in plain words for a JOSE library's failure: never the library's own code or message (issue
 * 42: `ERR_JWKS_NO_MATCHING_KEY` reached clients), which name its internals, not the caller's mistake.
 */
function invalidOf(err: InstanceType<typeof joseErrors.JOSEError>): AppError {
  return invalid(quoteProblemOf(err.code));
}

export class QuoteService {
  readonly #now: () => number;
  /** kid → its imported private key. Bounded by the stored keys (operator-made, never client input); pruned on rotation. */
  readonly #signingKeys = new Map<string, Promise<CryptoKey | Uint8Array>>();
  /** Keys whose `maxTtlSeconds` this process raised to its TTL (their rows may not show it yet), or is raising. */
  readonly #recorded = new Map<string, Promise<void> | true>();
  /** The published key set, rebuilt when the catalogue's key list changes or a retired key's window closes. */
  #published: { rows: readonly QuoteKeyRow[]; until: number; jwks: { keys: PublicQuoteJwk[] }; verifier: ReturnType<typeof createLocalJWKSet> } | undefined;

  constructor(
    private readonly keys: QuoteKeySource,
    private readonly secretBox: SecretBox,
    private readonly options: QuoteServiceOptions,
  ) {
    if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds < QUOTE_TTL.min || options.ttlSeconds > QUOTE_TTL.max) {
      throw new Error(`QuoteService: ttlSeconds must be an integer from ${QUOTE_TTL.min} to ${QUOTE_TTL.max}`);
    }
    this.#now = options.now ?? Date.now;
  }

  /** Sign `calculation` for the caller's merchant; a checkout session's quote expires with the session at the latest. */
  async issue(principal: Principal, calculation: FeeCalculationModel): Promise<IssuedQuote> {
    const row = this.keys.quoteKeys().find((k) => k.state === 'signing');
    if (!row) throw new AppError('SERVICE_UNAVAILABLE', 'No quote signing key exists yet (the first start creates one; run `npm run migrate` or start with MIGRATE_ON_START=true).');
    const recording = this.#recordTtl(row);
    if (recording) await recording;
    const key = await this.#privateKey(row);
    const iat = Math.floor(this.#now() / 1000);
    let exp = iat + this.options.ttlSeconds;
    if (principal.session) exp = Math.min(exp, Math.floor(principal.session.expiresAt / 1000));
    const id = `qt_${randomBytes(16).toString('base64url')}`;
    const claims: QuoteCalculation = {
      method: calculation.method,
      amount: Number(calculation.amount),
      currency: calculation.currency,
      fee: Number(calculation.fee),
      additionalFee: Number(calculation.additionalFee),
      feeTax: Number(calculation.feeTax),
      customerFee: Number(calculation.customerFee),
      merchantFee: Number(calculation.merchantFee),
      totalAmount: Number(calculation.totalAmount),
      getBalance: Number(calculation.getBalance),
      chargeFeeToCustomer: calculation.feeChargedToCustomer,
      ruleId: calculation.breakdown.pricing.ruleId,
    };
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: QUOTE_ALG, kid: row.id, typ: QUOTE_TYP })
      .setIssuer(this.options.issuer())
      .setSubject(principal.merchantId)
      .setJti(id)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(key);
    return { token, id, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /**
   * The quote's calculation if `token` is a quote this gateway signed for the caller's merchant and it has
   * not expired. Checks, in order: a signed caller (a session: SESSION_SCOPE) → `merchantId`, when given, is
   * the caller's (MERCHANT_MISMATCH, contract §5) → length → the one canonical text → signature with a
   * published key → merchant → expiry; so a forged, respelled or foreign token is QUOTE_INVALID even when its
   * `exp` has passed, and only a genuine one is QUOTE_EXPIRED.
   */
  async verify(principal: Principal, token: string, merchantId?: string | null): Promise<VerifiedQuote> {
    // Quotes are verified by the merchant's server (a signed call), never by a shopper's page: the pipeline
    // refuses a session's document before it executes (use-rate-limit.ts); this holds whoever calls.
    if (principal.session) throw new AppError('SESSION_SCOPE', 'A checkout session cannot verify quotes: verify them on your server, with a signed call or offline with the published keys.');
    assertMerchantScope(principal, merchantId);
    if (token.length > MAX_QUOTE_LENGTH) throw invalid(`A quote is at most ${MAX_QUOTE_LENGTH} characters.`);
    // One spelling per token: jose, like most JOSE libraries, decodes base64url leniently (padding,
    // non-zero spare bits), so one quote had several texts and a merchant de-duplicating by text was fooled.
    const malformed = compactJwsProblem(token);
    if (malformed) throw invalid(quoteProblemOf(malformed));
    const now = this.#now();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#publishedSet(now).verifier, {
        algorithms: [QUOTE_ALG],
        typ: QUOTE_TYP,
        currentDate: new Date(now),
        requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) {
        // The signature verified before the expiry was judged (jose checks claims after the signature), but the
        // merchant must match too: someone else's expired quote is still not the caller's.
        if (err.payload.sub !== principal.merchantId) throw invalid('This quote was not issued to this merchant.');
        throw new AppError('QUOTE_EXPIRED', `This quote expired at ${new Date(Number(err.payload.exp) * 1000).toISOString()}; ask for a new one.`, {
          field: 'quote',
          expiresAt: new Date(Number(err.payload.exp) * 1000).toISOString(),
        });
      }
      if (err instanceof joseErrors.JOSEError) throw invalidOf(err);
      throw err;
    }
    if (payload.sub !== principal.merchantId) throw invalid('This quote was not issued to this merchant.');
    return verifiedOf(payload);
  }

  /** The JWKS document (contract §11): the signing key and every retired key whose quotes may still be valid. */
  jwks(): { keys: PublicQuoteJwk[] } {
    return this.#publishedSet(this.#now()).jwks;
  }

  #publishedSet(now: number) {
    const rows = this.keys.quoteKeys();
    const current = this.#published;
    if (current && current.rows === rows && now < current.until) return current;
    let until = Number.POSITIVE_INFINITY;
    const published = rows.filter((k) => {
      if (k.state === 'signing' || k.retiredAt === null) return true;
      // By what the key signed (its recorded longest TTL), whatever this process's TTL is (module comment).
      const closes = publishedUntilOf(k);
      if (closes > now) until = Math.min(until, closes);
      return closes > now;
    });
    // Signing key first, then the newest retired ones.
    published.sort((a, b) => (a.state === b.state ? (a.createdAt < b.createdAt ? 1 : -1) : a.state === 'signing' ? -1 : 1));
    const jwks = { keys: published.map(publicJwkOf) };
    for (const kid of this.#signingKeys.keys()) if (!rows.some((r) => r.id === kid && r.state === 'signing')) this.#signingKeys.delete(kid);
    for (const kid of this.#recorded.keys()) if (!rows.some((r) => r.id === kid && r.state === 'signing')) this.#recorded.delete(kid);
    this.#published = { rows, until, jwks, verifier: createLocalJWKSet(jwks) };
    return this.#published;
  }

  /**
   * Undefined when `row` already covers this process's TTL (the usual case: no wait); else the write that
   * raises it, shared by concurrent signers. A failed write is not kept (the next signature tries again) and
   * fails the signature: a quote the key's record does not cover could outlive the key's publication. (With
   * the database unreachable, only a server's first signatures with a key wait for it; later ones never do.)
   */
  #recordTtl(row: QuoteKeyRow): Promise<void> | undefined {
    const ttl = this.options.ttlSeconds;
    if (maxTtlOf(row) >= ttl) return undefined;
    const known = this.#recorded.get(row.id);
    if (known === true) return undefined;
    if (known) return known;
    const writing = this.options.recordTtl(row.id, ttl).then(
      () => {
        // Bounded by the stored keys, like #signingKeys; dropped with them on rotation.
        this.#recorded.set(row.id, true);
      },
      (err: unknown) => {
        this.#recorded.delete(row.id);
        // As any failed write: a database that cannot be reached answers 503, anything else is masked and logged.
        throw err;
      },
    );
    this.#recorded.set(row.id, writing);
    return writing;
  }

  #privateKey(row: QuoteKeyRow): Promise<CryptoKey | Uint8Array> {
    let key = this.#signingKeys.get(row.id);
    if (!key) {
      const d = this.secretBox.decrypt(row.id, row.privateKeyCiphertext);
      const { x } = JSON.parse(row.publicJwk) as { x: string };
      key = importJWK({ kty: 'OKP', crv: 'Ed25519', x, d }, QUOTE_ALG);
      // A failed import is not kept (the next request retries); the caller still gets the rejection.
      key.catch(() => this.#signingKeys.delete(row.id));
      this.#signingKeys.set(row.id, key);
    }
    return key;
  }
}

/** The calculation of a verified payload (signed by this gateway, so its shape is ours; still checked). */
function verifiedOf(payload: JWTPayload): VerifiedQuote {
  const p = payload as JWTPayload & Record<string, unknown>;
  for (const name of CALCULATION_NUMBERS) if (typeof p[name] !== 'number') throw invalid(`This quote lacks its ${name}.`);
  if (typeof p.method !== 'string' || typeof p.currency !== 'string' || typeof p.ruleId !== 'string' || typeof p.chargeFeeToCustomer !== 'boolean') {
    throw invalid('This quote lacks part of its calculation.');
  }
  return {
    quoteId: p.jti!,
    merchantId: p.sub!,
    issuedAt: new Date(p.iat! * 1000).toISOString(),
    expiresAt: new Date(p.exp! * 1000).toISOString(),
    method: p.method,
    amount: p.amount as number,
    currency: p.currency,
    fee: p.fee as number,
    additionalFee: p.additionalFee as number,
    feeTax: p.feeTax as number,
    customerFee: p.customerFee as number,
    merchantFee: p.merchantFee as number,
    totalAmount: p.totalAmount as number,
    getBalance: p.getBalance as number,
    chargeFeeToCustomer: p.chargeFeeToCustomer,
    ruleId: p.ruleId,
  };
}
