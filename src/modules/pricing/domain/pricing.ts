/**
 * Pricing rules (contract §7): banded fee rules per channel, scoped to the
 * channel (default), a merchant category or one merchant, each in force from
 * an `effectiveFrom` instant.
 *
 * A pure module: no I/O and no clock reads. The instant to price at is always
 * a parameter (`atMs`, epoch milliseconds), so the same rules, merchant,
 * instant and amount always give the same fee, and "just before / just after
 * a scheduled change" is an ordinary table test.
 *
 * What it decides:
 * - which rule applies ({@link ruleInForce}): the most specific scope that has
 *   a rule in force wins (merchant, then category, then channel default);
 *   within a scope the latest `effectiveFrom` ≤ the instant wins;
 * - which band of that rule applies ({@link bandFor}): the first whose `upTo`
 *   is ≥ the amount (inclusive), else the last, open-ended band;
 * - the fee ({@link priceWithRule}): the band prices the WHOLE amount with the
 *   §5 formula and rounding of {@link calculateFee}, which is reused as is so
 *   rounding lives in exactly one place.
 *
 * Invariants of a valid rule (what {@link parseBands} enforces): at least one
 * band; every `upTo` except the last is a positive decimal with at most the
 * currency's minor-unit decimals, strictly ascending; the last band's `upTo`
 * is null; percentages are 0..100 with at most 4 decimals; fixed parts are
 * non-negative with at most the currency's minor-unit decimals, so every fee
 * is exact in the minor unit.
 */
import { z } from 'zod';
import { calculateFee, NO_FEE_SETTINGS, type FeeResult, type FeeSchedule, type FeeSettings } from './fee.js';
import { decimalText, percentageText } from '../../channels/domain/channel-rules.js';
import { Big, compareBig, parseDecimalText, scaleOf, toDecimalString, type DecimalString } from '../../../shared/money.js';

/** Who a rule is set for (GraphQL/contract "source"). */
export type { RuleScope } from '../../../shared/vocabulary.js';
import type { RuleScope } from '../../../shared/vocabulary.js';

/** Scopes from most to least specific: the first scope with a rule in force wins. */
export const RULE_PRECEDENCE: readonly RuleScope[] = ['MERCHANT', 'CATEGORY', 'CHANNEL'];

/** The category a merchant has unless one is set (contract §7 "Merchant category"). */
export const DEFAULT_CATEGORY = 'regular';

/** One amount band of a rule. Amounts are in the currency's major unit. */
export interface FeeBand {
  /** Inclusive upper bound of the amounts this band prices; null only for the last band (no bound). */
  upTo: DecimalString | null;
  /** Percent of the whole amount ("0.3" = 0.3 %). */
  percentage: DecimalString;
  /** Fixed part added to the rounded percentage part. */
  fixed: DecimalString;
}

/** A stored pricing rule for one channel (contract §7). */
export interface FeeRule {
  id: string;
  /** The channel this rule prices (lower-case channel code). */
  channelCode: string;
  scope: RuleScope;
  /** Set exactly when scope is MERCHANT. */
  merchantId?: string;
  /** Set exactly when scope is CATEGORY. */
  category?: string;
  /** Ascending bands, the last one open-ended (see the module invariants). */
  bands: FeeBand[];
  /** ISO 8601 instant from which the rule applies (canonical form: UTC, `Z`). */
  effectiveFrom: string;
  /** When the rule was cancelled; a cancelled rule never applies. */
  cancelledAt?: string | null;
  /** ISO 8601 instant the rule was created; breaks ties between equal `effectiveFrom`. */
  createdAt: string;
  /** Caps, tax on fees and the customer's share (contract §10); absent or null fields: not set. */
  settings?: FeeSettings;
}

/** The merchant a price is asked for: rules of its own scope, its category's and the channel default apply. */
export interface RuleSubject {
  merchantId: string;
  category: string;
}

/** A validation outcome that carries every problem at once. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** What the fee calculator needs from a channel besides the fee itself (currency, additional fee, bearer). */
export type ChannelPricing = Omit<FeeSchedule, 'fee' | 'settings'>;

/** Which rule and band priced a fee (the GraphQL fee breakdown's "applied band and rule source"). */
export interface AppliedPricing {
  ruleId: string;
  /** The rule's scope: CHANNEL, CATEGORY or MERCHANT. */
  source: RuleScope;
  effectiveFrom: string;
  /** Zero-based position of the applied band in the rule. */
  bandIndex: number;
  band: FeeBand;
}

/** {@link calculateFee}'s result with the applied rule and band in the breakdown. */
export interface PricedFee extends FeeResult {
  breakdown: FeeResult['breakdown'] & { pricing: AppliedPricing };
}

// ---------------------------------------------------------------------------
// Instants

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Epoch milliseconds of an ISO 8601 instant, or null when `text` is not one.
 *
 * Strict on purpose: a date and time with seconds and an explicit zone (`Z` or
 * `±hh:mm`); at most millisecond precision (a finer instant could not be
 * compared exactly); calendar-valid (JavaScript's own parser turns
 * 2025-02-30 into 2 March, which must not schedule a price change silently).
 * A local time without a zone is refused: it names a different instant on
 * every machine.
 */
export function parseInstant(text: string): number | null {
  const m = ISO_INSTANT.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0'));
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(local);
  const sameFields =
    check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day &&
    check.getUTCHours() === hour && check.getUTCMinutes() === minute && check.getUTCSeconds() === second;
  if (!sameFields) return null;
  if (m[8] === 'Z') return local;
  const offsetHours = Number(m[9]);
  const offsetMinutes = Number(m[10]);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const sign = m[8]!.startsWith('-') ? -1 : 1;
  return local - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

/** The canonical (UTC, millisecond, `Z`) text of an instant: what {@link FeeRule.effectiveFrom} stores. */
export function formatInstant(atMs: number): string {
  return new Date(atMs).toISOString();
}

/** A stored instant of a rule; a corrupt one is a data error, never "no rule" (that would misprice silently). */
function ruleInstant(rule: FeeRule, field: 'effectiveFrom' | 'createdAt'): number {
  const ms = parseInstant(rule[field]);
  if (ms === null) throw new Error(`fee rule ${rule.id}: ${field} ${JSON.stringify(rule[field])} is not an ISO 8601 instant`);
  return ms;
}

function assertInstant(atMs: number): void {
  // NaN would make every comparison false and quietly select no rule.
  if (!Number.isFinite(atMs)) throw new Error(`pricing instant must be finite epoch milliseconds, got ${atMs}`);
}

// ---------------------------------------------------------------------------
// Rule selection

function isCancelled(rule: FeeRule): boolean {
  return rule.cancelledAt !== undefined && rule.cancelledAt !== null;
}

function appliesTo(rule: FeeRule, who: RuleSubject): boolean {
  switch (rule.scope) {
    case 'MERCHANT':
      return rule.merchantId === who.merchantId;
    case 'CATEGORY':
      return rule.category === who.category;
    case 'CHANNEL':
      return true;
  }
}

/** Total order used for ties: effectiveFrom, then createdAt, then id. The greater one wins. */
function compareRules(a: FeeRule, b: FeeRule): number {
  return (
    ruleInstant(a, 'effectiveFrom') - ruleInstant(b, 'effectiveFrom') ||
    ruleInstant(a, 'createdAt') - ruleInstant(b, 'createdAt') ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** Rules of two channels in one call would let one channel's rule price another's payment. */
function assertOneChannel(rules: readonly FeeRule[]): void {
  const first = rules[0];
  for (const r of rules) {
    if (r.channelCode !== first!.channelCode) {
      throw new Error(`pricing rules of different channels mixed (${first!.channelCode}, ${r.channelCode}); pass one channel's rules`);
    }
  }
}

/**
 * The rule that prices a payment of `who` at instant `atMs`, or null when the
 * channel has no rule in force.
 *
 * Most specific scope first (MERCHANT, CATEGORY, CHANNEL): a scope with no
 * rule in force yet (e.g. only a future one) falls through to the next.
 * Within a scope: the latest `effectiveFrom` ≤ `atMs` (the instant itself is
 * in force); on equal `effectiveFrom` the latest `createdAt`, then the
 * greatest `id`. Cancelled rules never apply, whenever they were cancelled.
 *
 * @param rules one channel's rules (throws if channels are mixed).
 */
export function ruleInForce(rules: readonly FeeRule[], who: RuleSubject, atMs: number): FeeRule | null {
  assertInstant(atMs);
  assertOneChannel(rules);
  for (const scope of RULE_PRECEDENCE) {
    let best: FeeRule | null = null;
    for (const r of rules) {
      if (r.scope !== scope || isCancelled(r) || !appliesTo(r, who)) continue;
      if (ruleInstant(r, 'effectiveFrom') > atMs) continue;
      if (best === null || compareRules(r, best) > 0) best = r;
    }
    if (best !== null) return best;
  }
  return null;
}

/**
 * The not-cancelled rules that apply to `who` (its merchant, its category and
 * the channel default) and start after `atMs`, in the order they take effect
 * (effectiveFrom ascending, then createdAt, then id). A listed rule may never
 * price anything (a more specific rule can shadow it); it is still scheduled.
 *
 * @param rules one channel's rules (throws if channels are mixed).
 */
export function scheduledRules(rules: readonly FeeRule[], who: RuleSubject, atMs: number): FeeRule[] {
  assertInstant(atMs);
  assertOneChannel(rules);
  return rules.filter((r) => !isCancelled(r) && appliesTo(r, who) && ruleInstant(r, 'effectiveFrom') > atMs).sort(compareRules);
}

/**
 * The earliest `effectiveFrom` after `atMs` among the not-cancelled rules (of
 * any channel or scope), in epoch milliseconds, or null when nothing is
 * scheduled: the instant a server arms a timer for, to announce the change.
 * It may be a rule that changes no visible price (shadowed); announcing an
 * unchanged list is harmless, missing a change is not. Node's setTimeout
 * takes at most 2^31−1 ms, so callers clamp and re-arm for far instants.
 */
export function nextTransition(rules: readonly FeeRule[], atMs: number): number | null {
  assertInstant(atMs);
  let next: number | null = null;
  for (const r of rules) {
    if (isCancelled(r)) continue;
    const from = ruleInstant(r, 'effectiveFrom');
    if (from > atMs && (next === null || from < next)) next = from;
  }
  return next;
}

// ---------------------------------------------------------------------------
// Bands and pricing

/**
 * The band that prices `amount`: the first whose `upTo` ≥ amount (bounds are
 * inclusive), else the last band (open-ended in a valid rule).
 */
export function bandFor(rule: FeeRule, amount: Big): { index: number; band: FeeBand } {
  const { bands } = rule;
  if (bands.length === 0) throw new Error(`fee rule ${rule.id} has no bands`);
  const index = bands.findIndex((b) => b.upTo !== null && compareBig(amount, parseDecimalText(b.upTo, 'upTo')) <= 0);
  const chosen = index === -1 ? bands.length - 1 : index;
  return { index: chosen, band: bands[chosen]! };
}

/**
 * The fee of `amount` under `rule`: the band containing the amount prices the
 * whole amount with {@link calculateFee} (§5 formula, half-up per percentage
 * part); `additionalFee`, currency and default bearer come from the channel.
 *
 * @param amount already validated like any calculation (positive, within limits, minor-unit exact).
 * @param chargeFeeToCustomer the request's choice; `undefined`/`null` means the channel default.
 */
export function priceWithRule(rule: FeeRule, channel: ChannelPricing, amount: Big, chargeFeeToCustomer?: boolean | null): PricedFee {
  const { index, band } = bandFor(rule, amount);
  const pricing: AppliedPricing = { ruleId: rule.id, source: rule.scope, effectiveFrom: rule.effectiveFrom, bandIndex: index, band };
  // The applied pricing goes into the calculator's own breakdown (built when read) rather than into a copy
  // of the result (a live event prices every channel of every page).
  // Built field by field, not spread: an object spread is a generic copy in V8 and was most of this call.
  const schedule: FeeSchedule = {
    currency: channel.currency,
    minorUnits: channel.minorUnits,
    fee: band,
    additionalFee: channel.additionalFee,
    feeChargedToCustomer: channel.feeChargedToCustomer,
    settings: rule.settings ?? NO_FEE_SETTINGS,
  };
  return calculateFee(schedule, amount, chargeFeeToCustomer, pricing) as PricedFee;
}

/**
 * Today's flat settings as a rule (contract §7: `channel update
 * --fee-percentage/--fee-value` and per-merchant overrides "are equivalent to
 * a one-band rule effective now"): one open-ended band, effective and created
 * at `nowMs`. With `merchantId` the rule is the merchant's (an override),
 * otherwise the channel default.
 *
 * @param settings already validated values (channel-rules.ts); for a merchant,
 *   the effective ones (overrides applied to the catalogue values).
 */
export function flatRule(
  settings: { id: string; channelCode: string; merchantId?: string; percentage: DecimalString; fixed: DecimalString },
  nowMs: number,
): FeeRule {
  assertInstant(nowMs);
  const now = formatInstant(nowMs);
  const band: FeeBand = { upTo: null, percentage: canonical(settings.percentage), fixed: canonical(settings.fixed) };
  const target = settings.merchantId === undefined ? { scope: 'CHANNEL' as const } : { scope: 'MERCHANT' as const, merchantId: settings.merchantId };
  return { id: settings.id, channelCode: settings.channelCode, ...target, bands: [band], effectiveFrom: now, cancelledAt: null, createdAt: now };
}

function canonical(value: DecimalString): DecimalString {
  return toDecimalString(new Big(value));
}

// ---------------------------------------------------------------------------
// CLI syntax: "UPTO:PCT:FIXED,…"

/** The open-ended last band's `UPTO` in the CLI syntax. */
export const OPEN_BAND = '*';

const BAND_FIELDS = ['upTo', 'percentage', 'fixed'] as const;

/** A non-negative decimal with at most `minorUnits` decimals (an amount or fixed fee of the currency). */
function minorUnitText(minorUnits: number) {
  return decimalText.superRefine((v, ctx) => {
    if (scaleOf(new Big(v)) > minorUnits) ctx.addIssue({ code: 'custom', message: `has more decimals than the currency allows (${minorUnits})` });
  });
}

/** A bounded band's UPTO: a positive amount of the currency. */
function upToSchema(minorUnits: number) {
  return minorUnitText(minorUnits).refine((v) => new Big(v).gt(0), 'must be greater than 0 (a band must be able to hold an amount)');
}

/** Zod schema of one band's three fields, given whether its UPTO is the open `*`. */
function bandSchema(open: boolean, minorUnits: number) {
  const upTo = open ? z.literal(OPEN_BAND).transform((): null => null) : upToSchema(minorUnits);
  return z.tuple([upTo, percentageText, minorUnitText(minorUnits)]).transform(([u, percentage, fixed]): FeeBand => ({ upTo: u, percentage, fixed }));
}

/**
 * Parse the admin CLI's band list (`--bands "500000:0:0,*:0.3:0"`): each band
 * `UPTO:PCT:FIXED`, `UPTO` a decimal (inclusive bound in the major unit) or
 * `*` for the last, open-ended band. Values are canonicalised ("0.30" → "0.3").
 *
 * Every problem is reported, each naming the band (1-based): an empty list or
 * band, a malformed band, non-numeric or negative values, a percentage above
 * 100 or with more than 4 decimals, UPTO/FIXED with more decimals than
 * `minorUnits`, UPTO of 0, bounds not strictly ascending (a repeated bound is
 * reported as a duplicate), a band after `*`, and a list without a final `*`.
 */
export function parseBands(text: string, minorUnits: number): Checked<FeeBand[]> {
  if (!Number.isInteger(minorUnits) || minorUnits < 0) throw new Error(`minorUnits must be a non-negative integer, got ${minorUnits}`);
  if (text.trim() === '') return { ok: false, problems: ['bands: must not be empty (e.g. "*:0.7:0" for a flat 0.7 %)'] };

  const problems: string[] = [];
  const bands: FeeBand[] = [];
  let openAt: number | null = null; // 1-based position of the first `*` band
  let previous: { at: number; upTo: Big } | null = null; // last well-formed bounded band

  for (const [i, raw] of text.split(',').entries()) {
    const at = i + 1;
    if (raw.trim() === '') {
      problems.push(`band ${at}: empty (two commas in a row, or a trailing comma)`);
      continue;
    }
    const label = `band ${at} ${JSON.stringify(raw.trim())}`;
    const parts = raw.split(':').map((p) => p.trim());
    // Position is judged before shape, so a malformed "*:0.3" still counts as
    // the open band (no second "missing *" problem for the same typo).
    const open = parts[0] === OPEN_BAND;
    const afterOpen = openAt !== null;
    if (afterOpen) problems.push(`${label}: follows the "${OPEN_BAND}" band (band ${openAt}); "${OPEN_BAND}" must be the last band`);
    if (open) openAt ??= at;
    if (parts.length !== BAND_FIELDS.length) {
      problems.push(`${label}: must be UPTO:PCT:FIXED (three values separated by ":")`);
      continue;
    }

    const parsed = bandSchema(open, minorUnits).safeParse(parts);
    if (parsed.success) bands.push(parsed.data);
    else for (const issue of parsed.error.issues) problems.push(`${label}: ${BAND_FIELDS[Number(issue.path[0])] ?? 'band'} ${issue.message}`);

    // Ordering is judged on the bound alone, so it is reported even when the
    // band's percentage or fixed part is wrong (all problems in one go). A
    // band after `*` is already wrong by position; comparing it too is noise.
    if (open || afterOpen) continue;
    const upTo = upToSchema(minorUnits).safeParse(parts[0]);
    if (!upTo.success) continue;
    const bound = new Big(upTo.data);
    if (previous !== null && bound.eq(previous.upTo)) {
      problems.push(`${label}: duplicate upTo ${upTo.data} (band ${previous.at} has the same bound)`);
    } else if (previous !== null && bound.lt(previous.upTo)) {
      problems.push(`${label}: upTo ${upTo.data} is not above band ${previous.at}'s ${toDecimalString(previous.upTo)} (bands must be strictly ascending)`);
    } else {
      previous = { at, upTo: bound };
    }
  }

  if (openAt === null) {
    const above = previous === null ? '' : ` (amounts above ${toDecimalString(previous.upTo)} would have no band)`;
    problems.push(`bands: the last band must be "${OPEN_BAND}:PCT:FIXED"${above}`);
  }
  return problems.length === 0 ? { ok: true, value: bands } : { ok: false, problems };
}

/** The canonical CLI text of bands (inverse of {@link parseBands}): `upTo` null becomes `*`, decimals canonical. */
export function formatBands(bands: readonly FeeBand[]): string {
  return bands.map((b) => `${b.upTo === null ? OPEN_BAND : canonical(b.upTo)}:${canonical(b.percentage)}:${canonical(b.fixed)}`).join(',');
}

// ---------------------------------------------------------------------------
// Merchant category

/** A merchant category code: lower case, a letter first, at most 32 characters. */
export const categorySchema = z
  .string()
  .trim()
  .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be 1-32 characters of a-z, 0-9, "_" or "-", starting with a letter (lower case)');

/**
 * Validate a merchant category; absent (`undefined`/`null`) means
 * {@link DEFAULT_CATEGORY}. An explicit empty or upper-case code is refused
 * rather than defaulted or folded: an operator typo must not silently move a
 * merchant to another price list.
 */
export function validateCategory(code?: string | null): Checked<string> {
  if (code === undefined || code === null) return { ok: true, value: DEFAULT_CATEGORY };
  const parsed = categorySchema.safeParse(code);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: parsed.error.issues.map((i) => `category: ${i.message}`) };
}

/** What an operator gives for a rule's settings (contract §10): text or numbers, each optional. */
export interface FeeSettingsInput {
  minFee?: string | number | null;
  maxFee?: string | number | null;
  taxPercentage?: string | number | null;
  customerShare?: string | number | null;
}

/**
 * Validate a rule's caps, tax and share for a currency, reporting every problem at once: negative values,
 * caps with more decimals than the currency's minor unit, `minFee` above `maxFee`, a tax or share outside
 * 0–100 (or with more than 4 decimals).
 */
export function parseFeeSettings(input: FeeSettingsInput, minorUnits: number): Checked<FeeSettings> {
  const problems: string[] = [];
  const amountOf = (name: string, raw: string | number | null | undefined): DecimalString | null => {
    if (raw === undefined || raw === null || raw === '') return null;
    const parsed = decimalText.safeParse(raw);
    if (!parsed.success) {
      problems.push(`${name}: ${parsed.error.issues[0]?.message ?? 'must be a number'}`);
      return null;
    }
    if (scaleOf(new Big(parsed.data)) > minorUnits) {
      problems.push(`${name}: ${parsed.data} has more decimals than the currency allows (${minorUnits})`);
      return null;
    }
    return parsed.data;
  };
  const percentOf = (name: string, raw: string | number | null | undefined): DecimalString | null => {
    if (raw === undefined || raw === null || raw === '') return null;
    const parsed = percentageText.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push(`${name}: ${issue.message}`);
      return null;
    }
    return parsed.data;
  };
  const minFee = amountOf('minFee', input.minFee);
  const maxFee = amountOf('maxFee', input.maxFee);
  const taxPercentage = percentOf('tax', input.taxPercentage);
  const customerShare = percentOf('customerShare', input.customerShare);
  if (minFee !== null && maxFee !== null && new Big(minFee).gt(maxFee)) problems.push(`minFee ${minFee} is above maxFee ${maxFee}`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: { minFee, maxFee, taxPercentage, customerShare } };
}
