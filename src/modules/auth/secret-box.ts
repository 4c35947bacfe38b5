/**
 * Encryption of API secrets at rest: AES-256-GCM under the master key, a
 * fresh 96-bit nonce per secret, the key id bound as associated data (so a
 * ciphertext copied onto another key's row does not decrypt).
 *
 * Stored form: base64(nonce[12] ‖ tag[16] ‖ ciphertext).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Name of the generated master key file inside DATA_DIR. */
export const MASTER_KEY_FILE = 'master.key';

/** Raised when a stored secret cannot be decrypted: wrong master key or tampered row. */
export class SecretDecryptionError extends Error {
  constructor(keyId: string) {
    super(`cannot decrypt the secret of API key ${keyId}: wrong MASTER_KEY / master.key, or the row was tampered with`);
    this.name = 'SecretDecryptionError';
  }
}

/** Encrypts and decrypts API secrets with one master key. */
export class SecretBox {
  readonly #key: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
    this.#key = Buffer.from(masterKey);
  }

  encrypt(keyId: string, secret: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    cipher.setAAD(Buffer.from(keyId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  /**
   * A 32-byte key for another purpose, derived from the master key with HKDF-SHA256 under `label` (each
   * purpose its own label, so no derived key equals the master key or another purpose's key).
   */
  deriveKey(label: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#key, Buffer.alloc(0), Buffer.from(label, 'utf8'), 32));
  }

  decrypt(keyId: string, stored: string): string {
    const raw = Buffer.from(stored, 'base64');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new SecretDecryptionError(keyId);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(keyId, 'utf8'));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      // GCM authentication failure carries no detail worth keeping; the typed error says what it means.
      throw new SecretDecryptionError(keyId);
    }
  }
}

/**
 * The master key for the embedded default: `<dataDir>/master.key` (64 hex
 * characters, mode 0600), generated on first use. A configured key wins.
 */
export function loadOrCreateMasterKey(dataDir: string, configured: Buffer | null): { key: Buffer; source: string } {
  if (configured) return { key: configured, source: 'MASTER_KEY' };
  const file = path.join(dataDir, MASTER_KEY_FILE);
  if (fs.existsSync(file)) {
    const text = fs.readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${file} does not hold a 64-hex-character key`);
    return { key: Buffer.from(text, 'hex'), source: file };
  }
  const key = randomBytes(32);
  // 'wx' fails if another process created the file meanwhile: never overwrite a key.
  fs.writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return { key, source: file };
}
