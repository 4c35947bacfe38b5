/**
 * Rules for the stored catalogue (channels, per-merchant overrides,
 * merchants, keys): the single place where a configuration change is
 * validated, whoever makes it (admin CLI today, any admin API later).
 *
 * Values use the same decimal parser and limits as the request path
 * (src/shared/money.ts) so a value the admin may store is a value the fee
 * calculator accepts, and vice versa.
 *
 * Invariants of a channel's *effective* settings (catalogue values with a
 * merchant's overrides applied), checked by {@link effectiveSettingsProblems}:
 * - fees and limits are non-negative; percentages are at most 100;
 * - fixed fee values and limits have no more decimals than the channel
 *   currency's minor unit (a fee of 0.5 IDR cannot be charged);
 * - min ≤ max.
 */
import { z } from 'zod';
import { unprintableProblem } from '../../../shared/operator-text.js';
import { AppError } from '../../../shared/errors.js';
import { CHANNEL_GROUPS, CHANNEL_STATUSES, KEY_MODES, KYC_STATUSES, type ChannelGroupValue } from '../../../shared/vocabulary.js';
import { Big, parseDecimalText, scaleOf, toDecimalString, type DecimalString } from '../../../shared/money.js';

/** Largest number of decimals accepted for a fee percentage (0.0001 %). */
export const MAX_PERCENTAGE_DECIMALS = 4;

/** A non-negative decimal given as text or number, canonicalised with the request path's parser. */
export const decimalText = z.union([z.string(), z.number()]).transform((raw, ctx): DecimalString => {
  const text = typeof raw === 'number' ? String(raw) : raw.trim();
  try {
    const value = parseDecimalText(text, 'value');
    if (value.lt(0)) {
      ctx.addIssue({ code: 'custom', message: 'must not be negative' });
      return z.NEVER;
    }
    return toDecimalString(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof AppError ? err.message.replace(/^value /, '') : 'must be a number' });
    return z.NEVER;
  }
});

/** A fee percentage: 0 ≤ p ≤ 100 with at most {@link MAX_PERCENTAGE_DECIMALS} decimals. */
export const percentageText = decimalText.superRefine((v, ctx) => {
  const b = new Big(v);
  if (b.gt(100)) ctx.addIssue({ code: 'custom', message: 'must be at most 100 (percent)' });
  if (scaleOf(b) > MAX_PERCENTAGE_DECIMALS) ctx.addIssue({ code: 'custom', message: `must have at most ${MAX_PERCENTAGE_DECIMALS} decimals` });
});

/** `true`/`false` as a boolean or as the words a command line passes. */
export const booleanText = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], {
  error: 'must be true or false',
});

export const channelStatusSchema = z.enum(CHANNEL_STATUSES, { error: `must be one of ${CHANNEL_STATUSES.join(', ')}` });
/** Contract §12: the group a channel is shown under (`--group`); anything else is refused, naming the groups. */
export const channelGroupSchema = z.enum(CHANNEL_GROUPS, { error: `must be one of ${CHANNEL_GROUPS.join(', ')}` });

/**
 * The group of a new channel whose creator named none: what its code says (`qris`, a bank's `_va`, the
 * retail chains, cards), else e-wallet (the column's default). `channel update CODE --group` corrects it.
 */
export function defaultGroupOf(code: string): ChannelGroupValue {
  if (code === 'qris') return 'qris';
  if (code.endsWith('_va')) return 'virtual_account';
  if (['alfamart', 'indomaret', 'alfamidi', 'lawson'].includes(code)) return 'retail_outlet';
  if (code.includes('card')) return 'card';
  return 'ewallet';
}

export const kycStatusSchema = z.enum(KYC_STATUSES, { error: `must be one of ${KYC_STATUSES.join(', ')}` });
export const keyModeSchema = z.enum(KEY_MODES, { error: `must be one of ${KEY_MODES.join(', ')}` });

/** Channel code: what requests send as `method` (matched lower-case, at most 64 characters). */
export const channelCodeSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1-64 characters of a-z, 0-9, "_" or "-", starting with a letter or digit');

export const currencyCodeSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code')
  .transform((c) => c.toUpperCase());

/**
 * A name as the operator typed it: control, bidirectional and other format characters are refused
 * (src/shared/operator-text.ts), checked before the surrounding spaces are trimmed.
 */
export const nameSchema = z
  .string()
  .superRefine((text, ctx) => {
    const problem = unprintableProblem(text);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  .trim()
  .min(1, 'must not be empty')
  .max(120, 'must be at most 120 characters');
/** A translated name (contract §12); the word `default` (or null) clears it, so `name` applies again. */
const translatedNameSchema = z.union([z.literal('default').transform(() => null), z.null(), nameSchema]);

/** Fee/limit settings a channel has and a merchant may override. */
export const settingsShape = {
  feePercentage: percentageText,
  feeValue: decimalText,
  additionalFeePercentage: percentageText,
  additionalFeeValue: decimalText,
  minAmount: decimalText,
  maxAmount: decimalText,
  feeChargedToCustomer: booleanText,
};

/** Settings every channel has (effective or catalogue). */
export interface ChannelSettings {
  feePercentage: DecimalString;
  feeValue: DecimalString;
  additionalFeePercentage: DecimalString;
  additionalFeeValue: DecimalString;
  minAmount: DecimalString;
  maxAmount: DecimalString;
  feeChargedToCustomer: boolean;
}

/** A new catalogue channel. */
export const channelCreateSchema = withRangeCheck(
  z.strictObject({
    code: channelCodeSchema,
    name: nameSchema,
    currency: currencyCodeSchema,
    status: channelStatusSchema.default('active'),
    requiresKyc: booleanText.default(false),
    sortOrder: z.coerce.number().int().min(0).max(1_000_000).optional(),
    group: channelGroupSchema.optional(),
    nameId: translatedNameSchema.optional(),
    nameEn: translatedNameSchema.optional(),
    feePercentage: percentageText.default('0'),
    feeValue: decimalText.default('0'),
    additionalFeePercentage: percentageText.default('0'),
    additionalFeeValue: decimalText.default('0'),
    minAmount: decimalText,
    maxAmount: decimalText,
    feeChargedToCustomer: booleanText.default(true),
  }),
);
export type ChannelCreateInput = z.input<typeof channelCreateSchema>;

/** A change to a catalogue channel: any subset of its fields except the code. */
export const channelUpdateSchema = withRangeCheck(
  z.strictObject({
    name: nameSchema.optional(),
    currency: currencyCodeSchema.optional(),
    status: channelStatusSchema.optional(),
    requiresKyc: booleanText.optional(),
    sortOrder: z.coerce.number().int().min(0).max(1_000_000).optional(),
    group: channelGroupSchema.optional(),
    nameId: translatedNameSchema.optional(),
    nameEn: translatedNameSchema.optional(),
    feePercentage: percentageText.optional(),
    feeValue: decimalText.optional(),
    additionalFeePercentage: percentageText.optional(),
    additionalFeeValue: decimalText.optional(),
    minAmount: decimalText.optional(),
    maxAmount: decimalText.optional(),
    feeChargedToCustomer: booleanText.optional(),
  }),
);
export type ChannelUpdateInput = z.input<typeof channelUpdateSchema>;

/** Most codes `merchant channels order` takes (a merchant has at most a few dozen channels; the list is stored whole). */
export const MAX_CHANNEL_ORDER = 100;

/**
 * The codes of a merchant's channel order (contract §12), trimmed and lower-cased, in order: problems for
 * an empty list, a malformed or repeated code, more than {@link MAX_CHANNEL_ORDER}. Whether each code is a
 * channel of the merchant is the service's check (it reads the store).
 */
export function parseChannelOrder(codes: readonly string[]): { ok: true; value: string[] } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (codes.length === 0) problems.push('give at least one channel code (or --reset for the default order)');
  if (codes.length > MAX_CHANNEL_ORDER) problems.push(`at most ${MAX_CHANNEL_ORDER} channel codes`);
  const value: string[] = [];
  for (const raw of codes.slice(0, MAX_CHANNEL_ORDER)) {
    const code = raw.trim().toLowerCase();
    const parsed = channelCodeSchema.safeParse(code);
    if (!parsed.success) problems.push(`${JSON.stringify(raw.slice(0, 70))}: ${parsed.error.issues[0]!.message}`);
    else if (value.includes(code)) problems.push(`${code} is named twice`);
    else value.push(code);
  }
  return problems.length === 0 ? { ok: true, value } : { ok: false, problems };
}

/**
 * A merchant's overrides when enabling a channel: each field optional; the
 * value `null` (or the word `default` from the CLI) clears an override.
 */
const clearable = <T extends z.ZodType>(schema: T) => z.union([z.literal('default').transform(() => null), z.null(), schema]).optional();
export const overridesSchema = withRangeCheck(
  z.strictObject({
    feePercentage: clearable(percentageText),
    feeValue: clearable(decimalText),
    additionalFeePercentage: clearable(percentageText),
    additionalFeeValue: clearable(decimalText),
    minAmount: clearable(decimalText),
    maxAmount: clearable(decimalText),
    feeChargedToCustomer: clearable(booleanText),
  }),
);
export type OverridesInput = z.input<typeof overridesSchema>;
export type Overrides = z.output<typeof overridesSchema>;

export const merchantCreateSchema = z.strictObject({
  name: nameSchema,
  kycStatus: kycStatusSchema.default('pending'),
});

export const currencySchema = z.strictObject({
  code: currencyCodeSchema,
  minorUnits: z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(0, 'must be 0 to 4').max(4, 'must be 0 to 4'),
});

const MAX_NOT_POSITIVE = 'max must be greater than 0';
const minAboveMax = (min: string, max: string) => `min ${min} is greater than max ${max}`;

/** Problems of a min/max pair (empty = valid): `min ≤ max` and `max > 0`. */
export function rangeProblems(minAmount: string, maxAmount: string): string[] {
  const problems: string[] = [];
  if (new Big(minAmount).gt(new Big(maxAmount))) problems.push(minAboveMax(minAmount, maxAmount));
  if (new Big(maxAmount).lte(0)) problems.push(MAX_NOT_POSITIVE);
  return problems;
}

type RangeFields = { minAmount?: unknown; maxAmount?: unknown };
const failed = (payload: { issues: readonly { path?: readonly PropertyKey[] }[] }, field: keyof RangeFields) => payload.issues.some((i) => i.path?.[0] === field);

/**
 * The {@link rangeProblems} of the min/max a change itself gives, checked even when other fields of the
 * change are invalid, so one run reports every problem (zod skips object refinements after any field
 * issue unless told `when`): `max > 0` whenever max parsed, `min ≤ max` whenever both did. Absent or
 * cleared (null) values are left to the effective-settings check, which knows the stored ones.
 */
function withRangeCheck<T extends z.ZodType<RangeFields>>(schema: T): T {
  return schema
    .superRefine(
      ({ maxAmount }, ctx) => {
        if (typeof maxAmount === 'string' && new Big(maxAmount).lte(0)) ctx.addIssue({ code: 'custom', message: MAX_NOT_POSITIVE, path: [] });
      },
      { when: (payload) => !failed(payload, 'maxAmount') },
    )
    .superRefine(
      ({ minAmount, maxAmount }, ctx) => {
        if (typeof minAmount === 'string' && typeof maxAmount === 'string' && new Big(minAmount).gt(new Big(maxAmount))) {
          ctx.addIssue({ code: 'custom', message: minAboveMax(minAmount, maxAmount), path: [] });
        }
      },
      { when: (payload) => !failed(payload, 'minAmount') && !failed(payload, 'maxAmount') },
    );
}

/** Problems of a channel's effective settings in a currency with `minorUnits` decimals (empty = valid). */
export function effectiveSettingsProblems(s: ChannelSettings, minorUnits: number): string[] {
  const problems: string[] = [];
  const fixed: [keyof ChannelSettings, string][] = [
    ['feeValue', 'fee value'],
    ['additionalFeeValue', 'additional fee value'],
    ['minAmount', 'min'],
    ['maxAmount', 'max'],
  ];
  for (const [key, label] of fixed) {
    if (scaleOf(new Big(s[key] as string)) > minorUnits) {
      problems.push(`${label} ${s[key]} has more decimals than the currency allows (${minorUnits})`);
    }
  }
  problems.push(...rangeProblems(s.minAmount, s.maxAmount));
  return problems;
}

/** Catalogue settings with the non-null overrides applied (the COALESCE the read path does in SQL). */
export function applyOverrides(base: ChannelSettings, overrides: Partial<Record<keyof ChannelSettings, unknown>>): ChannelSettings {
  const out = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(overrides)) if (v !== null && v !== undefined) out[k] = v;
  return out as unknown as ChannelSettings;
}

/** Zod issues as "field: message" lines. */
export function describeIssues(error: z.ZodError, labels: Record<string, string> = {}): string[] {
  return error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    const label = labels[key] ?? key;
    return label ? `${label}: ${i.message}` : i.message;
  });
}
