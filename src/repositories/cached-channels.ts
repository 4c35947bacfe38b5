/**
 * {@link ChannelRepository} with its per-merchant reads cached until the
 * database changes (any commit, from any process: src/db/data-version.ts).
 * The records are shared between requests and must be treated as read-only.
 */
import type { Db } from '../db/client.js';
import type { DataVersion } from '../db/data-version.js';
import { VersionedCache } from '../cache/versioned-cache.js';
import { ChannelRepository, type EffectiveChannelRecord } from './channels.js';

export class CachedChannelRepository extends ChannelRepository {
  readonly #lists: VersionedCache<string, EffectiveChannelRecord[]>;
  readonly #byCode: VersionedCache<string, EffectiveChannelRecord | null>;

  constructor(db: Db, version: DataVersion) {
    super(db);
    // At most 1,000 merchants and 200,000 records in total (a 10,000-channel catalogue is ~10 MB of records).
    this.#lists = new VersionedCache(version, 1_000, { weigh: (list) => list.length, max: 200_000 });
    this.#byCode = new VersionedCache(version, 20_000);
  }

  override listForMerchant(merchantId: string): EffectiveChannelRecord[] {
    return this.#lists.get(merchantId, () => super.listForMerchant(merchantId));
  }

  override findForMerchant(merchantId: string, code: string): EffectiveChannelRecord | undefined {
    // Misses are cached too (null), bounded by the cache size; the key is unambiguous since ids contain no "\n".
    return this.#byCode.get(`${merchantId}\n${code}`, () => super.findForMerchant(merchantId, code) ?? null) ?? undefined;
  }
}
