/**
 * SVC1 signing with WebCrypto (`crypto.subtle`), so the same code signs in
 * browsers (the GraphiQL page bundles this file) and in Node ≥ 20 (the SDK).
 * The scheme's layout comes from src/modules/auth/svc1-core.ts.
 */
import { buildStringToSign, EMPTY_BODY_SHA256, SVC1_HEADERS, toHex, unixSeconds } from '../modules/auth/svc1-core.js';

/** What to sign. */
export interface WebSignInput {
  method: string;
  /** Path plus `?query`, exactly as it will be sent. */
  target: string;
  /** The exact body bytes that will be sent (a string is sent and hashed as UTF-8). */
  body?: Uint8Array | string | null;
  apiKey: string;
  apiSecret: string;
  /** Unix seconds; default now. */
  timestamp?: string;
}

/** A signed request's headers and the intermediate values (for debugging). */
export interface WebSignature {
  headers: Record<string, string>;
  stringToSign: string;
  bodySha256: string;
  signature: string;
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error('SVC1 signing needs WebCrypto (crypto.subtle): a secure context in browsers (https or localhost), Node >= 20.');
  return s;
}

const encoder = new TextEncoder();

/** Lower-case hex SHA-256 of the body bytes (the empty-body constant for none). */
export async function sha256HexWeb(body: Uint8Array | string | null | undefined): Promise<string> {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  if (!bytes || bytes.byteLength === 0) return EMPTY_BODY_SHA256;
  return toHex(new Uint8Array(await subtle().digest('SHA-256', bytes as BufferSource)));
}

/** hex(HMAC-SHA256(utf8(secret), stringToSign)). */
export async function hmacHexWeb(secret: string, stringToSign: string): Promise<string> {
  const key = await subtle().importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return toHex(new Uint8Array(await subtle().sign('HMAC', key, encoder.encode(stringToSign))));
}

/** Sign one request per SVC1 and return the three headers. */
export async function signRequestWeb(input: WebSignInput): Promise<WebSignature> {
  const timestamp = input.timestamp ?? unixSeconds();
  const bodySha256 = await sha256HexWeb(input.body);
  const stringToSign = buildStringToSign({ method: input.method, target: input.target, timestamp, apiKey: input.apiKey }, bodySha256);
  const signature = await hmacHexWeb(input.apiSecret, stringToSign);
  return {
    headers: { [SVC1_HEADERS.apiKey]: input.apiKey, [SVC1_HEADERS.timestamp]: timestamp, [SVC1_HEADERS.signature]: signature },
    stringToSign,
    bodySha256,
    signature,
  };
}
