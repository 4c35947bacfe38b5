/**
 * Checkout sessions (contract §9): creation by a merchant's signed call, and authentication of the client
 * secret a browser presents instead of SVC1.
 *
 * Stateless (docs/SCALING.md, "Checkout sessions"): nothing is written per session. The client secret
 * carries the session's facts under a MAC (src/modules/auth/client-secret.ts); a session is alive while
 * its MAC verifies, it has not expired, and the API key that created it is still active in the in-memory
 * catalogue (so revoking the key ends its sessions on every replica within the propagation bound).
 */
import { AppError, invalidRequest } from '../../shared/errors.js';
import { parseDecimalText, scaleOf, toDecimalString } from '../../shared/money.js';
import type { Principal } from '../auth/principal.js';
import { ClientSecretCodec, ClientSecretError, MAX_CLIENT_SECRET_LENGTH, newSessionId, type SessionClaims } from '../auth/client-secret.js';
import type { ChannelService } from '../channels/service.js';
import { assertMerchantScope } from '../pricing/service.js';
import type { ActiveKeyRecord } from '../../storage/model/records.js';
import type { ChannelGroupValue, Locale } from '../../shared/vocabulary.js';

/** HKDF label of the session MAC key: its own purpose, never the key that encrypts API secrets. */
export const SESSION_KEY_LABEL = 'payment-gateway checkout-session client-secret v1';

/** Lifetime bounds (contract §9), seconds. */
export const SESSION_TTL = { min: 60, max: 86_400, default: 900 } as const;

/** Most channel codes one session may name (also bounds the client secret's size). */
export const MAX_SESSION_METHODS = 64;

/** A session creation request after GraphQL coercion (amount: canonical decimal text). */
export interface CreateSessionInput {
  merchantId?: string | null;
  amount: string;
  currency: string;
  methods?: readonly string[] | null;
  /** Contract §14: only channels of these groups (the intersection with `methods`). */
  groups?: readonly ChannelGroupValue[] | null;
  expiresInSeconds?: number | null;
  /** Contract §12: `id` or `en` (any case). */
  locale?: string | null;
}

/** The created session (contract §9's 201 answer). */
export interface CreatedSession {
  id: string;
  clientSecret: string;
  expiresAt: string;
  amount: string;
  currency: string;
  methods: string[];
  /** The session's language, null when none was given. */
  locale: Locale | null;
}

/** What the session service reads from the catalogue. */
export interface SessionCatalogue {
  findActiveKey(keyId: string): ActiveKeyRecord | undefined;
  /** Decimals of a known currency; undefined when the service does not know it. */
  minorUnitsOf(currency: string): number | undefined;
}

const CURRENCY = /^[A-Za-z]{3}$/;

/** A session's locale (contract §12): exactly `id` or `en`, any case; anything else names the field. */
function sessionLocale(text: string): Locale {
  const locale = text.trim().toLowerCase();
  if (locale === 'id' || locale === 'en') return locale;
  throw invalidRequest('locale', `locale must be "id" or "en", got ${JSON.stringify(text.slice(0, 40))}.`);
}

export class SessionService {
  readonly #codec: ClientSecretCodec;

  constructor(
    sessionKey: Buffer,
    private readonly catalogue: SessionCatalogue,
    private readonly channels: ChannelService,
    private readonly now: () => number = Date.now,
  ) {
    this.#codec = new ClientSecretCodec(sessionKey);
  }

  /** Validate and issue a session for the (SVC1-authenticated) caller. */
  create(principal: Principal, input: CreateSessionInput): CreatedSession {
    if (principal.session) throw new AppError('SESSION_SCOPE', 'A checkout session cannot create checkout sessions; create them with a signed call from your server.');
    assertMerchantScope(principal, input.merchantId);
    if (!CURRENCY.test(input.currency)) throw invalidRequest('currency', 'currency must be a three-letter ISO 4217 code, e.g. "IDR".');
    const currency = input.currency.toUpperCase();
    const minorUnits = this.catalogue.minorUnitsOf(currency);
    if (minorUnits === undefined) throw invalidRequest('currency', `currency ${currency} is not a currency this service settles.`);
    const amount = parseDecimalText(input.amount, 'amount');
    if (amount.lte(0)) throw invalidRequest('amount', 'amount must be greater than 0.');
    if (scaleOf(amount) > minorUnits) throw invalidRequest('amount', `amount has more decimals than ${currency} allows (${minorUnits}).`);
    if (input.methods != null && input.methods.length > MAX_SESSION_METHODS) throw invalidRequest('methods', `methods may name at most ${MAX_SESSION_METHODS} channels.`);
    const methods = this.channels.resolveMethods(principal, input.methods, input.groups);
    // A session no channel of which settles in its currency could never show a selectable channel.
    if (!methods.some((code) => this.channels.findForMerchant(principal, code)?.currency === currency)) {
      throw invalidRequest('currency', `none of the session's channels settles in ${currency}.`);
    }
    const ttl = input.expiresInSeconds ?? SESSION_TTL.default;
    if (!Number.isInteger(ttl) || ttl < SESSION_TTL.min || ttl > SESSION_TTL.max) {
      throw invalidRequest('expiresInSeconds', `expiresInSeconds must be an integer from ${SESSION_TTL.min} to ${SESSION_TTL.max}.`);
    }
    const locale = input.locale == null ? undefined : sessionLocale(input.locale);
    // Idempotent by the signed request (contract §9, amended 2026-11-25): the id and the expiry derive from the
    // verified signed request, and the client secret is a MAC over them, so a replay inside the skew window
    // returns the same session on every replica, with nothing stored, and spends no second budget (budgets and
    // stream slots are keyed by the session id). The lifetime counts from the signed timestamp, so a replay
    // cannot extend it. A caller without a signed request (none today) gets a random id.
    const signed = principal.signedRequest;
    const nowSeconds = Math.floor(this.now() / 1000);
    const expiresAt = (signed?.timestamp ?? nowSeconds) + ttl;
    if (expiresAt <= nowSeconds) {
      throw invalidRequest('expiresInSeconds', `the session would already have expired: expiresInSeconds counts from X-SERVICE-Timestamp (${signed?.timestamp}).`);
    }
    const id = signed ? this.#codec.idFor(principal.apiKeyId, signed.timestamp, signed.signature) : newSessionId();
    const claims: SessionClaims = { id, merchantId: principal.merchantId, apiKeyId: principal.apiKeyId, amount: toDecimalString(amount), currency, methods, expiresAt };
    if (locale !== undefined) claims.locale = locale;
    let clientSecret: string;
    try {
      clientSecret = this.#codec.issue(claims);
    } catch (err) {
      if (err instanceof RangeError) throw invalidRequest('methods', `too many methods for one session (the client secret would exceed ${MAX_CLIENT_SECRET_LENGTH} characters).`);
      throw err;
    }
    return { id: claims.id, clientSecret, expiresAt: new Date(expiresAt * 1000).toISOString(), amount: claims.amount, currency, methods, locale: locale ?? null };
  }

  /**
   * The claims of an authentic client secret, whatever its state (expired or revoked included), or
   * undefined when it is malformed or forged. For deciding CORS on a refusal: only an authentic secret
   * names a merchant whose origins may read the answer.
   */
  authenticClaims(clientSecret: string): SessionClaims | undefined {
    try {
      return this.#codec.verify(clientSecret);
    } catch (err) {
      if (err instanceof ClientSecretError) return undefined;
      throw err;
    }
  }

  /**
   * The principal of a live session. Order: authentic (SESSION_INVALID) → not expired (SESSION_EXPIRED) →
   * its creating key still active for its merchant (SESSION_INVALID).
   */
  principalOf(claims: SessionClaims | undefined): Principal {
    if (!claims) throw new AppError('SESSION_INVALID', 'The client secret is not a valid checkout session.');
    if (this.now() >= claims.expiresAt * 1000) {
      throw new AppError('SESSION_EXPIRED', `The checkout session expired at ${new Date(claims.expiresAt * 1000).toISOString()}; create a new one.`, { sessionId: claims.id });
    }
    const key = this.catalogue.findActiveKey(claims.apiKeyId);
    if (!key || key.merchantId !== claims.merchantId) throw new AppError('SESSION_INVALID', 'The checkout session has ended (its API key was revoked).', { sessionId: claims.id });
    return {
      apiKeyId: key.keyId,
      mode: key.mode,
      merchantId: key.merchantId,
      merchantKyc: key.merchantKyc,
      session: {
        id: claims.id,
        amount: claims.amount,
        amountValue: parseDecimalText(claims.amount, 'amount'),
        currency: claims.currency,
        methods: claims.methods,
        expiresAt: claims.expiresAt * 1000,
        // Only this service issues secrets, so a signed locale is one of LOCALES; checked anyway, cheaply.
        ...(claims.locale === 'id' || claims.locale === 'en' ? { locale: claims.locale } : {}),
      },
    };
  }
}
