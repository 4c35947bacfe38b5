/**
 * What a fee quote states (contract §11) and how a token's text is judged, shared by the gateway that signs
 * and verifies it (src/modules/quotes) and the SDK that verifies it offline (src/client/quotes.ts): one
 * declaration, so the two can never disagree on a field, on which texts are quotes, or on what a refusal says.
 * Browser-safe (no Node APIs).
 */

/** The calculation a quote states, as on the REST wire (JSON numbers). */
export interface QuoteCalculation {
  method: string;
  amount: number;
  currency: string;
  fee: number;
  additionalFee: number;
  feeTax: number;
  customerFee: number;
  merchantFee: number;
  totalAmount: number;
  getBalance: number;
  chargeFeeToCustomer: boolean;
  ruleId: string;
}

/** A verified quote: its calculation, id and lifetime (ISO 8601 instants). */
export interface VerifiedQuote extends QuoteCalculation {
  quoteId: string;
  merchantId: string;
  issuedAt: string;
  expiresAt: string;
}

/** The base64url alphabet (RFC 4648 §5), in order: a character's index is its six bits. */
const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Text a lenient base64 decoder takes for one part (both alphabets, padding): anything else is no JWS. */
const BASE64ISH = /^[A-Za-z0-9_\-+/]*=*$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * True when `part` is the one text base64url gives its bytes (RFC 7515 §2: unpadded; RFC 4648 §3.5: the spare
 * bits of the last character are zero). No part of a quote is empty.
 */
function isCanonicalBase64url(part: string): boolean {
  if (!BASE64URL.test(part)) return false;
  const rest = part.length % 4;
  if (rest === 1) return false;
  if (rest === 0) return true;
  const last = BASE64URL_ALPHABET.indexOf(part[part.length - 1]!);
  // 2 characters carry 1 byte (4 spare bits), 3 carry 2 bytes (2 spare bits).
  return (last & (rest === 2 ? 0x0f : 0x03)) === 0;
}

/**
 * Why `token` cannot be a quote by its text alone, before any decoding: `ERR_JWS_INVALID` (not three parts of
 * base64-like text) or `NOT_CANONICAL` (another spelling of some bytes: padding, the standard alphabet, spare
 * bits set); undefined when every part is canonical base64url. One quote has exactly one text, so a merchant
 * that accepts each quote once may compare texts; JOSE libraries decode leniently, so this check
 * comes first, on the gateway and in the SDK alike.
 */
export function compactJwsProblem(token: string): 'ERR_JWS_INVALID' | 'NOT_CANONICAL' | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => p === '' || !BASE64ISH.test(p))) return 'ERR_JWS_INVALID';
  return parts.every(isCanonicalBase64url) ? undefined : 'NOT_CANONICAL';
}

/**
 * What is wrong with a token that is not a valid quote, in plain words, from the JOSE library's error code
 * (jose's `err.code`) or {@link compactJwsProblem}'s: the detail of `QUOTE_INVALID`. Never the code itself
 *: a client reads what to do, not the library's internals.
 */
export function quoteProblemOf(code: string): string {
  switch (code) {
    case 'NOT_CANONICAL':
      return 'This quote is not written as the gateway wrote it: each of its three parts must be unpadded base64url with no spare bits set (send the token exactly as received).';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'This is not a fee quote (not a JWS in compact serialisation with a JSON header and claims).';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return 'This is not a fee quote of this gateway: its header or claims are not those of a quote.';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'This quote is not signed with EdDSA (Ed25519), the only algorithm fee quotes use.';
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
    case 'ERR_JWKS_INVALID':
      return 'This quote was not signed by a key this gateway publishes (/.well-known/jwks.json).';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'This quote’s signature does not match its contents: it was changed after it was signed.';
    default:
      return 'This is not a valid fee quote of this gateway.';
  }
}
