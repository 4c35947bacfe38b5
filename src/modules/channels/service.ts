/**
 * Channel rules (contract §5 "Channels"): which channels a merchant sees and
 * with which effective settings.
 */
import { CHANNEL_GROUPS, type ChannelGroupValue, type ChannelStatusValue, type KycStatus, type Locale } from '../../shared/vocabulary.js';
import { GROUP_NAMES, localeOf, MAX_LOCALE_LENGTH } from '../../shared/locales.js';
import type { ChannelPricing } from '../pricing/domain/pricing.js';
import type { Principal } from '../auth/principal.js';
import type { ChannelRepository, MerchantChannel } from '../catalogue/records.js';
import { AppError, invalidRequest } from '../../shared/errors.js';
import { isPositive, parseDecimalText } from '../../shared/money.js';
import { availabilityOf, type Availability, type PaymentContext } from './eligibility.js';

/** A merchant's channel in a list judged against a payment ({@link ChannelService.search}): with its availability. */
export type ListedChannel = MerchantChannel & { availability?: Availability };

/**
 * The channel as judged for one payment: an object whose prototype is the merchant's channel (every field is
 * read through it) with the availability of its own. Not a copy (`{ ...c, availability }`): a live event
 * lists every channel of every open checkout page, and copying a channel's thirteen fields cost about 2 µs
 * (measured), a fifth of a page's answer. Its readers are the GraphQL resolvers, which read fields;
 * nothing enumerates it. The channel records are never modified (a catalogue change builds new ones).
 */
function listed(channel: MerchantChannel, availability: Availability): ListedChannel {
  const view = Object.create(channel) as ListedChannel;
  view.availability = availability;
  return view;
}

/**
 * The catalogue record a listed channel was judged from (itself when it is a record). The catalogue builds a
 * new record whenever anything of it changes (catalog.ts: a change, a rule taking effect), so two listed
 * channels with the same record and the same principal have the same availability and fees.
 */
export function recordOf(channel: ListedChannel): MerchantChannel {
  return Object.hasOwn(channel, 'id') ? channel : (Object.getPrototypeOf(channel) as MerchantChannel);
}

/** GraphQL `PaymentChannelFilter` after scalar coercion. */
export interface ChannelFilter {
  /** Canonical decimal text: the payment amount channels are judged for. */
  amount?: string | null;
  /** ISO 4217 code of the payment. */
  currency?: string | null;
  /** Keep only channels with one of these statuses. */
  status?: readonly ChannelStatusValue[] | null;
  /** Keep only channels that can take the payment described by amount/currency. */
  selectableOnly?: boolean | null;
  /** Also list channels the merchant cannot use because of KYC (with reason KYC_REQUIRED). */
  includeIneligible?: boolean | null;
  /** Contract §14: only these channel codes (case-insensitive). */
  codes?: readonly string[] | null;
  /** Contract §14: leave out these channel codes. */
  excludeCodes?: readonly string[] | null;
  /** Contract §14: only channels of these groups. */
  groups?: readonly ChannelGroupValue[] | null;
}

/** Most codes `codes` / `excludeCodes` (REST `code` / `exclude`) may name: more than a merchant has channels, far fewer than a query string can hold. */
export const MAX_FILTER_CODES = 50;

/** Longest text of a code echoed back in an error (a client's input, bounded). */
const ECHOED_CODE_LENGTH = 64;

/**
 * The lower-case codes of a `codes`/`excludeCodes` list, each checked against the merchant's enabled codes
 * (any status, KYC-gated ones included: what a merchant may name). INVALID_REQUEST naming `field` and the
 * first unknown value; more than {@link MAX_FILTER_CODES} is refused before any is looked at.
 */
function codeSet(field: string, codes: readonly string[], enabled: ReadonlySet<string>): Set<string> {
  if (codes.length > MAX_FILTER_CODES) throw new AppError('INVALID_REQUEST', `${field} may name at most ${MAX_FILTER_CODES} channels (got ${codes.length}).`, { field, max: MAX_FILTER_CODES });
  const out = new Set<string>();
  for (const raw of codes) {
    const code = raw.trim().toLowerCase();
    if (!enabled.has(code)) {
      const value = raw.slice(0, ECHOED_CODE_LENGTH);
      throw new AppError('INVALID_REQUEST', `${field}: no channel "${value}" is enabled for this merchant.`, { field, value });
    }
    out.add(code);
  }
  return out;
}

/** A group list as given (internal lower-case values); an unknown one (only REST can send one) is INVALID_REQUEST naming `field`. */
function groupSet(field: string, groups: readonly string[]): Set<ChannelGroupValue> {
  const out = new Set<ChannelGroupValue>();
  for (const g of groups) {
    if (!(CHANNEL_GROUPS as readonly string[]).includes(g)) {
      throw new AppError('INVALID_REQUEST', `${field}: unknown group "${g.slice(0, ECHOED_CODE_LENGTH)}" (one of ${CHANNEL_GROUPS.join(', ')}).`, { field, value: g.slice(0, ECHOED_CODE_LENGTH) });
    }
    out.add(g as ChannelGroupValue);
  }
  return out;
}

/** True when the merchant may use a channel as far as KYC goes. */
export function kycAllows(channel: { requiresKyc: boolean }, kyc: KycStatus): boolean {
  return !channel.requiresKyc || kyc === 'approved';
}

/** What the fee calculator needs of a channel besides the rule's band (currency, additional fee, bearer). */
export function channelPricingOf(c: MerchantChannel): ChannelPricing {
  return {
    currency: c.currency,
    minorUnits: c.minorUnits,
    additionalFee: { percentage: c.feeInfo.additionalFeePercentage, fixed: c.feeInfo.additionalFeeValue },
    feeChargedToCustomer: c.isFeeChargedToCustomer,
  };
}

/**
 * The language a name is asked in (contract §12): `requested` undefined (the argument was not given) means
 * the session's locale, if any; null (given as null) means none, i.e. the stored name; a tag is mapped by
 * {@link localeOf}, and text that is no language tag is INVALID_REQUEST naming `locale`.
 */
export function requestedLocale(principal: Principal, requested: string | null | undefined): Locale | undefined {
  if (requested === undefined) return principal.session?.locale;
  if (requested === null) return undefined;
  const locale = localeOf(requested);
  if (!locale) throw invalidRequest('locale', `locale must be a language tag such as "id" or "en-US" (at most ${MAX_LOCALE_LENGTH} characters).`);
  return locale;
}

export class ChannelService {
  constructor(private readonly channels: ChannelRepository) {}

  /** A channel's name in the requested language ({@link requestedLocale}); without one the stored name. */
  nameOf(principal: Principal, channel: MerchantChannel, requested: string | null | undefined): string {
    const locale = requestedLocale(principal, requested);
    return locale === undefined ? channel.name : channel.names[locale];
  }

  /** The display name of a channel's group in the requested language; without one English. */
  groupNameOf(principal: Principal, channel: MerchantChannel, requested: string | null | undefined): string {
    return GROUP_NAMES[requestedLocale(principal, requested) ?? 'en'][channel.group];
  }

  /**
   * Channels enabled for the caller's merchant, all statuses (the seed's
   * rule: clients hide non-active ones), KYC-gated ones left out unless
   * the merchant's KYC is approved.
   */
  listForMerchant(principal: Principal): MerchantChannel[] {
    if (principal.session) return this.search(principal, null);
    return this.channels.listForMerchant(principal.merchantId).filter((c) => kycAllows(c, principal.merchantKyc));
  }

  /**
   * The channel list with availability. Without a filter (or an empty one)
   * it is exactly {@link listForMerchant} (REST parity); `includeIneligible`
   * adds the KYC-gated channels; amount/currency only change availability,
   * and `selectableOnly`/`status` narrow the list.
   */
  search(principal: Principal, filter: ChannelFilter | null | undefined): ListedChannel[] {
    const f = principal.session ? sessionFilter(principal, filter) : (filter ?? {});
    const payment: PaymentContext = {};
    if (f.amount != null) {
      // A session's own amount is parsed once (SessionScope.amountValue): sessionFilter put it here.
      const amount = principal.session ? principal.session.amountValue : parseDecimalText(f.amount, 'filter.amount');
      if (!isPositive(amount)) throw invalidRequest('filter.amount', 'filter.amount must be greater than 0.');
      payment.amount = amount;
    }
    if (f.currency != null) {
      if (!/^[A-Za-z]{3}$/.test(f.currency)) throw invalidRequest('filter.currency', 'filter.currency must be a three-letter ISO 4217 code, e.g. "IDR".');
      payment.currency = f.currency.toUpperCase();
    }
    const statuses = f.status ? new Set(f.status) : null;
    const methods = principal.session?.methods;
    const all = this.channels.listForMerchant(principal.merchantId);
    const enabled = f.codes != null || f.excludeCodes != null ? new Set(all.map((c) => c.code)) : null;
    const only = f.codes != null ? codeSet('filter.codes', f.codes, enabled!) : null;
    const excluded = f.excludeCodes != null ? codeSet('filter.excludeCodes', f.excludeCodes, enabled!) : null;
    const groups = f.groups != null ? groupSet('filter.groups', f.groups) : null;
    const out: ListedChannel[] = [];
    for (const c of all) {
      if (methods !== undefined && !methods.includes(c.code)) continue;
      if (only !== null && !only.has(c.code)) continue;
      if (excluded !== null && excluded.has(c.code)) continue;
      if (groups !== null && !groups.has(c.group)) continue;
      if (f.includeIneligible !== true && !kycAllows(c, principal.merchantKyc)) continue;
      if (statuses !== null && !statuses.has(c.status)) continue;
      const availability = availabilityOf(c, principal.merchantKyc, payment);
      if (f.selectableOnly === true && !availability.selectable) continue;
      out.push(listed(c, availability));
    }
    return out;
  }

  /** Availability of a channel with no payment in view (status and KYC only). */
  availabilityFor(principal: Principal, channel: ListedChannel): Availability {
    return channel.availability ?? availabilityOf(channel, principal.merchantKyc);
  }

  /**
   * Codes of every channel enabled for the merchant, any status, KYC-gated ones included, matched
   * case-insensitively from `methods` (checkout session creation); throws INVALID_REQUEST naming the first
   * unknown one. Absent: every enabled code.
   */
  resolveMethods(principal: Principal, methods: readonly string[] | null | undefined, groups?: readonly ChannelGroupValue[] | null): string[] {
    const enabled = this.enabledCodes(principal);
    let out: string[];
    if (methods == null) out = enabled;
    else {
      if (methods.length === 0) throw invalidRequest('methods', 'methods must name at least one channel (omit it for every channel).');
      const known = new Set(enabled);
      out = [];
      for (const [i, m] of methods.entries()) {
        const code = m.trim().toLowerCase();
        if (!known.has(code)) throw invalidRequest('methods', `methods[${i}]: no channel "${m.slice(0, 64)}" is enabled for this merchant.`);
        if (!out.includes(code)) out.push(code);
      }
    }
    if (groups == null) return out;
    // Contract §14: a session with `groups` holds the channels of `methods` (default: all) that are in those groups.
    if (groups.length === 0) throw invalidRequest('groups', 'groups must name at least one group (omit it for every group).');
    const wanted = groupSet('groups', groups);
    const groupOf = new Map(this.channels.listForMerchant(principal.merchantId).map((c) => [c.code, c.group]));
    const kept = out.filter((code) => wanted.has(groupOf.get(code)!));
    if (kept.length === 0) throw invalidRequest('groups', `none of the session's channels is in the groups ${[...wanted].join(', ')}.`);
    return kept;
  }

  /** Codes of every channel enabled for the merchant, any status, KYC-gated ones included (what `method` may name). */
  enabledCodes(principal: Principal): string[] {
    return this.channels.listForMerchant(principal.merchantId).map((c) => c.code);
  }

  /** The enabled channel for a method code (case-insensitive), KYC not yet checked. */
  findForMerchant(principal: Principal, method: string): MerchantChannel | undefined {
    return this.channels.findForMerchant(principal.merchantId, method.trim().toLowerCase());
  }
}

/**
 * A checkout session's list filter (contract §9): judged against the session's amount and currency. A filter
 * naming another amount or currency is outside the session (SESSION_SCOPE); the other members narrow as usual.
 */
function sessionFilter(principal: Principal, filter: ChannelFilter | null | undefined): ChannelFilter {
  const session = principal.session!;
  const f = filter ?? {};
  if (f.amount != null && !parseDecimalText(f.amount, 'filter.amount').eq(session.amountValue)) {
    throw new AppError('SESSION_SCOPE', `This checkout session lists channels for ${session.amount} ${session.currency} only.`, { field: 'filter.amount' });
  }
  if (f.currency != null && f.currency.toUpperCase() !== session.currency) {
    throw new AppError('SESSION_SCOPE', `This checkout session lists channels for ${session.currency} only.`, { field: 'filter.currency' });
  }
  return { ...f, amount: session.amount, currency: session.currency };
}
