/**
 * SQLite reads that feed the in-memory catalogue (src/db/catalog.ts): a full
 * load in one read transaction (a consistent snapshot), and the rows of the
 * entities named by new change-log rows. Synchronous, like better-sqlite3.
 */
import { asc, gt, inArray, max } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { entitiesOf, type CatalogRows, type ChangedEntities, type ChangeRow } from '../db/catalog.js';
import { apiKeys, changeLog, channels, currencies, merchantChannels, merchants } from '../db/schema.js';

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
        },
      }),
      { behavior: 'deferred' },
    );
  }

  /** Change-log rows after `seq`, in order. */
  changesSince(seq: number): ChangeRow[] {
    return this.db
      .select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId })
      .from(changeLog)
      .where(gt(changeLog.seq, seq))
      .orderBy(asc(changeLog.seq))
      .all();
  }

  /** Current rows of every entity the changes name (read after the changes, so never older than them). */
  loadChanged(changes: readonly ChangeRow[]): ChangedEntities {
    const ids = entitiesOf(changes);
    return this.db.transaction(
      (tx) => {
        const out: ChangedEntities = { merchants: new Map(), channels: new Map(), currencies: new Map() };
        if (ids.merchant.length > 0) {
          const ms = tx.select().from(merchants).where(inArray(merchants.id, ids.merchant)).all();
          const ks = tx.select().from(apiKeys).where(inArray(apiKeys.merchantId, ids.merchant)).all();
          const es = tx.select().from(merchantChannels).where(inArray(merchantChannels.merchantId, ids.merchant)).all();
          for (const id of ids.merchant) {
            out.merchants.set(id, {
              merchant: ms.find((m) => m.id === id),
              keys: ks.filter((k) => k.merchantId === id),
              enablements: es.filter((e) => e.merchantId === id),
            });
          }
        }
        if (ids.channel.length > 0) {
          const cs = tx.select().from(channels).where(inArray(channels.id, ids.channel)).all();
          for (const id of ids.channel) out.channels.set(id, cs.find((c) => c.id === id));
        }
        if (ids.currency.length > 0) {
          const cs = tx.select().from(currencies).where(inArray(currencies.code, ids.currency)).all();
          for (const code of ids.currency) out.currencies.set(code, cs.find((c) => c.code === code));
        }
        return out;
      },
      { behavior: 'deferred' },
    );
  }
}
