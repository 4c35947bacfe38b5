/**
 * Postgres reads that feed the in-memory catalogue (src/modules/catalogue/catalog.ts): the same reads as
 * src/storage/sqlite/catalog-reader.ts. A full load is one REPEATABLE READ, read-only transaction (one
 * consistent snapshot) read page by page (a cursor per per-merchant table, keyset pagination for the rules:
 * every statement reads at most {@link LOAD_PAGE} rows, so the statement timeout bounds a page, never the size of the catalogue, and the
 * event loop serves requests between pages); a catch-up reads the rows of one slice of changes.
 */
import { and, asc, eq, gt, inArray, isNull, lt, lte, max, min, or, sql, type SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import {
  assembleChanged,
  chunked,
  MERCHANT_TABLES,
  entitiesOf,
  LOAD_PAGE,
  type ChangedEntities,
  type ChangeRow,
  type ApiKeyRow,
  type FeeRuleRow,
  type MerchantChannelRow,
  type MerchantOriginRow,
  type MerchantRow,
  type LogPosition,
} from '../model/catalogue-rows.js';
import type { CatalogueLoad } from '../model/store.js';
import * as schema from './schema.js';
import { changeLog, channels, currencies, feeRules, quoteKeys } from './schema.js';

const SNAPSHOT = { isolationLevel: 'repeatable read', accessMode: 'read only' } as const;

type Tx = Pick<NodePgDatabase<typeof schema>, 'select'>;

/** Read `read` page by page, handing each page to `add`. */
async function pages<R>(read: (after: R | undefined) => Promise<R[]>, add: (rows: R[]) => void | Promise<void>): Promise<void> {
  let after: R | undefined;
  for (;;) {
    const rows = await read(after);
    if (rows.length > 0) await add(rows);
    if (rows.length < LOAD_PAGE) return;
    after = rows[rows.length - 1];
  }
}

/**
 * The rows of `MERCHANT_TABLES[index]` whose `column` is one of `ids`, bound as ONE array parameter: the SQL
 * text is the same for any number of ids. An `in (…)` list builds a parameter per id through the ORM, which
 * cost 35–65 ms of the event loop for a slice of 5,000 merchants.
 */
function ofMerchants(index: 0 | 1 | 2 | 3, column: 'id' | 'merchant_id', ids: string[]): SQL {
  const { table, columns } = MERCHANT_TABLES[index];
  return sql`select ${sql.raw(columns)} from ${sql.raw(table)} where ${sql.raw(column)} = any(${sql.param(ids)}::text[])`;
}

export class PgCatalogReader {
  /** `statementTimeoutMs`: the server-side bound of each statement (`SET LOCAL`: nothing outlives the transaction on a pooled connection). */
  constructor(
    private readonly db: NodePgDatabase<typeof schema>,
    private readonly statementTimeoutMs: number,
  ) {}

  #bound(tx: { execute: NodePgDatabase<typeof schema>['execute'] }) {
    return tx.execute(sql.raw(`set local statement_timeout = ${Math.trunc(this.statementTimeoutMs)}`));
  }

  /** Everything, into `load` (not committed), and the change-log position it is consistent with. */
  async loadAll(load: CatalogueLoad): Promise<LogPosition> {
    return this.db.transaction(async (tx) => {
      await this.#bound(tx);
      const position = await this.#position(tx);
      load.add({ currencies: await tx.select().from(currencies), channels: await tx.select().from(channels), quoteKeys: await tx.select().from(quoteKeys) });
      await pages<FeeRuleRow>((a) => tx.select().from(feeRules).where(a ? gt(feeRules.id, a.id) : undefined).orderBy(asc(feeRules.id)).limit(LOAD_PAGE), (feeRules) => load.add({ feeRules }));
      // In table order through a cursor per table: sequential scans, a page per FETCH (each bounded by the statement timeout).
      for (const { table, kind, columns } of MERCHANT_TABLES) {
        await tx.execute(sql.raw(`declare catalogue_load no scroll cursor for select ${columns} from ${table}`));
        for (;;) {
          const { rows } = await tx.execute<Record<string, unknown>>(sql.raw(`fetch forward ${LOAD_PAGE} from catalogue_load`));
          if (rows.length > 0) load.add({ [kind]: rows });
          if (rows.length < LOAD_PAGE) break;
        }
        await tx.execute(sql.raw('close catalogue_load'));
      }
      return position;
    }, SNAPSHOT);
  }

  async #position(db: Tx): Promise<LogPosition> {
    const last = (await db.select({ seq: max(changeLog.seq) }).from(changeLog))[0]?.seq;
    const first = (await db.select({ seq: min(changeLog.seq) }).from(changeLog))[0]?.seq;
    return { lastSeq: Number(last ?? 0), firstSeq: first == null ? null : Number(first) };
  }

  /** Where the change log is: its newest row, and the oldest one kept. */
  position(): Promise<LogPosition> {
    return this.#position(this.db);
  }

  /** Highest committed change-log sequence number (the cheap catch-up poll). */
  async maxSeq(): Promise<number> {
    return Number((await this.db.select({ m: max(changeLog.seq) }).from(changeLog))[0]?.m ?? 0);
  }

  /** The change-log row `seq`, if it is still kept (the row a replica applied last proves the database is the one it loaded). */
  async changeAt(seq: number): Promise<(ChangeRow) | undefined> {
    return (await this.db.select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId, at: changeLog.at }).from(changeLog).where(eq(changeLog.seq, seq)))[0];
  }

  /** At most `limit` change-log rows after `seq`, in order. */
  async changesSince(seq: number, limit: number): Promise<ChangeRow[]> {
    return this.db
      .select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId, at: changeLog.at })
      .from(changeLog)
      .where(gt(changeLog.seq, seq))
      .orderBy(asc(changeLog.seq))
      .limit(limit);
  }

  /**
   * Delete change-log rows written before `before`, at most `limit`, never the newest row; returns how many.
   * Replicas pruning together delete the same rows (the second finds none): no lock, no coordination.
   */
  async prune(before: string, limit: number): Promise<number> {
    const { lastSeq, firstSeq } = await this.position();
    if (firstSeq === null) return 0;
    const younger = (await this.db.select({ seq: changeLog.seq }).from(changeLog).where(and(lt(changeLog.seq, firstSeq + limit), sql`${changeLog.at} >= ${before}`)).orderBy(asc(changeLog.seq)).limit(1))[0];
    const upTo = Math.min(younger?.seq ?? lastSeq, lastSeq, firstSeq + limit) - 1;
    if (upTo < firstSeq) return 0;
    return (await this.db.delete(changeLog).where(lte(changeLog.seq, upTo))).rowCount ?? 0;
  }

  async loadChanged(changes: readonly ChangeRow[]): Promise<ChangedEntities> {
    const ids = entitiesOf(changes);
    return this.db.transaction(
      async (tx) => {
        await this.#bound(tx);
        const each = async <R>(list: string[], read: (chunk: string[]) => Promise<R[]>): Promise<R[]> => {
          const out: R[] = [];
          for (const c of chunked(list)) out.push(...(await read(c)));
          return out;
        };
        return assembleChanged(ids, {
          // The per-merchant tables by hand (the full load's column lists): a slice reads a dozen rows a merchant.
          merchants: await each(ids.merchant, async (c) => (await tx.execute(ofMerchants(0, 'id', c))).rows as unknown as MerchantRow[]),
          apiKeys: await each(ids.merchant, async (c) => (await tx.execute(ofMerchants(1, 'merchant_id', c))).rows as unknown as ApiKeyRow[]),
          merchantChannels: await each(ids.merchant, async (c) => (await tx.execute(ofMerchants(2, 'merchant_id', c))).rows as unknown as MerchantChannelRow[]),
          merchantOrigins: await each(ids.merchant, async (c) => (await tx.execute(ofMerchants(3, 'merchant_id', c))).rows as unknown as MerchantOriginRow[]),
          merchantFeeRules: await each(ids.merchant, (c) => tx.select().from(feeRules).where(and(sql`${feeRules.merchantId} = any(${sql.param(c)}::text[])`, eq(feeRules.scope, 'MERCHANT')))),
          channels: await each(ids.channel, (c) => tx.select().from(channels).where(inArray(channels.id, c))),
          feeRules: await each(ids.channel, (c) => tx.select().from(feeRules).where(and(inArray(feeRules.channelId, c), or(isNull(feeRules.merchantId), sql`${feeRules.scope} <> 'MERCHANT'`)))),
          currencies: await each(ids.currency, (c) => tx.select().from(currencies).where(inArray(currencies.code, c))),
          quoteKeys: ids.quote_key.length ? await tx.select().from(quoteKeys) : [],
        });
      },
      SNAPSHOT,
    );
  }
}
