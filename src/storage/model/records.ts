/** Merchant and API key records as the service and the admin CLI see them (either engine). */
import type { KeyMode, KycStatus } from '../../shared/vocabulary.js';
import type { DataStamp } from '../../shared/versioned-cache.js';

/** A merchant row. */
export interface MerchantRecord {
  id: string;
  name: string;
  kycStatus: KycStatus;
  createdAt: string;
  /** Pricing category (contract §7), default `regular`. */
  category: string;
  /** Contract §12: JSON array of the channel codes the merchant lists first; null: the default order. */
  channelOrder: string | null;
}

/** What authentication needs about a key: its merchant, KYC and encrypted secret. */
export interface ActiveKeyRecord {
  keyId: string;
  mode: KeyMode;
  secretCiphertext: string;
  merchantId: string;
  merchantKyc: KycStatus;
  /** Superseded once anything the merchant could see changes: what caches about this merchant are kept under. */
  merchantStamp: DataStamp;
}

/** An API key as listed (never with its secret). */
export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: KeyMode;
  createdAt: string;
  revokedAt: string | null;
}
