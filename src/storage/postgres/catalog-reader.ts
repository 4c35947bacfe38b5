/**
 * Postgres reads that feed the in-memory catalogue (src/modules/catalogue/catalog.ts): the
 * same two reads as catalog-sqlite.ts, each in one REPEATABLE READ, read-only
 * transaction so a full load is one consistent snapshot.
 */
import { asc, gt, inArray, max, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { assembleChanged, entitiesOf, type CatalogRows, type ChangedEntities, type ChangeRow } from '../model/catalogue-rows.js';
import * as schema from './schema.js';
import { apiKeys, changeLog, channels, currencies, feeRules, merchantChannels, merchantOrigins, merchants, quoteKeys } from './schema.js';

const SNAPSHOT = { isolationLevel: 'repeatable read', accessMode: 'read only' } as const;

export class PgCatalogReader {
  /** `statementTimeoutMs`: the server-side bound of each read transaction (`SET LOCAL`: nothing outlives the transaction on a pooled connection). */
  constructor(
    private readonly db: NodePgDatabase<typeof schema>,
    private readonly statementTimeoutMs: number,
  ) {}

  #bound(tx: { execute: NodePgDatabase<typeof schema>['execute'] }) {
    return tx.execute(sql.raw(`set local statement_timeout = ${Math.trunc(this.statementTimeoutMs)}`));
  }

  async loadAll(): Promise<{ rows: CatalogRows; lastSeq: number }> {
    return this.db.transaction(async (tx) => {
      await this.#bound(tx);
      const lastSeq = (await tx.select({ m: max(changeLog.seq) }).from(changeLog))[0]?.m ?? 0;
      return {
        lastSeq: Number(lastSeq),
        rows: {
          currencies: await tx.select().from(currencies),
          merchants: await tx.select().from(merchants),
          apiKeys: await tx.select().from(apiKeys),
          channels: await tx.select().from(channels),
          merchantChannels: await tx.select().from(merchantChannels),
          merchantOrigins: await tx.select().from(merchantOrigins),
          feeRules: await tx.select().from(feeRules),
          quoteKeys: await tx.select().from(quoteKeys),
        },
      };
    }, SNAPSHOT);
  }

  /** Highest committed change-log sequence number (the cheap catch-up poll). */
  async maxSeq(): Promise<number> {
    return Number((await this.db.select({ m: max(changeLog.seq) }).from(changeLog))[0]?.m ?? 0);
  }

  async changesSince(seq: number): Promise<ChangeRow[]> {
    return this.db
      .select({ seq: changeLog.seq, entity: changeLog.entity, entityId: changeLog.entityId, at: changeLog.at })
      .from(changeLog)
      .where(gt(changeLog.seq, seq))
      .orderBy(asc(changeLog.seq));
  }

  async loadChanged(changes: readonly ChangeRow[]): Promise<ChangedEntities> {
    const ids = entitiesOf(changes);
    // No row has an empty id or code: the placeholder for a kind with no changes (`in ()` is not valid SQL).
    const none = [''];
    return this.db.transaction(
      async (tx) => {
        await this.#bound(tx);
        return assembleChanged(ids, {
          merchants: await tx.select().from(merchants).where(inArray(merchants.id, ids.merchant.length ? ids.merchant : none)),
          apiKeys: await tx.select().from(apiKeys).where(inArray(apiKeys.merchantId, ids.merchant.length ? ids.merchant : none)),
          merchantChannels: await tx.select().from(merchantChannels).where(inArray(merchantChannels.merchantId, ids.merchant.length ? ids.merchant : none)),
          merchantOrigins: await tx.select().from(merchantOrigins).where(inArray(merchantOrigins.merchantId, ids.merchant.length ? ids.merchant : none)),
          channels: await tx.select().from(channels).where(inArray(channels.id, ids.channel.length ? ids.channel : none)),
          feeRules: await tx.select().from(feeRules).where(inArray(feeRules.channelId, ids.channel.length ? ids.channel : none)),
          currencies: await tx.select().from(currencies).where(inArray(currencies.code, ids.currency.length ? ids.currency : none)),
          quoteKeys: ids.quote_key.length ? await tx.select().from(quoteKeys) : [],
        });
      },
      SNAPSHOT,
    );
  }
}
