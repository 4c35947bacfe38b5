/**
 * Contract §14 instructions, pure rules and the rendering cache: what an operator may store, how placeholders
 * are filled, amounts and times in the language, and the cache's stated bound driven past.
 */
import { describe, expect, it } from 'vitest';
import {
  formatAmountFor,
  formatInstantFor,
  isIanaZone,
  MAX_SECTIONS,
  MAX_STEP_LENGTH,
  MAX_STEPS,
  parseInstructionSet,
  renderInstructionSet,
} from '../../src/modules/channels/domain/instructions.js';
import { InstructionService, MAX_RENDERED_INSTRUCTIONS } from '../../src/modules/channels/instructions.js';
import type { ChannelRepository, MerchantChannel } from '../../src/modules/catalogue/records.js';
import type { Principal } from '../../src/modules/auth/principal.js';
import { DEMO_INSTRUCTIONS } from '../../src/modules/admin/demo-instructions.js';
import { DEMO_CHANNELS } from '../../src/modules/admin/demo-seed.js';

const section = (steps: string[], key = 'atm', title = 'ATM') => ({ key, title, steps });

describe('validation (what an operator may store)', () => {
  it('accepts the demo sets, every channel, both languages', () => {
    for (const c of DEMO_CHANNELS) for (const l of ['id', 'en'] as const) expect(parseInstructionSet(DEMO_INSTRUCTIONS[c.code]![l]).ok, `${c.code} ${l}`).toBe(true);
  });

  it('refuses markup, unknown placeholders, stray braces and control characters, naming where', () => {
    const bad = parseInstructionSet([section(['<b>Bayar</b>', 'Kode {{voucher}}', 'Kode {pay_code}', 'a\nb'])]);
    expect(bad.ok).toBe(false);
    const problems = (bad as { problems: string[] }).problems.join('\n');
    expect(problems).toMatch(/steps\[0\] holds markup/);
    expect(problems).toMatch(/steps\[1\]: unknown placeholder \{\{voucher\}\}/);
    expect(problems).toMatch(/steps\[2\] holds a brace/);
    expect(problems).toMatch(/steps\[3\] holds a control character/);
    expect(parseInstructionSet([section(['ok'], 'atm', '{{amount}}')]).ok).toBe(false);
  });

  it('bounds: at most 8 sections, 15 steps each, 300 characters a step; keys unique', () => {
    expect(parseInstructionSet(Array.from({ length: MAX_SECTIONS }, (_, i) => section(['x'], `k${i}`))).ok).toBe(true);
    expect(parseInstructionSet(Array.from({ length: MAX_SECTIONS + 1 }, (_, i) => section(['x'], `k${i}`))).ok).toBe(false);
    expect(parseInstructionSet([section(Array(MAX_STEPS).fill('x'))]).ok).toBe(true);
    expect(parseInstructionSet([section(Array(MAX_STEPS + 1).fill('x'))]).ok).toBe(false);
    expect(parseInstructionSet([section(['x'.repeat(MAX_STEP_LENGTH)])]).ok).toBe(true);
    expect(parseInstructionSet([section(['x'.repeat(MAX_STEP_LENGTH + 1)])]).ok).toBe(false);
    expect(parseInstructionSet([section(['x']), section(['y'])]).ok).toBe(false);
    expect(parseInstructionSet({ sections: [section(['x'])] }).ok).toBe(true);
    expect(parseInstructionSet('x').ok).toBe(false);
    expect(parseInstructionSet([]).ok).toBe(false);
  });
});

describe('rendering', () => {
  it('fills what it has, leaves the rest as written and lists it in order; a value never becomes a placeholder', () => {
    const r = renderInstructionSet([section(['{{expires_at}} {{pay_code}} {{amount}}', '{{merchant_name}}'])], { pay_code: '{{amount}}', merchant_name: 'Toko' });
    expect(r.sections[0]!.steps).toEqual(['{{expires_at}} {{amount}} {{amount}}', 'Toko']);
    expect(r.unfilled).toEqual(['amount', 'expires_at']);
  });

  it('amounts exact and in the language; times in the language and the zone', () => {
    expect(formatAmountFor('150000', 'IDR', 0, 'id')).toBe('Rp 150.000');
    expect(formatAmountFor('150000', 'IDR', 0, 'en')).toBe('Rp 150.000');
    expect(formatAmountFor('1234567.5', 'USD', 2, 'en')).toBe('USD 1,234,567.50');
    expect(formatAmountFor('9999999999999.99', 'USD', 2, 'id')).toBe('USD 9.999.999.999.999,99');
    const at = Date.parse('2026-11-27T11:41:58Z');
    expect(formatInstantFor(at, 'id', 'Asia/Jakarta')).toBe('27 November 2026 pukul 18.41 WIB');
    expect(formatInstantFor(at, 'en', 'Asia/Jakarta')).toBe('November 27, 2026 at 6:41 PM GMT+7');
    expect(formatInstantFor(at, 'id', 'Asia/Jayapura')).toBe('27 November 2026 pukul 20.41 WIT');
  });

  it('IANA zone names only: offsets, unknown names and overlong text are not zones', () => {
    for (const z of ['Asia/Jakarta', 'UTC', 'America/Argentina/Buenos_Aires', 'Etc/GMT+7']) expect(isIanaZone(z), z).toBe(true);
    for (const z of ['+07:00', 'Mars/Olympus', 'Asia/Jakarta<', '', 'A/'.repeat(40), '../etc/passwd']) expect(isIanaZone(z), z).toBe(false);
  });
});

describe('the rendering cache', () => {
  const sets = { id: [section(['Kode {{pay_code}} {{amount}}'])], en: null };
  const channel = { code: 'bca_va', currency: 'IDR', minorUnits: 0, instructions: sets } as unknown as MerchantChannel;
  const repo = { merchantNameOf: () => 'Toko' } as unknown as ChannelRepository;
  const principal = { apiKeyId: 'pk', mode: 'test', merchantId: 'm', merchantKyc: 'approved' } as Principal;

  it(`keeps at most its bound (${MAX_RENDERED_INSTRUCTIONS} by default), the oldest leaving first, and answers from it`, () => {
    const service = new InstructionService(repo, () => undefined, 100);
    const first = service.forChannel(principal, channel, { payCode: 'A0' });
    expect(service.forChannel(principal, channel, { payCode: 'A0' })).toBe(first);
    for (let i = 1; i < 250; i++) service.forChannel(principal, channel, { payCode: `A${i}` });
    expect(service.cachedCount).toBe(100);
    const again = service.forChannel(principal, channel, { payCode: 'A0' });
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    // A replaced instruction set (an operator's change) is a new key: never the old text.
    const changed = { ...channel, instructions: { id: [section(['Baru {{pay_code}}'])], en: null } } as MerchantChannel;
    expect(service.forChannel(principal, changed, { payCode: 'A0' }).sections[0]!.steps).toEqual(['Baru A0']);
  });

  it('the default bound is stated and enforced', () => {
    const service = new InstructionService(repo, () => undefined);
    for (let i = 0; i < MAX_RENDERED_INSTRUCTIONS + 10; i++) service.forChannel(principal, channel, { payCode: `P${i}` });
    expect(service.cachedCount).toBe(MAX_RENDERED_INSTRUCTIONS);
  });

  it('arguments checked before anything renders: locale, payCode, amount, timeZone, expiresAt', () => {
    const service = new InstructionService(repo, () => undefined);
    const fieldOf = (args: object) => {
      try {
        service.forChannel(principal, channel, args);
        return 'none';
      } catch (err) {
        return (err as { details: { field: string } }).details.field;
      }
    };
    expect(fieldOf({ locale: 'fr' })).toBe('locale');
    expect(fieldOf({ payCode: 'a b' })).toBe('payCode');
    expect(fieldOf({ amount: '0' })).toBe('amount');
    expect(fieldOf({ amount: '1.5' })).toBe('amount');
    expect(fieldOf({ timeZone: 'GMT+7:00' })).toBe('timeZone');
    expect(fieldOf({ expiresAt: '2026-13-45' })).toBe('expiresAt');
    expect(fieldOf({ locale: 'EN', payCode: 'ABC-123', amount: '150000', timeZone: 'Asia/Makassar', expiresAt: '2026-11-27T11:41:58+07:00' })).toBe('none');
  });
});
