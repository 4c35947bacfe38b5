/** Generation of API key ids and secrets. */
import { randomBytes } from 'node:crypto';
import type { KeyMode } from '../../shared/vocabulary.js';

/** A freshly generated key pair; the secret exists in plaintext only here and in the one-time output. */
export interface GeneratedKey {
  apiKey: string;
  apiSecret: string;
}

/** `pk_<mode>_` + 128 random bits (hex); `sk_<mode>_` + 256 random bits (base64url). */
export function generateKey(mode: KeyMode): GeneratedKey {
  return {
    apiKey: `pk_${mode}_${randomBytes(16).toString('hex')}`,
    apiSecret: `sk_${mode}_${randomBytes(32).toString('base64url')}`,
  };
}
