/**
 * Operator text is taken as typed or refused, and printed escaped (src/shared/operator-text.ts); names in the
 * admin schemas refuse control, bidirectional and other format characters (channel-rules.ts).
 */
import { describe, expect, it } from 'vitest';
import { channelCreateSchema, merchantCreateSchema, channelUpdateSchema } from '../../src/modules/channels/domain/channel-rules.js';
import { escapeUnprintable, unprintableProblem } from '../../src/shared/operator-text.js';

/** Every character the rule refuses, by kind. */
const REFUSED: [string, string][] = [
  ['\u0000', 'U+0000'],
  ['\u0007', 'U+0007'],
  ['\t', 'U+0009'],
  ['\n', 'U+000A'],
  ['\r', 'U+000D'],
  ['\u001b', 'U+001B'],
  ['\u007f', 'U+007F'],
  ['\u0085', 'U+0085'],
  ['\u009b', 'U+009B'],
  ['\u00ad', 'U+00AD'],
  ['\u061c', 'U+061C'],
  ['\u200b', 'U+200B'],
  ['\u200e', 'U+200E'],
  ['\u2028', 'U+2028'],
  ['\u2029', 'U+2029'],
  ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069].map((cp): [string, string] => [String.fromCodePoint(cp), `U+${cp.toString(16).toUpperCase()}`]),
  ['\ufeff', 'U+FEFF'],
  ['\ud800', 'U+D800'],
  ['\u{e0001}', 'U+E0001'],
];

describe('unprintableProblem', () => {
  it.each(REFUSED)('refuses %j, naming %s', (ch, name) => {
    expect(unprintableProblem(`Bank${ch}Transfer`)).toContain(`contains ${name}`);
  });

  it('names ESC and bidi controls for what they do', () => {
    expect(unprintableProblem('x\u001b]0;owned\u0007')).toMatch(/U\+001B \(escape, which starts terminal control sequences\)/);
    expect(unprintableProblem('gpj.\u202eexe')).toMatch(/U\+202E \(a bidirectional control/);
  });

  it.each(['BCA Virtual Account', 'Kartu Kredit / Debit', 'QRIS — semua e-wallet', 'ОВО', 'بنك', '銀行振込', 'Café 😀', 'a\u00a0b'])('accepts %j', (text) => {
    expect(unprintableProblem(text)).toBeNull();
  });
});

describe('escapeUnprintable', () => {
  it('shows every refused character as \\uXXXX, keeping line feeds when asked', () => {
    expect(escapeUnprintable('a\u001b[31mb\u202ec\u0085d\te')).toBe('a\\u001b[31mb\\u202ec\\u0085d\\u0009e');
    expect(escapeUnprintable('x\ny\u2028', true)).toBe('x\ny\\u2028');
    expect(escapeUnprintable('x\ny')).toBe('x\\u000ay');
    expect(escapeUnprintable('Café 😀 ОВО')).toBe('Café 😀 ОВО');
  });

  it('leaves JSON text valid and its values unchanged', () => {
    const value = { name: 'a\u202eb\u0085c\u2028d' };
    const escaped = escapeUnprintable(JSON.stringify(value, null, 2), true);
    expect(escaped).not.toMatch(/[\u0085\u202e\u2028]/);
    expect(JSON.parse(escaped)).toEqual(value);
  });
});

describe('names in the admin schemas', () => {
  const channel = { code: 'evil_va', currency: 'IDR', minAmount: '1', maxAmount: '10' };
  it.each(['Evil\u001b]0;title\u0007 VA', 'Evil \u202eAV', 'Evil\u2066VA\u2069', 'Evil\tVA', 'Evil\u200dVA'])('refuse %j with the character named', (name) => {
    for (const result of [
      merchantCreateSchema.safeParse({ name }),
      channelCreateSchema.safeParse({ ...channel, name }),
      channelCreateSchema.safeParse({ ...channel, name: 'Evil VA', nameEn: name }),
      channelUpdateSchema.safeParse({ name }),
    ]) {
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/contains U\+[0-9A-F]{4}/);
    }
  });

  it('still trims surrounding spaces', () => {
    expect(merchantCreateSchema.parse({ name: '  Toko Budi  ' }).name).toBe('Toko Budi');
  });
});
