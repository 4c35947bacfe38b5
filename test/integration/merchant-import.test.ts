/**
 * Many merchants from the operator's side (contract §15) on the engine of TEST_DB: `merchant import` and
 * `import --update` (checked whole, written in batches, one audit record), paged listings, and changes that
 * read what they touch (a channel change re-checks only the enablements that override it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalog } from '../../src/modules/catalogue/catalog.js';
import { AdminError, AdminService } from '../../src/modules/admin/service.js';
import { openStore } from '../../src/storage/index.js';
import type { AdminRepository } from '../../src/storage/model/admin-repository.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let admin: AdminService;

beforeAll(async () => {
  t = await createTestApp();
  admin = new AdminService(t.store.admin, t.data.secretBox, { actor: 'import-test' });
});
afterAll(() => t.close());

async function count(table: string): Promise<number> {
  return Number((await t.sql().all<{ n: number | string }>(`select count(*) as n from ${table}`))[0]!.n);
}

async function refusal(p: Promise<unknown>): Promise<AdminError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdminError);
  return err as AdminError;
}

/** A repository whose `insertMerchants` fails on its `failOn`-th call (1-based); everything else is real. */
function failingBatch(repo: AdminRepository, failOn: number): AdminRepository {
  let calls = 0;
  const wrap = (inner: AdminRepository): AdminRepository =>
    new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'transaction') return <T>(fn: (r: AdminRepository) => Promise<T>) => target.transaction((tx) => fn(wrap(tx)));
        if (prop === 'insertMerchants') {
          return async (rows: Parameters<AdminRepository['insertMerchants']>[0]) => {
            if (++calls === failOn) throw new Error('injected batch failure');
            return target.insertMerchants(rows);
          };
        }
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return wrap(repo);
}

describe('merchant import', () => {
  it('creates every merchant of the file with its category, KYC and channels, in batches, audited once', async () => {
    const auditsBefore = await count('audit_log');
    const text = '\uFEFFname,category,kyc,channels\r\n"Toko ""Satu""",micro,approved,all\r\n\r\nToko Dua,,,ovo;dana\r\nToko Tiga,regular,rejected,\r\nToko Empat,micro,pending,qris\r\nToko Lima,,approved,dana\r\n';
    const r = await admin.importMerchants(text, { source: 'five.csv', batchSize: 2 });
    expect(r.count).toBe(5);
    expect(r.batches).toBe(3);
    expect(r.merchants.map((m) => m.name)).toEqual(['Toko "Satu"', 'Toko Dua', 'Toko Tiga', 'Toko Empat', 'Toko Lima']);

    const stored = new Map((await t.store.admin.findMerchants(r.merchants.map((m) => m.merchantId))).map((m) => [m.id, m]));
    expect(stored.size).toBe(5);
    const [satu, dua, tiga] = r.merchants.map((m) => stored.get(m.merchantId)!);
    expect(satu).toMatchObject({ name: 'Toko "Satu"', category: 'micro', kycStatus: 'approved' });
    expect(dua).toMatchObject({ category: 'regular', kycStatus: 'pending' });
    expect(tiga).toMatchObject({ kycStatus: 'rejected' });
    const catalogue = (await admin.listChannels()).map((c) => c.code);
    expect((await admin.merchantChannels(satu!.id)).map((c) => c.code).sort()).toEqual([...catalogue].sort());
    expect((await admin.merchantChannels(dua!.id)).map((c) => c.code).sort()).toEqual(['dana', 'ovo']);
    expect(await admin.merchantChannels(tiga!.id)).toEqual([]);

    expect(await count('audit_log')).toBe(auditsBefore + 1);
    const [record] = await admin.listAudit({ entity: 'merchants', limit: 1 });
    expect(record).toMatchObject({ action: 'merchant.import', actor: 'import-test', before: null, after: { count: 5, source: 'five.csv', batches: 3, kyc: { approved: 2, pending: 2, rejected: 1 } } });

    // Every server sees them: the change log carried them to the app's catalogue.
    await t.sync();
    expect(t.store.catalog.listForMerchant(dua!.id).map((c) => c.code).sort()).toEqual(['dana', 'ovo']);
  });

  it('a bad line refuses the file, naming line and field, and writes nothing', async () => {
    const before = { merchants: await count('merchants'), enablements: await count('merchant_channels'), audit: await count('audit_log') };
    const text = 'name,category,kyc,channels\nGood One,regular,approved,all\nGood Two,regular,approved,ovo\nBad,regular,approved,ovo;nosuchchannel\n';
    const err = await refusal(admin.importMerchants(text, { batchSize: 1 }));
    expect(err.kind).toBe('invalid');
    expect(err.problems).toEqual(['line 4: channels: no channel nosuchchannel in the catalogue (channel list shows them)', 'nothing was written: fix the file and import it again']);
    const err2 = await refusal(admin.importMerchants('name,kyc\nA,approved\nB,maybe\n'));
    expect(err2.problems[0]).toBe('line 3: kyc: must be approved, pending or rejected (got "maybe")');
    expect({ merchants: await count('merchants'), enablements: await count('merchant_channels'), audit: await count('audit_log') }).toEqual(before);
  });

  it('refuses a file past the row bound', async () => {
    const err = await refusal(admin.importMerchants('name\nA\nB\nC\n', { maxRows: 2 }));
    expect(err.problems[0]).toBe('the file has more than 2 merchants; split it into files of at most 2');
  });

  it('a batch failing after others committed names the lines written and not, and records the count written', async () => {
    const broken = new AdminService(failingBatch(t.store.admin, 2), t.data.secretBox, { actor: 'import-test' });
    const merchantsBefore = await count('merchants');
    const text = `name\n${['A1', 'A2', 'A3', 'A4', 'A5'].join('\n')}\n`;
    const err = await refusal(broken.importMerchants(text, { batchSize: 2 }));
    expect(err.kind).toBe('conflict');
    expect(err.problems).toEqual([
      'the database refused the batch from line 4: injected batch failure',
      "2 of 5 merchants were written (the file's rows before line 4); the rest were not",
      'fix the cause, then import the rows from line 4 on as a new file',
    ]);
    expect(await count('merchants')).toBe(merchantsBefore + 2);
    const [incomplete, started] = await admin.listAudit({ entity: 'merchants', limit: 2 });
    expect(incomplete).toMatchObject({ action: 'merchant.import-incomplete', after: { count: 2, of: 5, notWrittenFromLine: 4 } });
    expect(started).toMatchObject({ action: 'merchant.import', after: { count: 5 } });
  });

  it('a first batch failing writes nothing at all, its audit record included', async () => {
    const broken = new AdminService(failingBatch(t.store.admin, 1), t.data.secretBox);
    const before = { merchants: await count('merchants'), audit: await count('audit_log') };
    await expect(broken.importMerchants('name\nB1\nB2\n', { batchSize: 1 })).rejects.toThrow(/injected batch failure/);
    expect({ merchants: await count('merchants'), audit: await count('audit_log') }).toEqual(before);
  });
});

describe('merchant import and the replicas', () => {
  it('a running replica catches up on exactly the merchants imported, each with its channels, and later writes still reach it', async () => {
    const databaseUrl = t.sqlTarget.engine === 'postgres' ? t.sqlTarget.url : null;
    const { store: replica } = await openStore({ dataDir: t.dataDir, databaseUrl, catalogue: new Catalog(), watch: true, history: { catchUpSlice: 1000, catchUpTurnMs: 0 }, maxStalenessSeconds: 300 });
    try {
      await replica.sync();
      const before = replica.catalog.counters;
      const lastSeq = Number((await t.sql().all<{ n: number | string | null }>('select max(seq) as n from change_log'))[0]!.n ?? 0);
      const lines = Array.from({ length: 25 }, (_, i) => `Replica ${i + 1},${i % 2 === 0 ? 'micro' : 'regular'},approved,${i % 3 === 0 ? 'all' : 'ovo;dana'}`);
      const r = await admin.importMerchants(`name,category,kyc,channels\n${lines.join('\n')}\n`, { batchSize: 10 });
      const ids = r.merchants.map((m) => m.merchantId);

      // The log names exactly the merchants imported: each merchant once per statement that wrote its rows
      // (SQLite: its own insert; Postgres: the merchants and the enablements statements of its batch).
      const logged = await t.sql().all<{ entity: string; entity_id: string }>(`select entity, entity_id from change_log where seq > ${lastSeq} order by seq`);
      expect(new Set(logged.map((l) => `${l.entity} ${l.entity_id}`))).toEqual(new Set(ids.map((id) => `merchant ${id}`)));
      expect(logged).toHaveLength(t.sqlTarget.engine === 'sqlite' ? ids.length : 2 * ids.length);

      await replica.sync();
      const all = (await t.store.admin.catalogueChannels()).map((c) => c.code).sort();
      const codes = (id: string) => replica.catalog.listForMerchant(id).map((c) => c.code).sort();
      ids.forEach((id, i) => {
        expect(replica.catalog.kycOf(id)).toBe('approved');
        expect(codes(id)).toEqual(i % 3 === 0 ? all : ['dana', 'ovo']);
      });
      // Each imported merchant handled once by the catch-up, nothing else, and no full reload.
      expect(replica.catalog.counters.work - before.work).toBe(ids.length);
      expect(replica.catalog.counters.reloads).toBe(before.reloads);

      // An enablement written afterwards, in its own transaction, is logged and caught up as before.
      await admin.enableChannel(ids[1]!, 'qris');
      await replica.sync();
      expect(codes(ids[1]!)).toEqual(['dana', 'ovo', 'qris']);
    } finally {
      await replica.close();
    }
  });

  it('a batch refused while its enablements are written leaves nothing, and the next enablement is logged', async () => {
    const before = { merchants: await count('merchants'), log: await count('change_log') };
    const row = { id: 'refused-batch', name: 'Refused', kycStatus: 'approved' as const, category: 'regular', channelIds: ['no-such-channel-id'] };
    await expect(t.store.admin.transaction((repo) => repo.insertMerchants([row]))).rejects.toThrow();
    expect({ merchants: await count('merchants'), log: await count('change_log') }).toEqual(before);
    // On SQLite the enablement trigger's mute was set inside the refused batch: it went with the rollback.
    const [m] = (await admin.importMerchants('name\nAfter the refusal\n')).merchants;
    const logged = await count('change_log');
    await admin.enableChannel(m!.merchantId, 'ovo');
    expect(await t.sql().all<{ entity_id: string }>(`select entity_id from change_log order by seq desc limit ${(await count('change_log')) - logged}`)).toEqual([{ entity_id: m!.merchantId }]);
  });
});

describe('merchant import --update', () => {
  it('changes the columns given of the merchants named, audited once with what moved', async () => {
    const created = await admin.importMerchants('name,category,kyc\nU One,regular,pending\nU Two,regular,pending\nU Three,micro,approved\n');
    const [one, two, three] = created.merchants.map((m) => m.merchantId);
    const auditsBefore = await count('audit_log');
    const r = await admin.updateMerchantsFromFile(`merchantId,category,kyc,name\n${one},micro,approved,\n${two},,approved,U Two Renamed\n${three},micro,approved,\n`, { source: 'u.csv', batchSize: 1 });
    expect(r).toMatchObject({ count: 2, unchanged: 1, batches: 2 });
    expect(r.merchants).toEqual([
      { merchantId: one, name: 'U One', changed: ['kyc', 'category'] },
      { merchantId: two, name: 'U Two Renamed', changed: ['name', 'kyc'] },
      { merchantId: three, name: 'U Three', changed: [] },
    ]);
    const stored = new Map((await t.store.admin.findMerchants([one!, two!, three!])).map((m) => [m.id, m]));
    expect(stored.get(one!)).toMatchObject({ name: 'U One', category: 'micro', kycStatus: 'approved' });
    expect(stored.get(two!)).toMatchObject({ name: 'U Two Renamed', category: 'regular', kycStatus: 'approved' });
    expect(stored.get(three!)).toMatchObject({ name: 'U Three', category: 'micro', kycStatus: 'approved' });
    expect(await count('audit_log')).toBe(auditsBefore + 1);
    const [record] = await admin.listAudit({ entity: 'merchants', limit: 1 });
    expect(record).toMatchObject({ action: 'merchant.import-update', after: { count: 2, unchanged: 1, source: 'u.csv', names: 1, kyc: { 'pending → approved': 2 }, category: { 'regular → micro': 1 } } });
    await t.sync();
    expect(t.store.catalog.kycOf(one!)).toBe('approved');
    expect(t.store.catalog.merchantNameOf(two!)).toBe('U Two Renamed');
  });

  it('an unknown merchant id refuses the file, naming its line; nothing changes', async () => {
    const created = await admin.importMerchants('name\nKeep Me\n');
    const id = created.merchants[0]!.merchantId;
    const err = await refusal(admin.updateMerchantsFromFile(`merchantId,name\n${id},Changed\n00000000-0000-4000-8000-000000000000,Ghost\n`));
    expect(err.problems).toEqual(['line 3: merchantId: no merchant 00000000-0000-4000-8000-000000000000', 'nothing was written: fix the file and import it again']);
    expect((await t.store.admin.findMerchant(id))!.name).toBe('Keep Me');
  });
});

describe('paged listings', () => {
  it('merchant pages visit every merchant once, in id order, and say where the next page starts', async () => {
    const all: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await admin.merchantsPage({ after, limit: 3 });
      expect(page.merchants.length).toBeLessThanOrEqual(3);
      all.push(...page.merchants.map((m) => m.id));
      pages++;
      if (page.next === null) break;
      expect(page.next).toBe(page.merchants.at(-1)!.id);
      after = page.next;
    }
    expect(all).toEqual([...all].sort());
    expect(new Set(all).size).toBe(await count('merchants'));
    expect(pages).toBe(Math.ceil(all.length / 3));
    // Streaming reads the same merchants, a page at a time (pages of 2 here: many pages, and an exact last one).
    for (const pageSize of [2, all.length, 1000]) {
      const streamed: string[] = [];
      for await (const m of admin.allMerchants(undefined, pageSize)) streamed.push(m.id);
      expect(streamed).toEqual(all);
    }
    const rest: string[] = [];
    for await (const m of admin.allMerchants(all[4], 2)) rest.push(m.id);
    expect(rest).toEqual(all.slice(5));
    await expect(admin.merchantsPage({ limit: 0 })).rejects.toThrow(/limit: must be a whole number from 1 to 1000/);
  });

  it('audit pages continue after the cursor, newest first, with nothing skipped or repeated', async () => {
    const newest = (await admin.listAudit({ limit: 1000 })).map((a) => a.id);
    const paged: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await admin.auditPage({ after, limit: 4 });
      paged.push(...page.entries.map((a) => a.id));
      if (page.next === null) break;
      after = page.next;
    }
    expect(paged).toEqual(newest);
    const streamed: string[] = [];
    for await (const a of admin.allAudit({ entity: 'merchants' }, 2)) streamed.push(a.id);
    expect(streamed).toEqual((await admin.listAudit({ entity: 'merchants', limit: 1000 })).map((a) => a.id));
    const err = await refusal(admin.auditPage({ after: 'no-such-record' }));
    expect(err.problems).toEqual(['after: no audit record no-such-record (the cursor is the id a page ends with)']);
  });
});

describe('paged fee rules', () => {
  it('fee list pages through a channel\'s rules in its order', async () => {
    const ids = (await admin.importMerchants('name,channels\nF1,bca_va\nF2,bca_va\nF3,bca_va\n')).merchants.map((m) => m.merchantId);
    for (const id of ids) await admin.setFee({ channel: 'bca_va', merchantId: id, bands: '*:0:4500' });
    const whole = (await admin.listFees('bca_va')).map((r) => r.id);
    expect(whole.length).toBeGreaterThanOrEqual(4);
    const paged: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await admin.feesPage('bca_va', { after, limit: 2 });
      paged.push(...page.rules.map((r) => r.id));
      if (page.next === null) break;
      after = page.next;
    }
    expect(paged).toEqual(whole);
    await expect(admin.feesPage('bca_va', { after: 'no-such-rule' })).rejects.toThrow(/after: rule no-such-rule is not in this list/);
  });
});

describe('changes read what they touch', () => {
  it('a channel change re-checks only the enablements that override it, and still refuses one it would break', async () => {
    const created = await admin.importMerchants('name,channels\nPlain One,dana\nPlain Two,dana\nOverriding,dana\n');
    const overriding = created.merchants[2]!.merchantId;
    await admin.enableChannel(overriding, 'dana', { maxAmount: '20000' });
    const read = await t.store.admin.overriddenEnablementsOf((await t.store.admin.findChannel('dana'))!.id);
    expect(read.map((e) => e.merchantId)).toContain(overriding);
    expect(read.map((e) => e.merchantId)).not.toContain(created.merchants[0]!.merchantId);
    expect(read.every((e) => [e.feePercentage, e.feeValue, e.additionalFeePercentage, e.additionalFeeValue, e.minAmount, e.maxAmount, e.feeChargedToCustomer].some((v) => v !== null))).toBe(true);
    // The override makes a minimum above 20,000 invalid for that merchant: the change is refused, naming it.
    const err = await refusal(admin.updateChannel('dana', { minAmount: '30000' }));
    expect(err.problems.join('\n')).toContain(`with the overrides of merchant ${overriding}`);
    const after = await admin.updateChannel('dana', { status: 'maintenance' });
    expect(after.enabledFor).toBe(await count(`merchant_channels where channel_id = '${after.id}'`));
    await admin.updateChannel('dana', { status: 'active' });
  });

  it("a merchant's fee rules are read for that merchant, its category and the channel only", async () => {
    const [a, b] = (await admin.importMerchants('name,category,channels\nRule A,micro,ovo\nRule B,regular,ovo\n')).merchants.map((m) => m.merchantId);
    const ruleA = await admin.setFee({ channel: 'ovo', merchantId: a!, bands: '*:1.5:0' });
    const ruleB = await admin.setFee({ channel: 'ovo', merchantId: b!, bands: '*:1.7:0' });
    const channelId = (await t.store.admin.findChannel('ovo'))!.id;
    const forA = (await t.store.admin.feeRulesFor(channelId, { merchantId: a!, category: 'micro' })).map((r) => r.id);
    expect(forA).toContain(ruleA.id);
    expect(forA).not.toContain(ruleB.id);
    expect((await admin.listFees('ovo', a))[0]).toMatchObject({ id: ruleA.id, state: 'in-force' });
  });
});
