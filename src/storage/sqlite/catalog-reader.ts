/**
 * SQLite reads that feed the in-memory catalogue (src/modules/catalogue/catalog.ts): a full
 * load in one read transaction (a consistent snapshot), and the rows of the
 * entities named by new change-log rows. Synchronous, like better-sqlite3.
 */
import { asc, gt, inArray, max } from 'drizzle-orm';
import type { Db } from './database.js';
import { assembleChanged, entitiesOf, type CatalogRows, type ChangedEntities, type ChangeRow } from '../model/catalogue-rows.js';
import { apiKeys, changeLog, channels, currencies, feeRules, merchantChannels, merchantOrigins, merchants, quoteKeys } from './schema.js';

export class SqliteCatalogReader {
  constructor(private readonly db: Db) {}

  /** Everything, and the change-log position it is consistent with. */
  loadAll(): { rows: CatalogRows; lastSeq: number } {
    return this.db.transaction(
      (tx) => ({
        lastSeq: tx.select({ m: max(changeLog.seq) }).from(changeLog).get()?.m ?? 0,
        rows: {
          currencies: tx.select().from(currencies).all(),
          merchants: tx.select().from(merchants).all(),
          apiKeys: tx.select().from(apiKeys).all(),
          channels: tx.select().from(channels).all(),
          merchantChannels: tx.select().from(merchantChannels).all(),
          merchantOrigins: tx.select().from(merchantOrigins).all(),
          feeRules: tx.select().from(feeRules).all(),
          quoteKeys: tx.select().from(quoteKeys).all(),
        },
      }),
      { behavior: 'deferred' },
    );
  }

  /** Change-log rows after `seq`, in order. */
  changesSince(seq: number): ChangeRow[] {
    return this.db
      .select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId, at: changeLog.at })
      .from(changeLog)
      .where(gt(changeLog.seq, seq))
      .orderBy(asc(changeLog.seq))
      .all();
  }

  /** Current rows of every entity the changes name (read after the changes, so never older than them). */
  loadChanged(changes: readonly ChangeRow[]): ChangedEntities {
    const ids = entitiesOf(changes);
    // No row has an empty id or code: the placeholder for a kind with no changes (`in ()` is not valid SQL).
    const none = [''];
    return this.db.transaction(
      (tx) =>
        assembleChanged(ids, {
          merchants: tx.select().from(merchants).where(inArray(merchants.id, ids.merchant.length ? ids.merchant : none)).all(),
          apiKeys: tx.select().from(apiKeys).where(inArray(apiKeys.merchantId, ids.merchant.length ? ids.merchant : none)).all(),
          merchantChannels: tx.select().from(merchantChannels).where(inArray(merchantChannels.merchantId, ids.merchant.length ? ids.merchant : none)).all(),
          merchantOrigins: tx.select().from(merchantOrigins).where(inArray(merchantOrigins.merchantId, ids.merchant.length ? ids.merchant : none)).all(),
          channels: tx.select().from(channels).where(inArray(channels.id, ids.channel.length ? ids.channel : none)).all(),
          feeRules: tx.select().from(feeRules).where(inArray(feeRules.channelId, ids.channel.length ? ids.channel : none)).all(),
          currencies: tx.select().from(currencies).where(inArray(currencies.code, ids.currency.length ? ids.currency : none)).all(),
          quoteKeys: ids.quote_key.length ? tx.select().from(quoteKeys).all() : [],
        }),
      { behavior: 'deferred' },
    );
  }
}
