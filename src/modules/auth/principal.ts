/** Who is calling: established by the signature plugin from a verified API key, read by every service. */
import type { KeyMode, KycStatus, Locale } from '../../shared/vocabulary.js';
import type { Big } from '../../shared/money.js';
import type { DataStamp } from '../../shared/versioned-cache.js';

export interface Principal {
  apiKeyId: string;
  mode: KeyMode;
  merchantId: string;
  /** The merchant's KYC at the time the key was verified (a subscription refreshes it per event). */
  merchantKyc: KycStatus;
  /**
   * The merchant's catalogue stamp as of the key's verification (superseded once anything the merchant could
   * see changes): an answer is kept for later requests only under it. Absent: nothing is kept for this caller.
   */
  merchantStamp?: DataStamp;
  /**
   * Set when the caller presented a checkout session's client secret (contract §9) instead of SVC1: the
   * session acts for `merchantId` only, read-only, within this scope (the services enforce it).
   */
  session?: SessionScope;
  /**
   * The SVC1-signed request this principal was verified from (absent for sessions): what makes a session
   * creation idempotent (contract §9: a replay of the same signed request returns the same session).
   */
  signedRequest?: SignedRequest;
}

/** The parts of a verified SVC1 request that identify it: the signature covers method, target, timestamp, key and body. */
export interface SignedRequest {
  /** X-SERVICE-Timestamp, Unix seconds. */
  timestamp: number;
  /** X-SERVICE-Signature, lower-case hex. */
  signature: string;
}

/** What a checkout session allows (contract §9). */
export interface SessionScope {
  /** `cs_…`; the only part of a session ever logged. */
  id: string;
  /** Exact decimal text: the only amount the session may list or price. */
  amount: string;
  /**
   * `amount` parsed, once per principal: a live page lists and prices against it at every change, and with
   * thousands of pages (each its own amount) a shared cache of parsed texts would be cleared before it helped.
   */
  amountValue: Big;
  /** ISO 4217, upper case: the only currency. */
  currency: string;
  /** Lower-case channel codes: the only channels listed or priced. */
  methods: readonly string[];
  /** Expiry, Unix ms. */
  expiresAt: number;
  /** Contract §12: the shopper's language, the default `locale` of the session's names; absent: none given. */
  locale?: Locale;
}
