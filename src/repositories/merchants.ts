/** SQL for merchants and their API keys. Prepared once per connection. */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { apiKeys, merchants, type KeyMode, type KycStatus } from '../db/schema.js';

/** A merchant row. */
export interface MerchantRecord {
  id: string;
  name: string;
  kycStatus: KycStatus;
  createdAt: string;
}

/** What authentication needs about a key: its merchant, KYC and encrypted secret. */
export interface ActiveKeyRecord {
  keyId: string;
  mode: KeyMode;
  secretCiphertext: string;
  merchantId: string;
  merchantKyc: KycStatus;
}

/** An API key as listed (never with its secret). */
export interface ApiKeyRecord {
  id: string;
  merchantId: string;
  mode: KeyMode;
  createdAt: string;
  revokedAt: string | null;
}

export class MerchantRepository {
  readonly #byId;
  readonly #activeKey;

  constructor(private readonly db: Db) {
    this.#byId = db
      .select()
      .from(merchants)
      .where(eq(merchants.id, sql.placeholder('id')))
      .prepare();
    // Revoked keys are filtered in SQL so a revocation is effective on the next request.
    this.#activeKey = db
      .select({
        keyId: apiKeys.id,
        mode: apiKeys.mode,
        secretCiphertext: apiKeys.secretCiphertext,
        merchantId: merchants.id,
        merchantKyc: merchants.kycStatus,
      })
      .from(apiKeys)
      .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .where(and(eq(apiKeys.id, sql.placeholder('keyId')), isNull(apiKeys.revokedAt)))
      .prepare();
  }

  findById(id: string): MerchantRecord | undefined {
    return this.#byId.get({ id });
  }

  /** The key with this id if it exists and is not revoked. */
  findActiveKey(keyId: string): ActiveKeyRecord | undefined {
    return this.#activeKey.get({ keyId });
  }

  list(): MerchantRecord[] {
    return this.db.select().from(merchants).orderBy(asc(merchants.createdAt), asc(merchants.name)).all();
  }

  insert(merchant: { id: string; name: string; kycStatus: KycStatus }): void {
    this.db.insert(merchants).values(merchant).run();
  }

  insertKey(key: { id: string; merchantId: string; mode: KeyMode; secretCiphertext: string }): void {
    this.db.insert(apiKeys).values(key).run();
  }

  listKeys(merchantId: string): ApiKeyRecord[] {
    return this.db
      .select({ id: apiKeys.id, merchantId: apiKeys.merchantId, mode: apiKeys.mode, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.merchantId, merchantId))
      .orderBy(asc(apiKeys.createdAt))
      .all();
  }

  /** Any one stored key, to prove at boot that the master key decrypts secrets. */
  anyKey(): { id: string; secretCiphertext: string } | undefined {
    return this.db.select({ id: apiKeys.id, secretCiphertext: apiKeys.secretCiphertext }).from(apiKeys).limit(1).get();
  }

  count(): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(merchants).get()?.n ?? 0;
  }
}
