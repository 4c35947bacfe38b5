/**
 * Pricing rules (contract §7): rule selection by scope and
 * instant, band selection, whole-amount pricing on top of the §5 calculator,
 * the CLI band syntax and merchant categories. Tables pin the edges (band
 * bounds, the instant a rule starts, ties, cancellation); properties cover
 * random bands, amounts and rule sets.
 */
import fc from 'fast-check';
import { plainFee } from '../helpers/fee-oracle.js';
import { describe, expect, it } from 'vitest';
import { calculateFee } from '../../src/modules/pricing/domain/fee.js';
import { Big, scaleOf, toDecimalString } from '../../src/shared/money.js';
import {
  bandFor,
  DEFAULT_CATEGORY,
  flatRule,
  formatBands,
  formatInstant,
  nextTransition,
  parseBands,
  parseInstant,
  priceWithRule,
  ruleInForce,
  scheduledRules,
  validateCategory,
  type ChannelPricing,
  type FeeBand,
  type FeeRule,
  type RuleScope,
  type RuleSubject,
} from '../../src/modules/pricing/domain/pricing.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const T1 = Date.parse('2025-07-01T00:00:00.000Z'); // a scheduled change
const WHO: RuleSubject = { merchantId: 'm-1', category: 'micro' };

/** Bands from the CLI syntax; a test input that does not parse is a broken test. */
function bands(text: string, minorUnits = 0): FeeBand[] {
  const parsed = parseBands(text, minorUnits);
  if (!parsed.ok) throw new Error(`test bands ${text}: ${parsed.problems.join('; ')}`);
  return parsed.value;
}

function rule(id: string, over: Partial<FeeRule> & { from?: number; created?: number } = {}): FeeRule {
  const { from, created, ...rest } = over;
  const scope: RuleScope = rest.scope ?? 'CHANNEL';
  return {
    id,
    channelCode: 'qris',
    scope,
    ...(scope === 'MERCHANT' ? { merchantId: WHO.merchantId } : {}),
    ...(scope === 'CATEGORY' ? { category: WHO.category } : {}),
    bands: bands('*:0.7:0'),
    effectiveFrom: formatInstant(from ?? T0),
    createdAt: formatInstant(created ?? T0),
    cancelledAt: null,
    ...rest,
  };
}

function channel(over: Partial<ChannelPricing> = {}): ChannelPricing {
  return {
    currency: 'IDR',
    minorUnits: 0,
    additionalFee: { percentage: '0', fixed: '0' },
    feeChargedToCustomer: true,
    ...over,
  };
}

const idOf = (r: FeeRule | null) => r?.id ?? null;

describe('worked examples (contract §2 and §7)', () => {
  const micro = rule('qris-micro', { bands: bands('500000:0:0,*:0.3:0') });

  it.each([
    ['150000 is in the free band', '150000', '0', '150000'],
    ['500000 is still in the free band (bounds are inclusive)', '500000', '0', '500000'],
    ['500001 moves the WHOLE amount to 0.3 %: 1500.003 → 1500', '500001', '1500', '501501'],
    ['1,000,000 → 3,000 IDR', '1000000', '3000', '1003000'],
  ])('QRIS micro "500000:0:0,*:0.3:0": %s', (_d, amount, fee, total) => {
    const r = priceWithRule(micro, channel(), new Big(amount), true);
    expect([r.fee, r.totalAmount, r.getBalance]).toEqual([fee, total, amount]);
  });

  it('a flat 0.7 % rule reproduces the contract sample (150000 → fee 1050, total 151050)', () => {
    const r = priceWithRule(flatRule({ id: 'flat', channelCode: 'qris', percentage: '0.7', fixed: '0' }, T0), channel(), new Big(150000));
    expect(r).toMatchObject({ amount: '150000', fee: '1050', additionalFee: '0', totalAmount: '151050', getBalance: '150000', currency: 'IDR' });
  });
});

describe('bandFor: the first band whose upTo ≥ amount, else the last', () => {
  const idr = rule('idr', { bands: bands('1000:1:0,5000:2:0,*:3:0') });
  const usd = rule('usd', { bands: bands('10.5:1:0,*:2:0', 2) });

  it.each([
    [idr, '1', 0],
    [idr, '999', 0],
    [idr, '1000', 0], // exactly at upTo
    [idr, '1001', 1], // upTo + one minor unit
    [idr, '4999', 1],
    [idr, '5000', 1],
    [idr, '5001', 2],
    [idr, '10000000000000', 2],
    [usd, '10.49', 0],
    [usd, '10.5', 0],
    [usd, '10.51', 1], // a cent above the bound, not a whole unit
  ])('%#: amount %s → band %i', (r, amount, index) => {
    const chosen = bandFor(r, new Big(amount));
    expect(chosen.index).toBe(index);
    expect(chosen.band).toBe((r).bands[index]);
  });

  it('a one-band rule prices every amount with that band', () => {
    const flat = rule('flat');
    for (const a of ['1', '500000', '9999999999999']) expect(bandFor(flat, new Big(a)).index).toBe(0);
  });

  it('refuses a rule with no bands rather than pricing at zero', () => {
    expect(() => bandFor(rule('empty', { bands: [] }), new Big(1))).toThrow(/no bands/);
  });
});

describe('ruleInForce: precedence merchant → category → channel default', () => {
  const merchant = rule('merchant', { scope: 'MERCHANT' });
  const category = rule('category', { scope: 'CATEGORY' });
  const channelDefault = rule('channel', { scope: 'CHANNEL' });

  it.each([
    [[merchant, category, channelDefault], 'merchant'],
    [[merchant, category], 'merchant'],
    [[merchant, channelDefault], 'merchant'],
    [[merchant], 'merchant'],
    [[category, channelDefault], 'category'],
    [[category], 'category'],
    [[channelDefault], 'channel'],
    [[], null],
  ])('%#: present %j → %s', (rules, expected) => {
    expect(idOf(ruleInForce(rules as FeeRule[], WHO, T0))).toBe(expected);
    expect(idOf(ruleInForce([...(rules as FeeRule[])].reverse(), WHO, T0))).toBe(expected);
  });

  it("another merchant's or another category's rule never applies", () => {
    const others = [rule('other-merchant', { scope: 'MERCHANT', merchantId: 'm-2' }), rule('other-category', { scope: 'CATEGORY', category: 'regular' })];
    expect(idOf(ruleInForce([...others, channelDefault], WHO, T0))).toBe('channel');
    expect(idOf(ruleInForce(others, WHO, T0))).toBeNull();
    expect(idOf(ruleInForce(others, { merchantId: 'm-2', category: 'regular' }, T0))).toBe('other-merchant');
    expect(idOf(ruleInForce(others.slice(1), { merchantId: 'm-2', category: 'regular' }, T0))).toBe('other-category');
  });

  it('a more specific rule that has not started yet leaves the less specific one in force', () => {
    const futureMerchant = rule('merchant-later', { scope: 'MERCHANT', from: T1 });
    expect(idOf(ruleInForce([futureMerchant, category, channelDefault], WHO, T1 - 1))).toBe('category');
    expect(idOf(ruleInForce([futureMerchant, category, channelDefault], WHO, T1))).toBe('merchant-later');
  });
});

describe('ruleInForce: schedules, ties and cancellation', () => {
  const current = rule('current', { from: T0 });
  const next = rule('next', { from: T1, created: T0 + 5 });

  it.each([
    ['before any rule starts', T0 - 1, null],
    ['exactly when the first starts', T0, 'current'],
    ['1 ms before the scheduled one', T1 - 1, 'current'],
    ['exactly at effectiveFrom', T1, 'next'],
    ['1 ms after effectiveFrom', T1 + 1, 'next'],
  ])('%s', (_d, at, expected) => {
    expect(idOf(ruleInForce([current, next], WHO, at))).toBe(expected);
    expect(idOf(ruleInForce([next, current], WHO, at))).toBe(expected);
  });

  it('a cancelled scheduled rule never applies, not even after its start', () => {
    const cancelled = { ...next, cancelledAt: formatInstant(T0 + 10) };
    for (const at of [T1 - 1, T1, T1 + 1]) expect(idOf(ruleInForce([current, cancelled], WHO, at))).toBe('current');
  });

  it('a cancelled rule is skipped in favour of the same scope\'s previous one, then the next scope', () => {
    const older = rule('older', { scope: 'MERCHANT', from: T0 - 1000 });
    const cancelledMerchant = rule('cancelled', { scope: 'MERCHANT', from: T0, cancelledAt: formatInstant(T0) });
    expect(idOf(ruleInForce([older, cancelledMerchant, current], WHO, T0))).toBe('older');
    expect(idOf(ruleInForce([cancelledMerchant, current], WHO, T0))).toBe('current');
  });

  it('equal effectiveFrom: the later createdAt wins, then the greater id; input order does not matter', () => {
    const early = rule('b', { from: T0, created: T0 - 2000 });
    const late = rule('a', { from: T0, created: T0 - 1000 });
    expect(idOf(ruleInForce([early, late], WHO, T0))).toBe('a');
    expect(idOf(ruleInForce([late, early], WHO, T0))).toBe('a');
    const twinA = rule('a', { from: T0, created: T0 });
    const twinB = rule('b', { from: T0, created: T0 });
    expect(idOf(ruleInForce([twinA, twinB], WHO, T0))).toBe('b');
    expect(idOf(ruleInForce([twinB, twinA], WHO, T0))).toBe('b');
  });

  it('a later effectiveFrom beats a later createdAt (the schedule decides, not the order of entry)', () => {
    const enteredFirst = rule('entered-first', { from: T0 + 1, created: T0 - 5000 });
    const enteredLast = rule('entered-last', { from: T0, created: T0 + 9000 });
    expect(idOf(ruleInForce([enteredLast, enteredFirst], WHO, T0 + 10_000))).toBe('entered-first');
  });

  it('instants with an offset are the same instant as their UTC form', () => {
    const jakarta = rule('jakarta', { effectiveFrom: '2025-07-01T07:00:00+07:00' });
    expect(idOf(ruleInForce([current, jakarta], WHO, T1 - 1))).toBe('current');
    expect(idOf(ruleInForce([current, jakarta], WHO, T1))).toBe('jakarta');
  });

  it('fails loudly on mixed channels, corrupt instants and a non-finite instant (never "no rule")', () => {
    expect(() => ruleInForce([current, { ...next, channelCode: 'ovo' }], WHO, T0)).toThrow(/different channels/);
    expect(() => ruleInForce([{ ...current, effectiveFrom: '2025-02-30T00:00:00Z' }], WHO, T0)).toThrow(/current: effectiveFrom/);
    expect(() => ruleInForce([current], WHO, Number.NaN)).toThrow(/finite/);
    expect(() => scheduledRules([current, { ...next, channelCode: 'ovo' }], WHO, T0)).toThrow(/different channels/);
    expect(() => nextTransition([current], Number.POSITIVE_INFINITY)).toThrow(/finite/);
  });
});

describe('scheduledRules and nextTransition', () => {
  const rules = [
    rule('channel-now', { from: T0 }),
    rule('channel-later', { from: T1 + 2000 }),
    rule('category-later', { scope: 'CATEGORY', from: T1 }),
    rule('merchant-later', { scope: 'MERCHANT', from: T1 + 1000 }),
    rule('merchant-cancelled', { scope: 'MERCHANT', from: T1 - 1000, cancelledAt: formatInstant(T0) }),
    rule('other-merchant', { scope: 'MERCHANT', merchantId: 'm-2', from: T1 - 500 }),
    rule('other-category', { scope: 'CATEGORY', category: 'regular', from: T1 - 400 }),
  ];

  it('lists the applicable, not-cancelled, future rules in the order they take effect', () => {
    expect(scheduledRules(rules, WHO, T0).map((r) => r.id)).toEqual(['category-later', 'merchant-later', 'channel-later']);
    expect(scheduledRules(rules, WHO, T1).map((r) => r.id)).toEqual(['merchant-later', 'channel-later']); // starting now = in force, not scheduled
    expect(scheduledRules(rules, WHO, T1 + 2000)).toEqual([]);
  });

  it('equal start instants are listed in the order that makes the last one win', () => {
    const a = rule('a', { from: T1, created: T0 + 2 });
    const b = rule('b', { from: T1, created: T0 + 1 });
    const c = rule('c', { from: T1, created: T0 + 2 });
    expect(scheduledRules([c, a, b], WHO, T0).map((r) => r.id)).toEqual(['b', 'a', 'c']);
    expect(idOf(ruleInForce([c, a, b], WHO, T1))).toBe('c');
  });

  it('nextTransition: the earliest start after the instant, any channel or scope, cancelled ones ignored', () => {
    expect(nextTransition(rules, T0)).toBe(T1 - 500);
    expect(nextTransition(rules, T1 - 500)).toBe(T1 - 400); // a rule starting exactly now is not "next"
    expect(nextTransition(rules, T1)).toBe(T1 + 1000);
    expect(nextTransition(rules, T1 + 2000)).toBeNull();
    expect(nextTransition([...rules, { ...rule('ovo-soon', { from: T0 + 1 }), channelCode: 'ovo' }], T0)).toBe(T0 + 1);
    expect(nextTransition([], T0)).toBeNull();
  });
});

describe('priceWithRule: the applied band and rule in the breakdown, additionalFee unchanged', () => {
  const tiered = rule('tiered', { scope: 'CATEGORY', from: T1, bands: bands('100000:1:500,*:0.5:1000') });

  it.each([
    // [amount, bearer, fee, additional, total, balance, band]
    ['100000', true, '1500', '300', '101800', '100000', 0], // 1000 + 500; additional 0.2 % + 100
    ['100001', true, '1500', '300', '101801', '100001', 1], // one unit above the bound: 500.005 → 500, + 1000
    ['100100', false, '1501', '300', '100100', '98299', 1], // 500.5 → 501 (half-up), + 1000; additional 200.2 → 200, + 100
    ['100000', null, '1500', '300', '100000', '98200', 0], // channel default: merchant bears
  ])('%s, customer bears: %s', (amount, toCustomer, fee, additional, total, balance, bandIndex) => {
    const ch = channel({ additionalFee: { percentage: '0.2', fixed: '100' }, feeChargedToCustomer: false });
    const r = priceWithRule(tiered, ch, new Big(amount), toCustomer);
    expect([r.fee, r.additionalFee, r.totalAmount, r.getBalance]).toEqual([fee, additional, total, balance]);
    expect(r.breakdown.pricing).toEqual({ ruleId: 'tiered', source: 'CATEGORY', effectiveFrom: formatInstant(T1), bandIndex, band: tiered.bands[bandIndex] });
    expect(r.breakdown.fee).toMatchObject({ percentage: tiered.bands[bandIndex]!.percentage, fixedPart: tiered.bands[bandIndex]!.fixed });
    expect(r.breakdown.additionalFee).toMatchObject({ percentage: '0.2', fixedPart: '100', total: '300' });
  });

  it('USD: half-up at the cent on the whole amount', () => {
    const r = priceWithRule(rule('usd', { bands: bands('100:2.9:0.3,*:1:0', 2) }), channel({ currency: 'USD', minorUnits: 2 }), new Big('10.05'), true);
    expect([r.fee, r.totalAmount, r.currency]).toEqual(['0.59', '10.64', 'USD']);
  });
});

describe('flatRule: today\'s flat settings as a one-band rule effective now', () => {
  it('channel settings → CHANNEL rule; a merchant override → MERCHANT rule; in force from now, not 1 ms before', () => {
    const ch = flatRule({ id: 'c', channelCode: 'qris', percentage: '0.70', fixed: '0' }, T1);
    expect(ch).toEqual({ id: 'c', channelCode: 'qris', scope: 'CHANNEL', bands: [{ upTo: null, percentage: '0.7', fixed: '0' }], effectiveFrom: '2025-07-01T00:00:00.000Z', createdAt: '2025-07-01T00:00:00.000Z', cancelledAt: null });
    const m = flatRule({ id: 'm', channelCode: 'qris', merchantId: WHO.merchantId, percentage: '1.5', fixed: '2000' }, T1);
    expect(m).toMatchObject({ scope: 'MERCHANT', merchantId: WHO.merchantId });
    expect(m.category).toBeUndefined();
    expect(idOf(ruleInForce([ch, m], WHO, T1))).toBe('m');
    expect(idOf(ruleInForce([ch, m], WHO, T1 - 1))).toBeNull();
  });

  it('prices exactly like the existing flat calculator', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 1e12 }), fc.boolean(), (p, f, a, toCustomer) => {
        const percentage = toDecimalString(new Big(p).div(10_000));
        const fixed = String(f);
        const flat = priceWithRule(flatRule({ id: 'f', channelCode: 'qris', percentage, fixed }, T0), channel({ additionalFee: { percentage: '0.1', fixed: '5' } }), new Big(a), toCustomer);
        const before = calculateFee({ ...channel({ additionalFee: { percentage: '0.1', fixed: '5' } }), fee: { percentage, fixed } }, new Big(a), toCustomer);
        const { pricing, ...breakdown } = flat.breakdown;
        expect({ ...flat, breakdown }).toEqual(plainFee(before));
        expect(pricing.bandIndex).toBe(0);
      }),
    );
  });
});

describe('parseBands / formatBands: the CLI syntax "UPTO:PCT:FIXED,…"', () => {
  it('parses and canonicalises, with spaces allowed around values', () => {
    expect(parseBands(' 500000 : 0 : 0 , * : 0.30 : 0 ', 0)).toEqual({
      ok: true,
      value: [{ upTo: '500000', percentage: '0', fixed: '0' }, { upTo: null, percentage: '0.3', fixed: '0' }],
    });
    expect(parseBands('10.50:2.9:0.30,*:1:0', 2)).toEqual({ ok: true, value: [{ upTo: '10.5', percentage: '2.9', fixed: '0.3' }, { upTo: null, percentage: '1', fixed: '0' }] });
    expect(formatBands([{ upTo: '500000.0', percentage: '0.30', fixed: '0' }, { upTo: null, percentage: '0.3', fixed: '0' }])).toBe('500000:0.3:0,*:0.3:0');
  });

  it.each([
    ['empty list', '  ', 0, ['bands: must not be empty (e.g. "*:0.7:0" for a flat 0.7 %)']],
    ['empty band', '100:0:0,,*:1:0', 0, ['band 2: empty (two commas in a row, or a trailing comma)']],
    ['malformed band', '100:0,*:1:0', 0, ['band 1 "100:0": must be UPTO:PCT:FIXED (three values separated by ":")']],
    ['malformed open band counts as the open band', '100:0:0,*:1', 0, ['band 2 "*:1": must be UPTO:PCT:FIXED (three values separated by ":")']],
    ['non-numeric', 'abc:x:1e,*:1:0', 0, ['band 1 "abc:x:1e": upTo must be a number', 'band 1 "abc:x:1e": percentage must be a number', 'band 1 "abc:x:1e": fixed must be a number']],
    ['negative values', '-5:0:0,*:-1:-2', 0, ['band 1 "-5:0:0": upTo must not be negative', 'band 2 "*:-1:-2": percentage must not be negative', 'band 2 "*:-1:-2": fixed must not be negative']],
    ['percentage above 100', '*:100.5:0', 0, ['band 1 "*:100.5:0": percentage must be at most 100 (percent)']],
    ['percentage exactly 100 is allowed', '*:100:0', 0, []],
    ['too many percentage decimals', '*:0.12345:0', 0, ['band 1 "*:0.12345:0": percentage must have at most 4 decimals']],
    ['more decimals than the currency (IDR)', '1.5:0:0,*:0:0.5', 0, ['band 1 "1.5:0:0": upTo has more decimals than the currency allows (0)', 'band 2 "*:0:0.5": fixed has more decimals than the currency allows (0)']],
    ['more decimals than the currency (USD)', '1.005:0:0,*:0:0.001', 2, ['band 1 "1.005:0:0": upTo has more decimals than the currency allows (2)', 'band 2 "*:0:0.001": fixed has more decimals than the currency allows (2)']],
    ['cents are fine in USD', '1.05:0:0,*:0:0.01', 2, []],
    ['upTo of zero', '0:0:0,*:1:0', 0, ['band 1 "0:0:0": upTo must be greater than 0 (a band must be able to hold an amount)']],
    ['not ascending', '1000:0:0,500:1:0,*:2:0', 0, ['band 2 "500:1:0": upTo 500 is not above band 1\'s 1000 (bands must be strictly ascending)']],
    ['duplicate upTo (also as 1000.0)', '1000:0:0,1000.0:1:0,*:2:0', 0, ['band 2 "1000.0:1:0": duplicate upTo 1000 (band 1 has the same bound)']],
    ['a band after *', '100:0:0,*:1:0,200:2:0', 0, ['band 3 "200:2:0": follows the "*" band (band 2); "*" must be the last band']],
    ['two * bands', '*:1:0,*:2:0', 0, ['band 2 "*:2:0": follows the "*" band (band 1); "*" must be the last band']],
    ['missing final *', '100:0:0,200:1:0', 0, ['bands: the last band must be "*:PCT:FIXED" (amounts above 200 would have no band)']],
  ])('%s', (_d, text, minorUnits, problems) => {
    const r = parseBands(text, minorUnits);
    if (problems.length === 0) expect(r.ok).toBe(true);
    else expect(r).toEqual({ ok: false, problems });
  });

  it('reports every problem at once, ordering included when a band has other faults', () => {
    const r = parseBands('abc:0:0,100:-1:0.5,100:101:0,50:x:0,,*:1:0,7:2', 0);
    expect(r).toEqual({
      ok: false,
      problems: [
        'band 1 "abc:0:0": upTo must be a number',
        'band 2 "100:-1:0.5": percentage must not be negative',
        'band 2 "100:-1:0.5": fixed has more decimals than the currency allows (0)',
        'band 3 "100:101:0": percentage must be at most 100 (percent)',
        'band 3 "100:101:0": duplicate upTo 100 (band 2 has the same bound)',
        'band 4 "50:x:0": percentage must be a number',
        'band 4 "50:x:0": upTo 50 is not above band 2\'s 100 (bands must be strictly ascending)',
        'band 5: empty (two commas in a row, or a trailing comma)',
        'band 7 "7:2": follows the "*" band (band 6); "*" must be the last band',
        'band 7 "7:2": must be UPTO:PCT:FIXED (three values separated by ":")',
      ],
    });
  });

  it('refuses a nonsensical minorUnits (a caller bug, not operator input)', () => {
    expect(() => parseBands('*:1:0', -1)).toThrow(/minorUnits/);
    expect(() => parseBands('*:1:0', 1.5)).toThrow(/minorUnits/);
  });
});

describe('validateCategory', () => {
  it.each([
    [undefined, { ok: true, value: DEFAULT_CATEGORY }],
    [null, { ok: true, value: 'regular' }],
    ['micro', { ok: true, value: 'micro' }],
    [' umkm_2-b ', { ok: true, value: 'umkm_2-b' }],
    ['a'.repeat(32), { ok: true, value: 'a'.repeat(32) }],
  ])('%j is accepted', (code, expected) => {
    expect(validateCategory(code)).toEqual(expected);
  });

  it.each(['', 'Micro', '1micro', '_micro', 'mi cro', 'a'.repeat(33), 'mikro!'])('%j is refused with a message', (code) => {
    expect(validateCategory(code)).toEqual({ ok: false, problems: ['category: must be 1-32 characters of a-z, 0-9, "_" or "-", starting with a letter (lower case)'] });
  });
});

describe('parseInstant', () => {
  it.each([
    ['2025-07-01T00:00:00Z', T1],
    ['2025-07-01T00:00:00.000Z', T1],
    ['2025-07-01T00:00:00.5Z', T1 + 500],
    ['2025-07-01T07:00:00+07:00', T1],
    ['2025-06-30T19:30:00-04:30', T1],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
  ])('%s', (text, ms) => {
    expect(parseInstant(text)).toBe(ms);
  });

  it.each(['2025-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2025-07-01T24:00:00Z', '2025-07-01T00:00:60Z', '2025-07-01T00:00:00', '2025-07-01', '2025-07-01T00:00Z', '2025-07-01T00:00:00.0001Z', '2025-07-01T00:00:00+24:00', 'now', ''])(
    '%j is not an instant',
    (text) => {
      expect(parseInstant(text)).toBeNull();
    },
  );

  it('formatInstant is its canonical inverse', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) => parseInstant(formatInstant(ms)) === ms));
  });
});

// ---------------------------------------------------------------------------
// Properties

/** Valid bands in a currency with `minorUnits` decimals: strictly ascending bounds, then `*`. */
function bandsArb(minorUnits: number) {
  const unit = new Big(10).pow(minorUnits);
  const money = (n: number) => toDecimalString(new Big(n).div(unit));
  const pct = fc.integer({ min: 0, max: 1_000_000 }).map((n) => toDecimalString(new Big(n).div(10_000))); // 0..100 %, 4 decimals
  const fixed = fc.integer({ min: 0, max: 100_000_000 }).map(money);
  return fc
    .uniqueArray(fc.integer({ min: 1, max: 1e13 }), { maxLength: 6 })
    .chain((bounds) => {
      const sorted = [...bounds].sort((a, b) => a - b);
      return fc.tuple(...[...sorted.map((b) => money(b)), null].map((upTo) => fc.record({ upTo: fc.constant(upTo), percentage: pct, fixed })));
    })
    .map((b): FeeBand[] => b);
}

/** An amount of minor units, often right at a band edge or one minor unit either side. */
function amountFor(bandList: FeeBand[], minorUnits: number) {
  const unit = new Big(10).pow(minorUnits);
  const edges = bandList.flatMap((b) => (b.upTo === null ? [] : [new Big(b.upTo).times(unit).toNumber()]));
  const random = fc.integer({ min: 1, max: 1e13 });
  const nearEdge = edges.length === 0 ? random : fc.tuple(fc.constantFrom(...edges), fc.integer({ min: -1, max: 1 })).map(([e, d]) => Math.max(1, e + d));
  return fc.oneof(random, nearEdge).map((n) => new Big(n).div(unit));
}

const pricedCase = fc.constantFrom(0, 2).chain((minorUnits) =>
  bandsArb(minorUnits).chain((bandList) => fc.record({ minorUnits: fc.constant(minorUnits), bandList: fc.constant(bandList), amount: amountFor(bandList, minorUnits) })),
);

describe('pricing properties', () => {
  it('the chosen band contains the amount and no earlier band does', () => {
    fc.assert(
      fc.property(pricedCase, ({ bandList, amount }) => {
        const { index, band } = bandFor(rule('p', { bands: bandList }), amount);
        expect(band).toBe(bandList[index]);
        if (band.upTo !== null) expect(amount.lte(band.upTo)).toBe(true);
        for (const earlier of bandList.slice(0, index)) expect(amount.gt(earlier.upTo!)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('totals add up for both fee bearers, exact to the minor unit, fee within half a unit of the band formula', () => {
    fc.assert(
      fc.property(pricedCase, fc.boolean(), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 100_000 }), ({ minorUnits, bandList, amount }, toCustomer, addPct, addFixed) => {
        const ch = channel({ minorUnits, additionalFee: { percentage: toDecimalString(new Big(addPct).div(1000)), fixed: toDecimalString(new Big(addFixed).div(new Big(10).pow(minorUnits))) } });
        const r = priceWithRule(rule('p', { bands: bandList }), ch, amount, toCustomer);
        const fee = new Big(r.fee);
        const add = new Big(r.additionalFee);
        if (toCustomer) {
          expect(new Big(r.totalAmount).eq(amount.plus(fee).plus(add))).toBe(true);
          expect(new Big(r.getBalance).eq(amount)).toBe(true);
        } else {
          expect(new Big(r.totalAmount).eq(amount)).toBe(true);
          expect(new Big(r.getBalance).eq(amount.minus(fee).minus(add))).toBe(true);
        }
        for (const v of [r.fee, r.additionalFee, r.totalAmount, r.getBalance]) expect(scaleOf(new Big(v))).toBeLessThanOrEqual(minorUnits);
        // The whole amount is priced by the applied band (not split across bands).
        const band = r.breakdown.pricing.band;
        const exact = amount.times(band.percentage).div(100).plus(band.fixed);
        expect(fee.minus(exact).abs().lte(new Big(0.5).div(new Big(10).pow(minorUnits)))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('parseBands(formatBands(b)) round-trips', () => {
    fc.assert(
      fc.property(fc.constantFrom(0, 2).chain((mu) => fc.tuple(fc.constant(mu), bandsArb(mu))), ([minorUnits, bandList]) => {
        expect(parseBands(formatBands(bandList), minorUnits)).toEqual({ ok: true, value: bandList });
      }),
      { numRuns: 300 },
    );
  });

  /** Random rule sets for one channel over a few merchants, categories and instants. */
  const ruleSet = fc.array(
    fc.record({
      scope: fc.constantFrom<RuleScope>('CHANNEL', 'CATEGORY', 'MERCHANT'),
      merchantId: fc.constantFrom('m-1', 'm-2'),
      category: fc.constantFrom('micro', 'regular'),
      from: fc.integer({ min: 0, max: 20 }),
      created: fc.integer({ min: 0, max: 3 }),
      id: fc.constantFrom('a', 'b', 'c', 'd'),
      cancelled: fc.boolean(),
    }),
    { maxLength: 12 },
  ).map((specs) =>
    // Ids are unique, as stored ids are; the random letter first makes id order differ from position.
    specs.map((s, i): FeeRule => ({
      id: `${s.id}${i}`,
      channelCode: 'qris',
      scope: s.scope,
      ...(s.scope === 'MERCHANT' ? { merchantId: s.merchantId } : {}),
      ...(s.scope === 'CATEGORY' ? { category: s.category } : {}),
      bands: [{ upTo: null, percentage: '1', fixed: '0' }],
      effectiveFrom: formatInstant(T0 + s.from),
      createdAt: formatInstant(T0 + s.created),
      cancelledAt: s.cancelled ? formatInstant(T0) : null,
    })),
  );
  const subject = fc.record({ merchantId: fc.constantFrom('m-1', 'm-2'), category: fc.constantFrom('micro', 'regular') });

  it('ruleInForce picks an applicable rule in force, of the most specific scope that has one, latest in that scope', () => {
    const rank = (r: FeeRule) => [Date.parse(r.effectiveFrom), Date.parse(r.createdAt), r.id] as const;
    const after = (a: FeeRule, b: FeeRule) => {
      const [x, y] = [rank(a), rank(b)];
      return x[0] !== y[0] ? x[0] > y[0] : x[1] !== y[1] ? x[1] > y[1] : x[2] > y[2];
    };
    fc.assert(
      fc.property(ruleSet, subject, fc.integer({ min: -1, max: 21 }), (rules, who, offset) => {
        const at = T0 + offset;
        const eligible = rules.filter(
          (r) => r.cancelledAt === null && Date.parse(r.effectiveFrom) <= at && (r.scope === 'CHANNEL' || (r.scope === 'MERCHANT' ? r.merchantId === who.merchantId : r.category === who.category)),
        );
        const chosen = ruleInForce(rules, who, at);
        if (eligible.length === 0) {
          expect(chosen).toBeNull();
          return;
        }
        expect(chosen).not.toBeNull();
        expect(eligible).toContain(chosen);
        const order: RuleScope[] = ['MERCHANT', 'CATEGORY', 'CHANNEL'];
        for (const other of eligible) {
          expect(order.indexOf(other.scope)).toBeGreaterThanOrEqual(order.indexOf(chosen!.scope));
          if (other.scope === chosen!.scope && other !== chosen) expect(after(other, chosen!)).toBe(false);
        }
        // Input order never matters.
        expect(ruleInForce([...rules].reverse(), who, at)).toBe(chosen);
      }),
      { numRuns: 500 },
    );
  });

  it('nothing changes between an instant and nextTransition; scheduledRules are exactly the applicable future ones', () => {
    fc.assert(
      fc.property(ruleSet, subject, fc.integer({ min: -1, max: 21 }), (rules, who, offset) => {
        const at = T0 + offset;
        const next = nextTransition(rules, at);
        const now = ruleInForce(rules, who, at);
        const scheduled = scheduledRules(rules, who, at);
        if (next === null) {
          expect(scheduled).toEqual([]);
          expect(ruleInForce(rules, who, T0 + 1e9)).toBe(now);
          return;
        }
        expect(next).toBeGreaterThan(at);
        for (let t = at; t < next; t++) expect(ruleInForce(rules, who, t)).toBe(now);
        for (const r of scheduled) expect(Date.parse(r.effectiveFrom)).toBeGreaterThanOrEqual(next);
        const starts = scheduled.map((r) => Date.parse(r.effectiveFrom));
        expect(starts).toEqual([...starts].sort((a, b) => a - b));
        const applicableFuture = rules.filter(
          (r) => r.cancelledAt === null && Date.parse(r.effectiveFrom) > at && (r.scope === 'CHANNEL' || (r.scope === 'MERCHANT' ? r.merchantId === who.merchantId : r.category === who.category)),
        );
        expect(new Set(scheduled)).toEqual(new Set(applicableFuture));
        expect(scheduled).toHaveLength(applicableFuture.length);
        // From its start on, a scheduled rule (or a more specific one) is in force.
        for (const r of scheduled) expect(ruleInForce(rules, who, Date.parse(r.effectiveFrom))).not.toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});
