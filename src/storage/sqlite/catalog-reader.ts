/**
 * SQLite reads that feed the in-memory catalogue (src/modules/catalogue/catalog.ts): a full
 * load in one read transaction (a consistent snapshot), read page by page (keyset pagination: each
 * statement reads at most {@link LOAD_PAGE} rows, whatever the number of merchants), and the rows of the
 * entities named by new change-log rows, read a slice at a time. Synchronous, like better-sqlite3.
 */
import { and, asc, eq, gt, inArray, isNull, lte, max, min, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type Database from 'better-sqlite3';
import type { Db } from './database.js';
import { assembleChanged, chunked, entitiesOf, LOAD_PAGE, type ApiKeyRow, type ChangedEntities, type ChangeRow, type FeeRuleRow, type LogPosition, type MerchantChannelRow, type MerchantOriginRow, type MerchantRow } from '../model/catalogue-rows.js';
import type { CatalogueLoad } from '../model/store.js';
import { apiKeys, changeLog, channels, currencies, feeRules, merchantChannels, merchantOrigins, merchants, quoteKeys } from './schema.js';

/** Read `read` page by page, handing each page to `add`; `read(after)` returns the page after that row. */
function pages<R>(read: (after: R | undefined) => R[], add: (rows: R[]) => void): void {
  let after: R | undefined;
  for (;;) {
    const rows = read(after);
    if (rows.length > 0) add(rows);
    if (rows.length < LOAD_PAGE) return;
    after = rows[rows.length - 1];
  }
}

export class SqliteCatalogReader {
  constructor(private readonly db: Db) {}

  /** Everything, into `load` (not committed), and the change-log position it is consistent with. */
  loadAll(load: CatalogueLoad): LogPosition {
    return this.db.transaction(
      (tx) => {
        const position = this.#position(tx);
        load.add({ currencies: tx.select().from(currencies).all(), channels: tx.select().from(channels).all(), quoteKeys: tx.select().from(quoteKeys).all() });
        pages<FeeRuleRow>((a) => tx.select().from(feeRules).where(a ? gt(feeRules.id, a.id) : undefined).orderBy(asc(feeRules.id)).limit(LOAD_PAGE).all(), (feeRules) => load.add({ feeRules }));
        pages<MerchantRow>((a) => tx.select().from(merchants).where(a ? gt(merchants.id, a.id) : undefined).orderBy(asc(merchants.id)).limit(LOAD_PAGE).all(), (merchants) => load.add({ merchants }));
        pages<ApiKeyRow>((a) => tx.select().from(apiKeys).where(a ? gt(apiKeys.id, a.id) : undefined).orderBy(asc(apiKeys.id)).limit(LOAD_PAGE).all(), (apiKeys) => load.add({ apiKeys }));
        pages<MerchantChannelRow>(
          (a) =>
            tx
              .select()
              .from(merchantChannels)
              .where(a ? after2(merchantChannels.merchantId, merchantChannels.channelId, a.merchantId, a.channelId) : undefined)
              .orderBy(asc(merchantChannels.merchantId), asc(merchantChannels.channelId))
              .limit(LOAD_PAGE)
              .all(),
          (merchantChannels) => load.add({ merchantChannels }),
        );
        pages<MerchantOriginRow>(
          (a) =>
            tx
              .select()
              .from(merchantOrigins)
              .where(a ? after2(merchantOrigins.merchantId, merchantOrigins.origin, a.merchantId, a.origin) : undefined)
              .orderBy(asc(merchantOrigins.merchantId), asc(merchantOrigins.origin))
              .limit(LOAD_PAGE)
              .all(),
          (merchantOrigins) => load.add({ merchantOrigins }),
        );
        return position;
      },
      { behavior: 'deferred' },
    );
  }

  /** Where the change log is: its newest row, and the oldest one kept (rows before it were pruned). */
  position(): LogPosition {
    return this.#position(this.db);
  }

  #position(db: Pick<Db, 'select'>): LogPosition {
    const r = db.select({ last: max(changeLog.seq), first: min(changeLog.seq) }).from(changeLog).get();
    return { lastSeq: r?.last ?? 0, firstSeq: r?.first ?? null };
  }

  /** The change-log row `seq`, if it is still kept (a database's continuity: the row a replica applied last). */
  changeAt(seq: number): (ChangeRow & { at: string }) | undefined {
    return this.db.select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId, at: changeLog.at }).from(changeLog).where(eq(changeLog.seq, seq)).get();
  }

  /** At most `limit` change-log rows after `seq`, in order. */
  changesSince(seq: number, limit: number): (ChangeRow & { at: string })[] {
    return this.db
      .select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId, at: changeLog.at })
      .from(changeLog)
      .where(gt(changeLog.seq, seq))
      .orderBy(asc(changeLog.seq))
      .limit(limit)
      .all();
  }

  /**
   * Delete change-log rows written before `before` (ISO instant), at most `limit` of them, never the newest
   * row (a replica that applied it proves with it that the database is the one it loaded); returns how many.
   * Cost: the rows deleted (the oldest rows come first by `seq`; the scan stops at the first younger row).
   */
  prune(before: string, limit: number): number {
    const { lastSeq, firstSeq } = this.position();
    if (firstSeq === null) return 0;
    const younger = this.db.select({ seq: changeLog.seq }).from(changeLog).where(sql`${changeLog.at} >= ${before}`).orderBy(asc(changeLog.seq)).limit(1).get();
    const upTo = Math.min(younger?.seq ?? lastSeq, lastSeq, firstSeq + limit) - 1;
    if (upTo < firstSeq) return 0;
    return this.db.delete(changeLog).where(lte(changeLog.seq, upTo)).run().changes;
  }

  /** Current rows of every entity the changes name (read after the changes, so never older than them). */
  loadChanged(changes: readonly ChangeRow[]): ChangedEntities {
    const ids = entitiesOf(changes);
    const each = <R>(list: string[], read: (chunk: string[]) => R[]): R[] => chunked(list).flatMap(read);
    return this.db.transaction(
      (tx) =>
        assembleChanged(ids, {
          merchants: each(ids.merchant, (c) => tx.select().from(merchants).where(inArray(merchants.id, c)).all()),
          apiKeys: each(ids.merchant, (c) => tx.select().from(apiKeys).where(inArray(apiKeys.merchantId, c)).all()),
          merchantChannels: each(ids.merchant, (c) => tx.select().from(merchantChannels).where(inArray(merchantChannels.merchantId, c)).all()),
          merchantOrigins: each(ids.merchant, (c) => tx.select().from(merchantOrigins).where(inArray(merchantOrigins.merchantId, c)).all()),
          merchantFeeRules: each(ids.merchant, (c) => tx.select().from(feeRules).where(and(inArray(feeRules.merchantId, c), eq(feeRules.scope, 'MERCHANT'))).all()),
          channels: each(ids.channel, (c) => tx.select().from(channels).where(inArray(channels.id, c)).all()),
          feeRules: each(ids.channel, (c) => tx.select().from(feeRules).where(and(inArray(feeRules.channelId, c), or(isNull(feeRules.merchantId), sql`${feeRules.scope} <> 'MERCHANT'`))).all()),
          currencies: each(ids.currency, (c) => tx.select().from(currencies).where(inArray(currencies.code, c)).all()),
          quoteKeys: ids.quote_key.length ? tx.select().from(quoteKeys).all() : [],
        }),
      { behavior: 'deferred' },
    );
  }
}

/** `(a, b) > (x, y)`: keyset pagination over a two-column primary key. */
function after2(a: AnyColumn, b: AnyColumn, x: string, y: string): SQL {
  return sql`(${a}, ${b}) > (${x}, ${y})`;
}

/** True when `sqlite` (any connection) holds the change-log row `mark` unchanged: the same database, continued. */
export function sameChangeAt(sqlite: Database.Database, mark: ChangeRow & { at: string }): boolean {
  const row = sqlite.prepare('select entity, entity_id as entityId, at from change_log where seq = ?').get(mark.seq) as { entity: string; entityId: string; at: string } | undefined;
  return row !== undefined && row.entity === mark.entity && row.entityId === mark.entityId && row.at === mark.at;
}
