/**
 * SQLite reads that feed the in-memory catalogue (src/modules/catalogue/catalog.ts): a full
 * load in one read transaction (a consistent snapshot), read page by page (keyset pagination: each
 * statement reads at most {@link LOAD_PAGE} rows, whatever the number of merchants), and the rows of the
 * entities named by new change-log rows, read a slice at a time. Synchronous, like better-sqlite3.
 */
import { and, asc, eq, gt, inArray, isNull, lt, lte, max, min, or, sql, type SQL } from 'drizzle-orm';
import type Database from 'better-sqlite3';
import type { Db } from './database.js';
import { assembleChanged, chunked, MERCHANT_TABLES, entitiesOf, LOAD_PAGE, type ChangedEntities, type ChangeRow, type ApiKeyRow, type FeeRuleRow, type LogPosition, type MerchantChannelRow, type MerchantOriginRow, type MerchantRow } from '../model/catalogue-rows.js';
import type { CatalogueLoad } from '../model/store.js';
import { changeLog, channels, currencies, feeRules, quoteKeys } from './schema.js';

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
        // In table (rowid) order: sequential reads of the file; the catalogue groups rows by merchant itself.
        for (const { table, kind, columns } of MERCHANT_TABLES) {
          for (let after = 0; ; ) {
            const page = tx.all<{ _rowid: number }>(sql`select ${sql.raw(columns)}, rowid as "_rowid" from ${sql.raw(table)} where rowid > ${after} order by rowid limit ${LOAD_PAGE}`);
            if (page.length === 0) break;
            after = page[page.length - 1]!._rowid;
            const rows = page.map(({ _rowid, ...row }) => row);
            load.add({ [kind]: kind === 'merchantChannels' ? (rows as unknown as MerchantChannelRow[]).map(withBoolean) : rows });
            if (page.length < LOAD_PAGE) break;
          }
        }
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
    // Two statements: SQLite answers a lone min() or max() from the primary key's ends, but both at once by a full scan.
    const last = db.select({ seq: max(changeLog.seq) }).from(changeLog).get()?.seq ?? 0;
    const first = db.select({ seq: min(changeLog.seq) }).from(changeLog).get()?.seq ?? null;
    return { lastSeq: last, firstSeq: first };
  }

  /** The change-log row `seq`, if it is still kept (a database's continuity: the row a replica applied last). */
  changeAt(seq: number): (ChangeRow) | undefined {
    return this.db.select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId, at: changeLog.at }).from(changeLog).where(eq(changeLog.seq, seq)).get();
  }

  /** At most `limit` change-log rows after `seq`, in order. */
  changesSince(seq: number, limit: number): ChangeRow[] {
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
   * Cost: at most `limit` rows looked at and deleted (the oldest come first by `seq`), however long the log.
   */
  prune(before: string, limit: number): number {
    const { lastSeq, firstSeq } = this.position();
    if (firstSeq === null) return 0;
    const younger = this.db.select({ seq: changeLog.seq }).from(changeLog).where(and(lt(changeLog.seq, firstSeq + limit), sql`${changeLog.at} >= ${before}`)).orderBy(asc(changeLog.seq)).limit(1).get();
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
          // The per-merchant tables by hand (the full load's column lists): a slice reads a dozen rows a merchant.
          merchants: each(ids.merchant, (c) => tx.all<MerchantRow>(ofMerchants(0, 'id', c))),
          apiKeys: each(ids.merchant, (c) => tx.all<ApiKeyRow>(ofMerchants(1, 'merchant_id', c))),
          merchantChannels: each(ids.merchant, (c) => tx.all<MerchantChannelRow>(ofMerchants(2, 'merchant_id', c)).map(withBoolean)),
          merchantOrigins: each(ids.merchant, (c) => tx.all<MerchantOriginRow>(ofMerchants(3, 'merchant_id', c))),
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

/** The rows of `MERCHANT_TABLES[index]` whose `column` is one of `ids`. */
function ofMerchants(index: 0 | 1 | 2 | 3, column: 'id' | 'merchant_id', ids: string[]): SQL {
  const { table, columns } = MERCHANT_TABLES[index];
  return sql`select ${sql.raw(columns)} from ${sql.raw(table)} where ${sql.raw(column)} in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`;
}

/** SQLite stores the fee bearer as 0/1: the row type's boolean (null stays null). */
function withBoolean(row: MerchantChannelRow): MerchantChannelRow {
  const v = row.feeChargedToCustomer as unknown as number | null;
  return v === null ? row : { ...row, feeChargedToCustomer: v === 1 };
}

/** True when `sqlite` (any connection) holds the change-log row `mark` unchanged: the same database, continued. */
export function sameChangeAt(sqlite: Database.Database, mark: ChangeRow): boolean {
  const row = sqlite.prepare('select entity, entity_id as entityId, at from change_log where seq = ?').get(mark.seq) as { entity: string; entityId: string; at: string } | undefined;
  return row !== undefined && row.entity === mark.entity && row.entityId === mark.entityId && row.at === mark.at;
}
