/** The REST channel list's wire types, shared by the signed client and the session client. */

/** Channel status on the REST surface (lower case, as in the seed). */
export type RestChannelStatus = 'active' | 'offline' | 'maintenance';

/** The group a channel is shown under (contract §12), lower case on REST. */
export type RestChannelGroup = 'qris' | 'virtual_account' | 'ewallet' | 'retail_outlet' | 'card';

/** A checkout language (contract §12). */
export type CheckoutLocale = 'id' | 'en';

/** A channel as `GET /v1/payments/channel` returns it (seed field names). */
export interface Channel {
  id: string;
  name: string;
  code: string;
  image_url: string;
  status: RestChannelStatus;
  is_fee_charged_to_customer: boolean;
  fee_info: { fee_percentage: number; fee_value: number; min_transactions: number; max_transactions: number };
  /** Additive field: ISO 4217 code the channel settles in. */
  currency: string;
  /** Additive field (contract §12): the group the channel is shown under. */
  group: RestChannelGroup;
  /**
   * Additive field (contract §7), present only when the pricing rule in force
   * has more than one amount band: the bands, ascending. The band whose
   * `up_to` is the first ≥ the amount prices the whole amount; `fee_info`
   * carries the first band.
   */
  fee_tiers?: FeeTier[];
}

/** One amount band of a banded pricing rule (`Channel.fee_tiers`). */
export interface FeeTier {
  /** Inclusive upper bound in the major unit; null for the last band. */
  up_to: number | null;
  fee_percentage: number;
  fee_value: number;
}

/** Contract §14: the channels of one order (`GET /v1/payments/channel?code=…&exclude=…&group=…`). */
export interface ChannelListFilter {
  /** Only these channels (codes, case-insensitive; at most 50). */
  code?: readonly string[];
  /** Leave out these channels (at most 50). */
  exclude?: readonly string[];
  /** Only channels of these groups. */
  group?: readonly RestChannelGroup[];
}

/** Contract §14: what `GET /v1/payments/instruction` is asked. */
export interface InstructionsQuery {
  /** The channel, e.g. `bca_va`. */
  code: string;
  /** `id` (default; a session: its locale) or `en`. */
  locale?: CheckoutLocale;
  /** The virtual account number or pay code: 1–64 characters of `[A-Za-z0-9-]`. */
  payCode?: string;
  /** What the customer pays (major unit); a session: its own amount by default. */
  amount?: number;
  /** ISO 8601 instant until which the pay code is valid. */
  expiresAt?: string;
  /** IANA time zone `{{expires_at}}` is written in (default `Asia/Jakarta`). */
  timeZone?: string;
}

/** One way to pay (ATM, mobile banking, the app, the cashier, …): plain text, render it as text. */
export interface InstructionSection {
  key: string;
  title: string;
  steps: string[];
}

/** A channel's payment instructions in one language, placeholders filled as the query allowed. */
export interface PaymentInstructions {
  sections: InstructionSection[];
  /** Placeholders still in the text (`pay_code`, `amount`, `merchant_name`, `expires_at`). */
  unfilled: string[];
}

/** The request target of a channel list narrowed by `filter` (its query string is part of the signed target). */
export function channelListTarget(filter?: ChannelListFilter): string {
  const q = new URLSearchParams();
  if (filter?.code) q.set('code', filter.code.join(','));
  if (filter?.exclude) q.set('exclude', filter.exclude.join(','));
  if (filter?.group) q.set('group', filter.group.join(','));
  const s = q.toString();
  return s === '' ? '/v1/payments/channel' : `/v1/payments/channel?${s}`;
}

/** The request target of a channel's instructions. */
export function instructionsTarget(query: InstructionsQuery): string {
  const q = new URLSearchParams({ code: query.code });
  if (query.locale !== undefined) q.set('locale', query.locale);
  if (query.payCode !== undefined) q.set('pay_code', query.payCode);
  if (query.amount !== undefined) q.set('amount', String(query.amount));
  if (query.expiresAt !== undefined) q.set('expires_at', query.expiresAt);
  if (query.timeZone !== undefined) q.set('time_zone', query.timeZone);
  return `/v1/payments/instruction?${q.toString()}`;
}
