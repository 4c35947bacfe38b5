import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, gql, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Ch {
  code: string;
  status: string;
  availability: { selectable: boolean; reasons: string[] };
}

async function data<T>(res: Response): Promise<{ data: T; errors?: { message: string; path?: string[]; extensions: Record<string, unknown> }[] }> {
  return (await res.json()) as never;
}

const AVAIL = '{ code status requiresKyc currency availability { selectable reasons } }';

describe('paymentChannels(filter)', () => {
  it('without arguments lists exactly the REST channels (parity)', async () => {
    for (const as of [t.approved, t.pending]) {
      const rest = (await (await t.signedFetch('/v1/payments/channel', { as })).json()) as { data: { code: string }[] };
      const plain = await data<{ paymentChannels: { code: string }[] }>(await gql(t, '{ paymentChannels { code } }', undefined, as));
      const empty = await data<{ paymentChannels: { code: string }[] }>(await gql(t, '{ paymentChannels(filter: {}) { code } }', undefined, as));
      expect(plain.data.paymentChannels.map((c) => c.code)).toEqual(rest.data.map((c) => c.code));
      expect(empty.data.paymentChannels.map((c) => c.code)).toEqual(rest.data.map((c) => c.code));
    }
  });

  it('shows status reasons and KYC-gated channels only on request', async () => {
    const pending = await data<{ paymentChannels: Ch[] }>(await gql(t, `{ paymentChannels { code } }`, undefined, t.pending));
    expect(pending.data.paymentChannels.map((c) => c.code)).not.toContain('qris');
    const all = await data<{ paymentChannels: Ch[] }>(await gql(t, `{ paymentChannels(filter: { includeIneligible: true }) ${AVAIL} }`, undefined, t.pending));
    const byCode = new Map(all.data.paymentChannels.map((c) => [c.code, c]));
    expect(byCode.get('qris')?.availability).toEqual({ selectable: false, reasons: ['KYC_REQUIRED'] });
    expect(byCode.get('mandiri_va')?.availability).toEqual({ selectable: false, reasons: ['MAINTENANCE'] });
    expect(byCode.get('permata_va')?.availability).toEqual({ selectable: false, reasons: ['OFFLINE'] });
    expect(byCode.get('bca_va')?.availability).toEqual({ selectable: true, reasons: [] });
    // The approved merchant sees QRIS selectable.
    const approved = await data<{ paymentChannels: Ch[] }>(await gql(t, `{ paymentChannels ${AVAIL} }`));
    expect(approved.data.paymentChannels.find((c) => c.code === 'qris')?.availability.selectable).toBe(true);
  });

  it('judges amount and currency, and selectableOnly keeps what a checkout can offer', async () => {
    const q = `query($f: PaymentChannelFilter) { paymentChannels(filter: $f) ${AVAIL} }`;
    const judged = await data<{ paymentChannels: Ch[] }>(await gql(t, q, { f: { amount: 5000, currency: 'USD' } }));
    const ovo = judged.data.paymentChannels.find((c) => c.code === 'ovo')!;
    expect(ovo.availability.reasons).toEqual(['CURRENCY_MISMATCH', 'AMOUNT_OUT_OF_RANGE']);
    const qris = judged.data.paymentChannels.find((c) => c.code === 'qris')!;
    expect(qris.availability.reasons).toEqual(['CURRENCY_MISMATCH']);

    const offer = await data<{ paymentChannels: Ch[] }>(await gql(t, q, { f: { amount: 5000, currency: 'IDR', selectableOnly: true } }));
    expect(offer.data.paymentChannels.map((c) => c.code)).toEqual(['qris', 'dana', 'shopeepay']);
    expect(offer.data.paymentChannels.every((c) => c.availability.selectable && c.status === 'ACTIVE')).toBe(true);

    const down = await data<{ paymentChannels: Ch[] }>(await gql(t, q, { f: { status: ['OFFLINE', 'MAINTENANCE'] } }));
    expect(down.data.paymentChannels.map((c) => c.code).sort()).toEqual(['mandiri_va', 'permata_va']);
  });

  it('rejects a bad filter with INVALID_REQUEST naming the field', async () => {
    const res = await gql(t, '{ paymentChannels(filter: { amount: 0 }) { code } }');
    const body = await data<null>(res);
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_REQUEST', field: 'filter.amount' });
  });
});

describe('PaymentChannel.fee and FeeCalculation.breakdown', () => {
  it('prices every channel in one request; one failing channel does not fail the list', async () => {
    const res = await gql(t, '{ paymentChannels { code fee(amount: 150000) { fee additionalFee totalAmount getBalance currency } } }');
    expect(res.status).toBe(200);
    const body = await data<{ paymentChannels: { code: string; fee: Record<string, unknown> | null }[] }>(res);
    const byCode = new Map(body.data.paymentChannels.map((c) => [c.code, c.fee]));
    expect(byCode.get('qris')).toEqual({ fee: 1050, additionalFee: 0, totalAmount: 151050, getBalance: 150000, currency: 'IDR' });
    expect(byCode.get('mandiri_va')).toBeNull();
    expect(byCode.get('permata_va')).toBeNull();
    const codes = body.errors?.map((e) => [e.path?.[1], e.extensions.code]);
    expect(codes).toEqual([
      [4, 'CHANNEL_UNAVAILABLE'],
      [5, 'CHANNEL_UNAVAILABLE'],
    ]);
    // As README and docs/API.md say: the path is the channel's index in the list, the message names the channel.
    expect(body.errors?.map((e) => [e.path, e.message])).toEqual([
      [['paymentChannels', 4, 'fee'], 'Channel "mandiri_va" is under maintenance.'],
      [['paymentChannels', 5, 'fee'], 'Channel "permata_va" is offline.'],
    ]);
    expect(body.data.paymentChannels[4]!.code).toBe('mandiri_va');
  });

  it('equals calculateFee for each channel, breakdown included', async () => {
    const q = `query($a: Decimal!) {
      paymentChannels(filter: { selectableOnly: true, amount: 250000 }) { code fee(amount: $a, chargeFeeToCustomer: false) { ...F } }
    }
    fragment F on FeeCalculation { amount fee additionalFee totalAmount getBalance currency
      breakdown { feeBearer rounding { mode decimals } fee { percentage percentagePart fixedPart total } additionalFee { percentage percentagePart fixedPart total } } }`;
    const list = await data<{ paymentChannels: { code: string; fee: Record<string, unknown> }[] }>(await gql(t, q, { a: 250000 }));
    expect(list.data.paymentChannels.length).toBeGreaterThan(5);
    for (const c of list.data.paymentChannels) {
      const one = await data<{ calculateFee: Record<string, unknown> }>(
        await gql(t, `query($i: CalculateFeeInput!) { calculateFee(input: $i) { ...F } } ${q.slice(q.indexOf('fragment'))}`, {
          i: { amount: 250000, currency: 'IDR', method: c.code, chargeFeeToCustomer: false },
        }),
      );
      expect(c.fee).toEqual(one.data.calculateFee);
    }
    const card = list.data.paymentChannels.find((c) => c.code === 'credit_card')!.fee;
    expect(card).toMatchObject({
      fee: 9250,
      additionalFee: 1000,
      totalAmount: 250000,
      getBalance: 239750,
      breakdown: {
        feeBearer: 'MERCHANT',
        rounding: { mode: 'HALF_UP', decimals: 0 },
        fee: { percentage: 2.9, percentagePart: 7250, fixedPart: 2000, total: 9250 },
        additionalFee: { percentage: 0, percentagePart: 0, fixedPart: 1000, total: 1000 },
      },
    });
  });
});

describe('schema documentation', () => {
  it('every type, field, argument and enum value of the schema has a description', async () => {
    const { buildSchema } = await import('../../src/graphql/schema.js');
    const { isObjectType, isInputObjectType, isEnumType, isScalarType } = await import('graphql');
    const missing: string[] = [];
    for (const type of Object.values(buildSchema().getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Boolean', 'Int', 'Float', 'ID'].includes(type.name)) continue;
      if (!type.description && !(isObjectType(type) && type.name === 'Query')) missing.push(type.name);
      if (isObjectType(type) || isInputObjectType(type)) {
        for (const f of Object.values(type.getFields())) {
          if (!f.description) missing.push(`${type.name}.${f.name}`);
          if ('args' in f) for (const a of f.args) if (!a.description) missing.push(`${type.name}.${f.name}(${a.name})`);
        }
      }
      if (isEnumType(type)) for (const v of type.getValues()) if (!v.description) missing.push(`${type.name}.${v.name}`);
      if (isScalarType(type) && !type.description) missing.push(type.name);
    }
    expect(missing).toEqual([]);
  });
});
