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
