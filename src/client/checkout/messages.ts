/**
 * Every text the checkout component shows, in Indonesian and English (contract §12), and the number format
 * of each language. A merchant replaces any of them with the element's `translations` property; `{name}`
 * style placeholders are filled by {@link format}.
 *
 * Wording follows Indonesian checkouts (Midtrans Snap, Xendit, Tripay): "Pilih metode pembayaran", "Biaya",
 * "ditanggung oleh Anda / toko", "Minimal Rp 10.000", "Dompet Digital", "Gerai Retail".
 */
import { GROUP_NAMES, localeOf } from '../../shared/locales.js';
import type { ChannelGroupValue, Locale } from '../../shared/vocabulary.js';

/** The texts of one language. Placeholders in braces are filled in; every amount is already formatted. */
export interface CheckoutTexts {
  heading: string;
  /** `{amount}` */
  amount: string;
  loading: string;
  noSession: string;
  noMethods: string;
  noFee: string;
  /** `{fee}` */
  feeByCustomer: string;
  /** `{fee}` */
  feeByShop: string;
  /** `{fee}`, `{customerFee}`, `{shopFee}` */
  feeSplit: string;
  /** `{total}` */
  total: string;
  /** The reasons a channel cannot be chosen (GraphQL `UnavailabilityReason`); `{min}` / `{max}` for the limits. */
  reasonMaintenance: string;
  reasonOffline: string;
  reasonBelowMin: string;
  reasonAboveMax: string;
  reasonPrecision: string;
  reasonCurrency: string;
  reasonKyc: string;
  reasonOther: string;
  /** A chosen channel stopped being available: `{name}`, `{reason}`. */
  choiceLost: string;
  /** `{name}` */
  choiceGone: string;
  sessionExpired: string;
  sessionInvalid: string;
  originNotAllowed: string;
  genericProblem: string;
  /** Contract §14: the heading of the chosen channel's instructions; `{name}`. */
  instructionsHeading: string;
  /** What stands for the pay code in the instructions before the shop gives one. */
  payCodePlaceholder: string;
  /** The session's end, in the page's language and the browser's zone: `{time}`. */
  validUntil: string;
  /** The last two minutes: `{time}` as m:ss. */
  timeLeft: string;
  /** Group headings. */
  groupQris: string;
  groupVirtualAccount: string;
  groupEwallet: string;
  groupRetailOutlet: string;
  groupCard: string;
}

/** A merchant's replacements (the `translations` property): any texts, per language. */
export type CheckoutTranslations = Partial<Record<Locale, Partial<CheckoutTexts>>>;

const GROUP_KEYS: Record<ChannelGroupValue, keyof CheckoutTexts> = {
  qris: 'groupQris',
  virtual_account: 'groupVirtualAccount',
  ewallet: 'groupEwallet',
  retail_outlet: 'groupRetailOutlet',
  card: 'groupCard',
};

export const CHECKOUT_TEXTS: Readonly<Record<Locale, CheckoutTexts>> = {
  id: {
    heading: 'Pilih metode pembayaran',
    amount: 'Jumlah: {amount}',
    loading: 'Memuat metode pembayaran…',
    noSession: 'Halaman ini tidak menerima sesi checkout.',
    noMethods: 'Tidak ada metode pembayaran untuk pembayaran ini.',
    noFee: 'Tanpa biaya',
    feeByCustomer: 'Biaya {fee}, ditanggung oleh Anda',
    feeByShop: 'Biaya {fee}, ditanggung oleh toko',
    feeSplit: 'Biaya {fee}: {customerFee} oleh Anda, {shopFee} oleh toko',
    total: 'Total {total}',
    reasonMaintenance: 'Sedang dalam pemeliharaan',
    reasonOffline: 'Sementara tidak tersedia',
    reasonBelowMin: 'Minimal {min}',
    reasonAboveMax: 'Maksimal {max}',
    reasonPrecision: 'Tidak tersedia untuk jumlah ini',
    reasonCurrency: 'Tidak menerima mata uang ini',
    reasonKyc: 'Belum diaktifkan untuk toko ini',
    reasonOther: 'Tidak tersedia',
    choiceLost: '{name}: {reason}. Silakan pilih metode pembayaran lain.',
    choiceGone: '{name} tidak lagi tersedia. Silakan pilih metode pembayaran lain.',
    sessionExpired: 'Sesi checkout ini sudah berakhir. Muat ulang halaman untuk memulai lagi.',
    sessionInvalid: 'Sesi checkout ini tidak berlaku lagi. Muat ulang halaman untuk memulai lagi.',
    originNotAllowed: 'Halaman toko ini tidak diizinkan menampilkan checkout ini.',
    genericProblem: 'Metode pembayaran tidak dapat ditampilkan saat ini. Silakan coba lagi nanti.',
    instructionsHeading: 'Cara membayar dengan {name}',
    payCodePlaceholder: 'yang Anda terima dari toko',
    validUntil: 'berlaku hingga {time}',
    timeLeft: 'Sisa waktu {time}',
    groupQris: GROUP_NAMES.id.qris,
    groupVirtualAccount: GROUP_NAMES.id.virtual_account,
    groupEwallet: GROUP_NAMES.id.ewallet,
    groupRetailOutlet: GROUP_NAMES.id.retail_outlet,
    groupCard: GROUP_NAMES.id.card,
  },
  en: {
    heading: 'Choose how to pay',
    amount: 'Amount: {amount}',
    loading: 'Loading payment methods…',
    noSession: 'No checkout session was given to this page.',
    noMethods: 'No payment method is available for this payment.',
    noFee: 'No fee',
    feeByCustomer: 'Fee {fee}, paid by you',
    feeByShop: 'Fee {fee}, paid by the shop',
    feeSplit: 'Fee {fee}: {customerFee} paid by you, {shopFee} by the shop',
    total: 'Total {total}',
    reasonMaintenance: 'Under maintenance right now',
    reasonOffline: 'Temporarily unavailable',
    reasonBelowMin: 'Minimum {min}',
    reasonAboveMax: 'Maximum {max}',
    reasonPrecision: 'Not available for this amount',
    reasonCurrency: 'Does not accept this currency',
    reasonKyc: 'Not enabled for this shop yet',
    reasonOther: 'Not available',
    choiceLost: '{name}: {reason}. Please choose another payment method.',
    choiceGone: '{name} is no longer offered. Please choose another payment method.',
    sessionExpired: 'This checkout session has expired. Reload the page to start again.',
    sessionInvalid: 'This checkout session is no longer valid. Reload the page to start again.',
    originNotAllowed: 'This shop’s page is not allowed to show this checkout.',
    genericProblem: 'Payment methods cannot be shown right now. Please try again later.',
    instructionsHeading: 'How to pay with {name}',
    payCodePlaceholder: 'you receive from the shop',
    validUntil: 'valid until {time}',
    timeLeft: '{time} left',
    groupQris: GROUP_NAMES.en.qris,
    groupVirtualAccount: GROUP_NAMES.en.virtual_account,
    groupEwallet: GROUP_NAMES.en.ewallet,
    groupRetailOutlet: GROUP_NAMES.en.retail_outlet,
    groupCard: GROUP_NAMES.en.card,
  },
};

/**
 * The Intl locale amounts are formatted with: Indonesian conventions in both languages (`Rp 150.000`), so
 * a page never shows US-style "IDR 150,000" next to "Rp 150.000", which an Indonesian reader can take for 150.
 */
export const NUMBER_LOCALES: Readonly<Record<Locale, string>> = { id: 'id-ID', en: 'en-ID' };

/** The component's language: the `locale` attribute, else the session's, else the page's `<html lang>`, else English. */
export function pickLocale(attribute: string | null, session: string | null | undefined, htmlLang: string): Locale {
  for (const tag of [attribute, session, htmlLang]) {
    const locale = tag ? localeOf(tag.trim()) : undefined;
    if (locale) return locale;
  }
  return 'en';
}

/** The texts of `locale` with a merchant's replacements applied (only string values are taken). */
export function textsFor(locale: Locale, translations: CheckoutTranslations | undefined): CheckoutTexts {
  const own = translations?.[locale];
  if (!own || typeof own !== 'object') return CHECKOUT_TEXTS[locale];
  const out = { ...CHECKOUT_TEXTS[locale] };
  for (const key of Object.keys(out) as (keyof CheckoutTexts)[]) {
    const value = (own as Record<string, unknown>)[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

/** `template` with each `{key}` replaced by `values[key]` (unknown keys are left as written). */
export function format(template: string, values: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole);
}

/** The heading of a group in `texts`. */
export function groupHeading(texts: CheckoutTexts, group: string): string {
  const key = GROUP_KEYS[group.toLowerCase() as ChannelGroupValue];
  return key ? texts[key] : group;
}
