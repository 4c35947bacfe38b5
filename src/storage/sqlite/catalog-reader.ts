/**
 * SQLite reads that feed the in-memory catalogue (src/modules/catalogue/catalog.ts): a full
 * load in one read transaction (a consistent snapshot), read page by page (keyset pagination: each
 * statement reads at most {@link LOAD_PAGE} rows, whatever the number of merchants), and the rows of the
 * entities named by new change-log rows, read a slice at a time. Synchronous, like better-sqlite3.
 */
import { and, asc, eq, gt, inArray, isNull, lt, lte, max, min, or, sql } from 'drizzle-orm';
import type Database from 'better-sqlite3';
import type { Connection, Db } from './database.js';
import { assembleChanged, chunked, MERCHANT_TABLES, entitiesOf, LOAD_PAGE, type ChangedEntities, type ChangeRow, type ApiKeyRow, type FeeRuleRow, type LogPosition, type MerchantChannelRow, type MerchantOriginRow, type MerchantRow } from '../model/catalogue-rows.js';
import type { CatalogueLoad } from '../model/store.js';
import { changeLog, channels, currencies, feeRules, quoteKeys } from './schema.js';

/**
 * Everything, page by page, into `load` (not committed): a step per page (the generator yields after each), and
 * the change-log position it is consistent with as its result. The caller holds one read transaction around all
 * steps (a consistent snapshot), whether it runs them at once or a page per event-loop turn.
 */
function* loadPages(db: Pick<Db, 'select' | 'all'>, load: CatalogueLoad): Generator<void, LogPosition> {
  const position = positionOf(db);
  load.add({ currencies: db.select().from(currencies).all(), channels: db.select().from(channels).all(), quoteKeys: db.select().from(quoteKeys).all() });
  for (let after: string | undefined; ; ) {
    const page = db.select().from(feeRules).where(after === undefined ? undefined : gt(feeRules.id, after)).orderBy(asc(feeRules.id)).limit(LOAD_PAGE).all();
    if (page.length > 0) load.add({ feeRules: page });
    if (page.length < LOAD_PAGE) break;
    after = page[page.length - 1]!.id;
    yield;
  }
  // In table (rowid) order: sequential reads of the file; the catalogue groups rows by merchant itself.
  for (const { table, kind, columns } of MERCHANT_TABLES) {
    for (let after = 0; ; ) {
      const page = db.all<{ _rowid: number }>(sql`select ${sql.raw(columns)}, rowid as "_rowid" from ${sql.raw(table)} where rowid > ${after} order by rowid limit ${LOAD_PAGE}`);
      if (page.length === 0) break;
      after = page[page.length - 1]!._rowid;
      const rows = page.map(({ _rowid, ...row }) => row);
      load.add({ [kind]: kind === 'merchantChannels' ? (rows as unknown as MerchantChannelRow[]).map(withBoolean) : rows });
      yield;
      if (page.length < LOAD_PAGE) break;
    }
  }
  return position;
}

/** Where a change log is: its newest row, and the oldest one kept (rows before it were pruned). */
function positionOf(db: Pick<Db, 'select'>): LogPosition {
  // Two statements: SQLite answers a lone min() or max() from the primary key's ends, but both at once by a full scan.
  const last = db.select({ seq: max(changeLog.seq) }).from(changeLog).get()?.seq ?? 0;
  const first = db.select({ seq: min(changeLog.seq) }).from(changeLog).get()?.seq ?? null;
  return { lastSeq: last, firstSeq: first };
}

/**
 * The full load of {@link SqliteCatalogReader.loadAll} a page per event-loop turn (`between` separates the
 * pages), on `conn`, a connection of its own: its read transaction holds one snapshot across the turns while
 * the server's connection keeps answering (WAL: readers never block the writer, nor it them). Requests meanwhile
 * are served from the live catalogue; `load` is committed by the caller.
 */
export async function loadAllInTurns(conn: Connection, load: CatalogueLoad, between: () => Promise<void>): Promise<LogPosition> {
  conn.sqlite.exec('begin deferred');
  try {
    const steps = loadPages(conn.db, load);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      await between();
    }
  } finally {
    if (conn.sqlite.inTransaction) conn.sqlite.exec('rollback');
  }
}

/** A fee rule's columns under the row type's names (the per-merchant read of a catch-up, by hand like MERCHANT_TABLES). */
const FEE_RULE_COLUMNS =
  'id, channel_id as "channelId", scope, merchant_id as "merchantId", category, bands, effective_from as "effectiveFrom", cancelled_at as "cancelledAt", ' +
  'created_at as "createdAt", min_fee as "minFee", max_fee as "maxFee", tax_percentage as "taxPercentage", customer_share as "customerShare"';

/**
 * The statements a catch-up runs on every slice, compiled once per connection: the ids of a slice are bound as
 * one JSON array (`json_each`), so the SQL text never depends on how many there are. Compiling a statement
 * (and building it through the ORM) for each slice cost more than running it.
 */
class ChangeStatements {
  readonly changesSince: Database.Statement<[number, number], ChangeRow>;
  readonly merchants: Database.Statement<[string], MerchantRow>;
  readonly apiKeys: Database.Statement<[string], ApiKeyRow>;
  readonly merchantChannels: Database.Statement<[string], MerchantChannelRow>;
  readonly merchantOrigins: Database.Statement<[string], MerchantOriginRow>;
  readonly merchantFeeRules: Database.Statement<[string], FeeRuleRow>;

  constructor(sqlite: Database.Database) {
    const ofIds = <R>(table: string, columns: string, column: string, more = '') => sqlite.prepare<[string], R>(`select ${columns} from ${table} where ${column} in (select value from json_each(?))${more}`);
    const [m, k, e, o] = MERCHANT_TABLES;
    this.changesSince = sqlite.prepare<[number, number], ChangeRow>('select seq, entity, entity_id as "entityId", at from change_log where seq > ? order by seq limit ?');
    this.merchants = ofIds<MerchantRow>(m.table, m.columns, 'id');
    this.apiKeys = ofIds<ApiKeyRow>(k.table, k.columns, 'merchant_id');
    this.merchantChannels = ofIds<MerchantChannelRow>(e.table, e.columns, 'merchant_id');
    this.merchantOrigins = ofIds<MerchantOriginRow>(o.table, o.columns, 'merchant_id');
    this.merchantFeeRules = ofIds<FeeRuleRow>('fee_rules', FEE_RULE_COLUMNS, 'merchant_id', " and scope = 'MERCHANT'");
  }
}

export class SqliteCatalogReader {
  readonly #statements: ChangeStatements;

  constructor(private readonly db: Db) {
    this.#statements = new ChangeStatements((db as unknown as { $client: Database.Database }).$client);
  }

  /** Everything, into `load` (not committed), and the change-log position it is consistent with: one read transaction. */
  loadAll(load: CatalogueLoad): LogPosition {
    return this.db.transaction(
      (tx) => {
        const steps = loadPages(tx, load);
        for (;;) {
          const step = steps.next();
          if (step.done) return step.value;
        }
      },
      { behavior: 'deferred' },
    );
  }

  /** Where the change log is: its newest row, and the oldest one kept (rows before it were pruned). */
  position(): LogPosition {
    return positionOf(this.db);
  }

  /** The change-log row `seq`, if it is still kept (a database's continuity: the row a replica applied last). */
  changeAt(seq: number): (ChangeRow) | undefined {
    return this.db.select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId, at: changeLog.at }).from(changeLog).where(eq(changeLog.seq, seq)).get();
  }

  /** At most `limit` change-log rows after `seq`, in order. */
  changesSince(seq: number, limit: number): ChangeRow[] {
    return this.#statements.changesSince.all(seq, limit);
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
    const st = this.#statements;
    // Merchant ids bound as JSON arrays of at most ID_CHUNK each (a slice names at most CATCH_UP_SLICE).
    const each = <R>(statement: Database.Statement<[string], R>): R[] => chunked(ids.merchant).flatMap((c) => statement.all(JSON.stringify(c)));
    return this.db.transaction(
      (tx) =>
        assembleChanged(ids, {
          merchants: each(st.merchants),
          apiKeys: each(st.apiKeys),
          merchantChannels: each(st.merchantChannels).map(withBoolean),
          merchantOrigins: each(st.merchantOrigins),
          merchantFeeRules: each(st.merchantFeeRules),
          // Channels and currencies are few (tens), and change rarely: read through the ORM.
          channels: chunked(ids.channel).flatMap((c) => tx.select().from(channels).where(inArray(channels.id, c)).all()),
          feeRules: chunked(ids.channel).flatMap((c) => tx.select().from(feeRules).where(and(inArray(feeRules.channelId, c), or(isNull(feeRules.merchantId), sql`${feeRules.scope} <> 'MERCHANT'`))).all()),
          currencies: chunked(ids.currency).flatMap((c) => tx.select().from(currencies).where(inArray(currencies.code, c)).all()),
          quoteKeys: ids.quote_key.length ? tx.select().from(quoteKeys).all() : [],
        }),
      { behavior: 'deferred' },
    );
  }
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
