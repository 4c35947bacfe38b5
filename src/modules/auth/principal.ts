/** Who is calling: established by the signature plugin from a verified API key, read by every service. */
import type { KeyMode, KycStatus } from '../../shared/vocabulary.js';

export interface Principal {
  apiKeyId: string;
  mode: KeyMode;
  merchantId: string;
  /** The merchant's KYC at the time the key was verified (a subscription refreshes it per event). */
  merchantKyc: KycStatus;
}
