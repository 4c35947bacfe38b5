/**
 * The checkout component's texts (src/client/checkout/messages.ts, contract §12): both languages have every
 * text, the language choice order (attribute, session, page), merchant replacements, and the number format.
 */
import { describe, expect, it } from 'vitest';
import { CHECKOUT_TEXTS, format, groupHeading, NUMBER_LOCALES, pickLocale, textsFor } from '../../src/client/checkout/messages.js';
import { localeOf } from '../../src/shared/locales.js';

describe('checkout texts', () => {
  it('Indonesian and English have the same texts, none empty, with the same placeholders', () => {
    const keys = Object.keys(CHECKOUT_TEXTS.en).sort();
    expect(Object.keys(CHECKOUT_TEXTS.id).sort()).toEqual(keys);
    const holes = (t: string) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const k of keys as (keyof typeof CHECKOUT_TEXTS.en)[]) {
      expect(CHECKOUT_TEXTS.id[k].length, k).toBeGreaterThan(0);
      expect(holes(CHECKOUT_TEXTS.id[k]), k).toEqual(holes(CHECKOUT_TEXTS.en[k]));
    }
    // Indonesian wording as Indonesian checkouts use it.
    expect(CHECKOUT_TEXTS.id.heading).toBe('Pilih metode pembayaran');
    expect(groupHeading(CHECKOUT_TEXTS.id, 'EWALLET')).toBe('Dompet Digital');
    expect(groupHeading(CHECKOUT_TEXTS.id, 'RETAIL_OUTLET')).toBe('Gerai Retail');
    expect(groupHeading(CHECKOUT_TEXTS.id, 'VIRTUAL_ACCOUNT')).toBe('Virtual Account');
  });

  it('picks the locale attribute, else the session, else <html lang>, else English', () => {
    expect(pickLocale('en', 'id', 'id')).toBe('en');
    expect(pickLocale(null, 'en', 'id-ID')).toBe('en');
    expect(pickLocale(null, null, 'id-ID')).toBe('id');
    expect(pickLocale('', null, 'in')).toBe('id');
    expect(pickLocale('not a tag!', null, '')).toBe('en');
    expect(pickLocale(null, null, 'fr')).toBe('en');
  });

  it('maps language tags (bounded: over 35 characters is no tag)', () => {
    expect(localeOf('id')).toBe('id');
    expect(localeOf('ID-id')).toBe('id');
    expect(localeOf('en_GB')).toBe('en');
    expect(localeOf('x'.repeat(2) + '-abc'.repeat(9))).toBeUndefined();
    expect(localeOf('')).toBeUndefined();
  });

  it('a merchant replaces any text of a language; other languages and non-strings are ignored', () => {
    const t = textsFor('id', { id: { heading: 'Bayar', total: 42 as unknown as string }, en: { heading: 'Pay' } });
    expect(t.heading).toBe('Bayar');
    expect(t.total).toBe(CHECKOUT_TEXTS.id.total);
    expect(textsFor('en', undefined)).toBe(CHECKOUT_TEXTS.en);
    expect(format('Minimal {min}', { min: 'Rp 10.000' })).toBe('Minimal Rp 10.000');
    expect(format('{unknown} stays')).toBe('{unknown} stays');
  });

  it('formats Rupiah the Indonesian way in both languages', () => {
    for (const locale of ['id', 'en'] as const) {
      const text = new Intl.NumberFormat(NUMBER_LOCALES[locale], { style: 'currency', currency: 'IDR', minimumFractionDigits: 0 }).format(150000);
      expect(text.replace(/\s/g, ' ')).toBe('Rp 150.000');
    }
  });
});
