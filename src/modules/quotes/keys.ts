/**
 * Fee quote signing keys (contract §11): Ed25519 key pairs, generated here with `jose` (WebCrypto), stored by
 * the storage door with the private part encrypted under the master key (src/modules/auth/secret-box.ts), the
 * key id as associated data, so a ciphertext copied onto another key's row does not decrypt.
 */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import type { SecretBox } from '../auth/secret-box.js';
import type { QuoteKeyRow } from '../../storage/model/rows.js';

/** The JWS algorithm of every quote (RFC 8037: EdDSA with an Ed25519 key). */
export const QUOTE_ALG = 'EdDSA';

/** A public key as published in the JWKS (RFC 7517). */
export interface PublicQuoteJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: typeof QUOTE_ALG;
  use: 'sig';
}

/** A new key id: `qk_` and 96 random bits (unique, and it tells an operator what it is). */
export function newQuoteKeyId(): string {
  return `qk_${randomBytes(12).toString('base64url')}`;
}

/** A fresh key pair, ready to store: the public JWK as JSON text, the private part (`d`) encrypted. */
export async function generateQuoteKey(secretBox: SecretBox): Promise<Pick<QuoteKeyRow, 'id' | 'publicJwk' | 'privateKeyCiphertext'>> {
  const id = newQuoteKeyId();
  const { privateKey } = await generateKeyPair(QUOTE_ALG, { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string' || typeof jwk.d !== 'string') throw new Error('generateQuoteKey: unexpected key shape');
  return {
    id,
    publicJwk: JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: jwk.x }),
    privateKeyCiphertext: secretBox.encrypt(id, jwk.d),
  };
}

/** The published form of a stored key. */
export function publicJwkOf(row: Pick<QuoteKeyRow, 'id' | 'publicJwk'>): PublicQuoteJwk {
  const { x } = JSON.parse(row.publicJwk) as { x: string };
  return { kty: 'OKP', crv: 'Ed25519', x, kid: row.id, alg: QUOTE_ALG, use: 'sig' };
}
