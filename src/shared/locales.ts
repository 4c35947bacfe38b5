/**
 * Languages (contract §12): which of the supported locales a requested language tag means, and the display
 * names of the channel groups. Leaf code: the GraphQL resolvers and the browser component both read it, so a
 * group is called the same on the API and on the page.
 *
 * Wording is what Indonesian checkouts (Midtrans, Xendit, Tripay) show: "Virtual Account" and "QRIS" stay
 * as they are, e-wallets are "Dompet Digital", retail outlets "Gerai Retail", cards "Kartu Kredit/Debit".
 */
import type { ChannelGroupValue, Locale } from './vocabulary.js';

/** Longest language tag looked at (RFC 5646's practical maximum); longer text is refused, never parsed. */
export const MAX_LOCALE_LENGTH = 35;

const TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$/;

/**
 * The supported locale a language tag asks for: `id`, `id-ID`, `in` (the old code of Indonesian) → `id`;
 * `en`, `en-US`, … → `en`; any other well-formed tag → `en` (the closest to the stored names for a reader
 * of neither language); undefined for text that is no language tag at all.
 */
export function localeOf(tag: string): Locale | undefined {
  if (tag.length > MAX_LOCALE_LENGTH || !TAG.test(tag)) return undefined;
  const language = tag.slice(0, tag.search(/[-_]|$/)).toLowerCase();
  return language === 'id' || language === 'in' ? 'id' : 'en';
}

/** Display names of the channel groups, by locale. */
export const GROUP_NAMES: Readonly<Record<Locale, Readonly<Record<ChannelGroupValue, string>>>> = {
  id: { qris: 'QRIS', virtual_account: 'Virtual Account', ewallet: 'Dompet Digital', retail_outlet: 'Gerai Retail', card: 'Kartu Kredit/Debit' },
  en: { qris: 'QRIS', virtual_account: 'Virtual Account', ewallet: 'E-Wallet', retail_outlet: 'Retail Outlet', card: 'Credit/Debit Card' },
};
