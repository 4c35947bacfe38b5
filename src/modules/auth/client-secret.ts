/**
 * Checkout session client secrets (contract §9): stateless, MAC'd tokens.
 *
 *   clientSecret = <id> "_secret_" base64url( payload ‖ HMAC-SHA256(sessionKey, "cs1\n" ‖ id ‖ "\n" ‖ payload) )
 *   id           = "cs_" + 32 lower-case hex (128 bits: of an HMAC of the signed creation request, sessionIdFor)
 *
 * The payload holds the session's facts (expiry, merchant, creating API key, exact amount, currency,
 * methods, and since contract §12 the shopper's locale: payload version 2; version 1, without it, stays valid), so verification needs no database and no shared state: every replica verifies every session at
 * once and across restarts. The session key is derived once from the master key with HKDF under its own
 * label (src/modules/auth/secret-box.ts), so it is never the key that encrypts API secrets; rotating the
 * master key ends every session.
 *
 * Invariants:
 * - Parse work is bounded: a secret longer than {@link MAX_CLIENT_SECRET_LENGTH} is refused before any decoding.
 * - Exactly one text encodes a token: the id is lower-case hex, and the base64url part must re-encode to
 *   itself (no padding, no non-canonical trailing bits), so any change to the text is a different MAC input
 *   or an unparseable token, never an accepted alias.
 * - The MAC is compared in constant time (timingSafeEqual over equal lengths).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Longest client secret accepted (checked before decoding) and produced. */
export const MAX_CLIENT_SECRET_LENGTH = 1024;

const MAC_BYTES = 32;
/** Payload versions: 1 without a locale (secrets issued before contract §12 and sessions without one), 2 with one. */
const VERSION = 1;
const VERSION_WITH_LOCALE = 2;
const SEPARATOR = '_secret_';
const ID = /^cs_[0-9a-f]{32}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** The id is fixed-length, so the separator's position is too. */
const ID_LENGTH = 35;

/** The facts a client secret carries. */
export interface SessionClaims {
  /** `cs_` + 32 hex characters. */
  id: string;
  merchantId: string;
  /** The API key that created the session; the session lives only while that key is active. */
  apiKeyId: string;
  /** Exact decimal text (canonical), in the currency's major unit. */
  amount: string;
  /** ISO 4217, upper case. */
  currency: string;
  /** Lower-case channel codes. */
  methods: readonly string[];
  /** Expiry instant, whole Unix seconds. */
  expiresAt: number;
  /** Contract §12: the shopper's language (`id`/`en`), signed with the rest; absent: none was given. */
  locale?: string;
}

/** Why a secret was refused (all of them are SESSION_INVALID for the client). */
export class ClientSecretError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ClientSecretError';
  }
}

/**
 * The session id of one signed creation request: `cs_` + the first 128 bits of an HMAC, under the session
 * key, of the creating key, the signed timestamp and the request's signature (which covers method, target,
 * timestamp, key and body hash). The same signed request (a replay) gets the same id on every replica; two
 * different signed requests differ in their signature and so get different ids; without the session key the
 * id is unpredictable. Domain-separated from the client secret's MAC by its prefix (`cs1-id` vs `cs1`).
 */
export function sessionIdFor(sessionKey: Buffer, apiKeyId: string, timestamp: number, signature: string): string {
  const mac = createHmac('sha256', sessionKey).update(`cs1-id\n${apiKeyId}\n${timestamp}\n${signature}`, 'utf8').digest('hex');
  return `cs_${mac.slice(0, 32)}`;
}

/** A fresh session id: 128 random bits. */
export function newSessionId(): string {
  return `cs_${randomBytes(16).toString('hex')}`;
}

class Writer {
  readonly #parts: Buffer[] = [];
  byte(n: number): void {
    this.#parts.push(Buffer.from([n]));
  }
  uint32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    this.#parts.push(b);
  }
  text(s: string): void {
    const b = Buffer.from(s, 'utf8');
    if (b.length > 255) throw new Error('client secret field longer than 255 bytes');
    this.byte(b.length);
    this.#parts.push(b);
  }
  bytes(): Buffer {
    return Buffer.concat(this.#parts);
  }
}

/** Strict UTF-8 (a field that is not is malformed); one decoder for all: `decode` without `stream` keeps no state. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  #at = 0;
  constructor(private readonly buf: Buffer) {}
  byte(): number {
    if (this.#at + 1 > this.buf.length) throw new ClientSecretError('truncated');
    return this.buf[this.#at++]!;
  }
  uint32(): number {
    if (this.#at + 4 > this.buf.length) throw new ClientSecretError('truncated');
    const n = this.buf.readUInt32BE(this.#at);
    this.#at += 4;
    return n;
  }
  text(): string {
    const len = this.byte();
    if (this.#at + len > this.buf.length) throw new ClientSecretError('truncated');
    const s = UTF8.decode(this.buf.subarray(this.#at, this.#at + len));
    this.#at += len;
    return s;
  }
  get done(): boolean {
    return this.#at === this.buf.length;
  }
}

function encodePayload(c: SessionClaims): Buffer {
  const w = new Writer();
  // A session without a locale keeps the version-1 payload byte for byte, so a secret's text does not
  // depend on which release issued it.
  w.byte(c.locale === undefined ? VERSION : VERSION_WITH_LOCALE);
  w.uint32(c.expiresAt);
  w.text(c.merchantId);
  w.text(c.apiKeyId);
  w.text(c.amount);
  w.text(c.currency);
  if (c.methods.length > 255) throw new Error('too many methods for a client secret');
  w.byte(c.methods.length);
  for (const m of c.methods) w.text(m);
  if (c.locale !== undefined) w.text(c.locale);
  return w.bytes();
}

function decodePayload(id: string, payload: Buffer): SessionClaims {
  const r = new Reader(payload);
  const version = r.byte();
  if (version !== VERSION && version !== VERSION_WITH_LOCALE) throw new ClientSecretError('unknown version');
  const expiresAt = r.uint32();
  const merchantId = r.text();
  const apiKeyId = r.text();
  const amount = r.text();
  const currency = r.text();
  const count = r.byte();
  const methods: string[] = [];
  for (let i = 0; i < count; i++) methods.push(r.text());
  const locale = version === VERSION_WITH_LOCALE ? r.text() : undefined;
  if (!r.done) throw new ClientSecretError('trailing bytes');
  return locale === undefined ? { id, merchantId, apiKeyId, amount, currency, methods, expiresAt } : { id, merchantId, apiKeyId, amount, currency, methods, expiresAt, locale };
}

/** Issues and verifies client secrets under one session key. */
export class ClientSecretCodec {
  readonly #key: Buffer;

  /** `sessionKey`: 32 bytes derived from the master key for this purpose only. */
  constructor(sessionKey: Buffer) {
    if (sessionKey.length !== 32) throw new Error('session key must be 32 bytes');
    this.#key = Buffer.from(sessionKey);
  }

  /** {@link sessionIdFor} under this codec's session key. */
  idFor(apiKeyId: string, timestamp: number, signature: string): string {
    return sessionIdFor(this.#key, apiKeyId, timestamp, signature);
  }

  #mac(id: string, payload: Buffer): Buffer {
    return createHmac('sha256', this.#key).update(`cs1\n${id}\n`, 'utf8').update(payload).digest();
  }

  /** The client secret of these claims; throws when it would exceed {@link MAX_CLIENT_SECRET_LENGTH}. */
  issue(claims: SessionClaims): string {
    if (!ID.test(claims.id)) throw new Error('session id must be cs_ + 32 hex characters');
    const payload = encodePayload(claims);
    const secret = `${claims.id}${SEPARATOR}${Buffer.concat([payload, this.#mac(claims.id, payload)]).toString('base64url')}`;
    if (secret.length > MAX_CLIENT_SECRET_LENGTH) throw new RangeError('client secret too long');
    return secret;
  }

  /** The claims of an authentic secret (expiry not judged here); throws {@link ClientSecretError} otherwise. */
  verify(secret: string): SessionClaims {
    if (secret.length > MAX_CLIENT_SECRET_LENGTH) throw new ClientSecretError('too long');
    const id = secret.slice(0, ID_LENGTH);
    if (!ID.test(id) || secret.slice(ID_LENGTH, ID_LENGTH + SEPARATOR.length) !== SEPARATOR) throw new ClientSecretError('malformed');
    const tail = secret.slice(ID_LENGTH + SEPARATOR.length);
    if (!BASE64URL.test(tail)) throw new ClientSecretError('malformed');
    const raw = Buffer.from(tail, 'base64url');
    if (raw.toString('base64url') !== tail || raw.length <= MAC_BYTES) throw new ClientSecretError('malformed');
    const payload = raw.subarray(0, raw.length - MAC_BYTES);
    const presented = raw.subarray(raw.length - MAC_BYTES);
    if (!timingSafeEqual(presented, this.#mac(id, payload))) throw new ClientSecretError('forged');
    return decodePayload(id, payload);
  }
}
