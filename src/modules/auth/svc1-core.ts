/**
 * The SVC1 scheme itself (contract §3), with no platform dependency: the
 * header names, the five-line string to sign and the signature format. The
 * server (src/modules/auth/svc1.ts, node:crypto) and the browser/SDK signer
 * (src/client/svc1-web.ts, WebCrypto) both build on this module, so the
 * scheme is written down once.
 */

/** SHA-256 of the empty body, the last line for bodiless requests. */
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The three request headers, spelled as the contract spells them. */
export const SVC1_HEADERS = {
  apiKey: 'X-SERVICE-API-Key',
  timestamp: 'X-SERVICE-Timestamp',
  signature: 'X-SERVICE-Signature',
} as const;

/** The signed request line parts (the body enters as its SHA-256). */
export interface StringToSignParts {
  /** HTTP method; upper-cased before signing. */
  method: string;
  /** Request target exactly as sent: path plus `?query` if any. */
  target: string;
  /** `X-SERVICE-Timestamp` value, decimal Unix seconds. */
  timestamp: string;
  /** `X-SERVICE-API-Key` value. */
  apiKey: string;
}

/** The five-line string to sign (no trailing newline). */
export function buildStringToSign(parts: StringToSignParts, bodySha256: string): string {
  return [parts.method.toUpperCase(), parts.target, parts.timestamp, parts.apiKey, bodySha256].join('\n');
}

/** Unix time in seconds, the only accepted timestamp form. */
export function unixSeconds(nowMs: number = Date.now()): string {
  return String(Math.floor(nowMs / 1000));
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** True when `value` is exactly 64 hex characters (the only accepted signature form). */
export function isWellFormedSignature(value: string): boolean {
  return HEX64.test(value);
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}
