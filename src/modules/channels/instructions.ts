/**
 * Payment instructions as a request reads them (contract §14): the arguments checked, the placeholders' values
 * written in the language, the text rendered once per (instruction set, values) and kept.
 *
 * A checkout session reads the instructions of its own channels only (the field is reached through its list,
 * which holds only its channels), with its own amount: `{{amount}}` is what its customer pays on the channel
 * (the session amount plus the customer's part of the fee), and an `amount` argument naming anything else is
 * SESSION_SCOPE. Its locale is the default language and its expiry the default `{{expires_at}}`.
 */
import { AppError, invalidRequest } from '../../shared/errors.js';
import { isPositive, parseDecimalText, scaleOf, toDecimalString } from '../../shared/money.js';
import type { Locale } from '../../shared/vocabulary.js';
import type { Principal } from '../auth/principal.js';
import type { ChannelRepository, MerchantChannel } from '../catalogue/records.js';
import {
  DEFAULT_TIME_ZONE,
  formatAmountFor,
  formatInstantFor,
  isIanaZone,
  PAY_CODE,
  renderInstructionSet,
  type InstructionSet,
  type PlaceholderValues,
  type RenderedInstructions,
} from './domain/instructions.js';

/** The arguments of `PaymentChannel.instructions` (and the REST route's query), after scalar coercion. */
export interface InstructionArgs {
  locale?: string | null;
  payCode?: string | null;
  /** Canonical decimal text. */
  amount?: string | null;
  expiresAt?: string | null;
  timeZone?: string | null;
}

/** Instructions in one language, rendered for one request. */
export interface ChannelInstructionsAnswer extends RenderedInstructions {
  locale: Locale;
}

/**
 * Rendered answers kept at most. Keyed by (instruction set, language, the placeholders' values); a value
 * such as a pay code is per customer, so the cache holds the recent ones and the oldest entry leaves first.
 * The demo's answers are 1–3 K characters, so 2,048 of them take a few MB; a set at the validation limits
 * (8 × 15 steps of 300 characters, 36 K characters) would make them take far more, so the cache is also
 * bounded by the characters it holds ({@link MAX_RENDERED_CHARACTERS}, about 8 MB of UTF-16).
 */
export const MAX_RENDERED_INSTRUCTIONS = 2048;
export const MAX_RENDERED_CHARACTERS = 4_000_000;

/** The amount a checkout session's customer pays on a channel (fee included), or undefined when the channel cannot price it. */
export type CustomerTotal = (principal: Principal, channel: MerchantChannel) => string | undefined;

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

export class InstructionService {
  /** (set, language, values) → rendered answer; at most {@link MAX_RENDERED_INSTRUCTIONS}, oldest out first. */
  readonly #rendered = new Map<string, { answer: ChannelInstructionsAnswer; size: number }>();
  #characters = 0;
  /** A number per instruction set object (sets are replaced, never modified, when an operator changes them). */
  readonly #setIds = new WeakMap<InstructionSet, number>();
  #nextSetId = 1;

  constructor(
    private readonly channels: ChannelRepository,
    private readonly customerTotal: CustomerTotal,
    private readonly maxRendered: number = MAX_RENDERED_INSTRUCTIONS,
  ) {}

  /** How many rendered answers are kept (for tests and sizing). */
  get cachedCount(): number {
    return this.#rendered.size;
  }

  /** The channel's instructions for this request: arguments checked (INVALID_REQUEST naming the argument), placeholders filled. */
  forChannel(principal: Principal, channel: MerchantChannel, args: InstructionArgs): ChannelInstructionsAnswer {
    const session = principal.session;
    const locale = instructionLocale(args.locale ?? session?.locale ?? 'id');
    const values: PlaceholderValues = {};
    if (args.payCode != null) {
      if (!PAY_CODE.test(args.payCode)) throw invalidRequest('payCode', 'payCode must be 1 to 64 characters of letters, digits and "-".');
      values.pay_code = args.payCode;
    }
    const amount = this.#amountOf(principal, channel, args.amount);
    if (amount !== undefined) values.amount = formatAmountFor(amount, channel.currency, channel.minorUnits, locale);
    const merchantName = this.channels.merchantNameOf(principal.merchantId);
    if (merchantName !== undefined) values.merchant_name = merchantName;
    const zone = args.timeZone ?? DEFAULT_TIME_ZONE;
    if (args.timeZone != null && !isIanaZone(args.timeZone)) throw invalidRequest('timeZone', 'timeZone must be an IANA time zone name, e.g. "Asia/Jakarta".');
    if (args.expiresAt != null) {
      const ms = ISO_INSTANT.test(args.expiresAt) ? Date.parse(args.expiresAt) : NaN;
      if (!Number.isFinite(ms)) throw invalidRequest('expiresAt', 'expiresAt must be an ISO 8601 instant, e.g. "2026-11-27T11:41:58Z".');
      values.expires_at = formatInstantFor(ms, locale, zone);
    } else if (session) values.expires_at = formatInstantFor(session.expiresAt, locale, zone);
    const set = channel.instructions[locale];
    const key = `${set === null ? 0 : this.#setIdOf(set)}\u0000${locale}\u0000${values.pay_code ?? ''}\u0000${values.amount ?? ''}\u0000${values.merchant_name ?? ''}\u0000${values.expires_at ?? ''}\u0000${Object.keys(values).join(',')}`;
    const kept = this.#rendered.get(key);
    if (kept !== undefined) return kept.answer;
    const answer: ChannelInstructionsAnswer = { locale, ...renderInstructionSet(set, values) };
    let size = key.length;
    for (const section of answer.sections) for (const step of section.steps) size += step.length;
    while (this.#rendered.size > 0 && (this.#rendered.size >= this.maxRendered || this.#characters + size > MAX_RENDERED_CHARACTERS)) {
      const [oldest, entry] = this.#rendered.entries().next().value!;
      this.#rendered.delete(oldest);
      this.#characters -= entry.size;
    }
    this.#rendered.set(key, { answer, size });
    this.#characters += size;
    return answer;
  }

  #setIdOf(set: InstructionSet): number {
    let id = this.#setIds.get(set);
    if (id === undefined) this.#setIds.set(set, (id = this.#nextSetId++));
    return id;
  }

  /** Canonical decimal text of `{{amount}}`, or undefined when it stays unfilled. */
  #amountOf(principal: Principal, channel: MerchantChannel, given: string | null | undefined): string | undefined {
    const session = principal.session;
    if (given != null) {
      const amount = parseDecimalText(given, 'amount');
      if (!isPositive(amount)) throw invalidRequest('amount', 'amount must be greater than 0.');
      if (scaleOf(amount) > channel.minorUnits) throw invalidRequest('amount', `amount has more decimals than ${channel.currency} allows (${channel.minorUnits}).`);
      const text = toDecimalString(amount);
      if (session) {
        // Its own amount only: the session's, or what its customer pays on this channel.
        const total = this.customerTotal(principal, channel);
        if (text !== session.amount && text !== total) {
          throw new AppError('SESSION_SCOPE', `This checkout session shows instructions for its own amount (${session.amount} ${session.currency}) only.`, { field: 'amount' });
        }
      }
      return text;
    }
    if (!session) return undefined;
    // What the customer pays: the total on this channel when it can price the session's amount, else the amount.
    return this.customerTotal(principal, channel) ?? session.amount;
  }
}

/** `id` or `en` (any case); anything else is INVALID_REQUEST naming `locale`. */
function instructionLocale(text: string): Locale {
  const l = text.toLowerCase();
  if (l === 'id' || l === 'en') return l;
  throw invalidRequest('locale', 'locale must be "id" or "en".');
}
