import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { ListedChannel } from '../modules/channels/service.js';
import type { ChannelFeeInfo } from '../modules/catalogue/records.js';
import type { FeeCalculationModel } from '../modules/pricing/service.js';
import type { IssuedQuote, VerifiedQuote as VerifiedQuoteModel } from '../modules/quotes/service.js';
import type { FeeRule as FeeRuleModel, FeeBand as FeeBandModel, AppliedPricing as AppliedPricingModel } from '../modules/pricing/domain/pricing.js';
import type { Availability } from '../modules/channels/eligibility.js';
import type { ChannelInstructionsAnswer } from '../modules/channels/instructions.js';
import type { InstructionSection as InstructionSectionModel } from '../modules/channels/domain/instructions.js';
import type { GraphQLContext } from './context.js';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /**
   * An exact decimal number, serialised as a JSON number. Money values are in the
   * currency's major unit and never carry more decimals than the currency's minor
   * unit (IDR: 0, USD: 2). Input accepts JSON numbers (Int or Float literals); the
   * server computes with exact decimal arithmetic, never binary floating point.
   */
  Decimal: { input: string; output: string | number; }
};

/** Which rule and which of its bands priced a fee. */
export type AppliedPricing = {
  __typename?: 'AppliedPricing';
  /** The band that contains the amount. */
  band: FeeBand;
  /** Zero-based position of the applied band in the rule's bands. */
  bandIndex: Scalars['Int']['output'];
  /** ISO 8601 UTC instant from which that rule applies. */
  effectiveFrom: Scalars['String']['output'];
  /** Id of the rule applied. */
  ruleId: Scalars['ID']['output'];
  /** Who that rule is set for (MERCHANT, CATEGORY or CHANNEL). */
  source: FeeRuleSource;
};

/** A payment to price: its amount and currency, the channel (`method`), and optionally who bears the fee. */
export type CalculateFeeInput = {
  /** Base payment amount in the currency's major unit (> 0, at most the currency's decimals). */
  amount: Scalars['Decimal']['input'];
  /** Who pays the fee; defaults to the channel's `isFeeChargedToCustomer`. */
  chargeFeeToCustomer?: InputMaybe<Scalars['Boolean']['input']>;
  /** ISO 4217 currency code; must be the channel's currency. */
  currency: Scalars['String']['input'];
  /** Optional; when given it must be the authenticated key's merchant. */
  merchantId?: InputMaybe<Scalars['ID']['input']>;
  /** Channel code (case-insensitive), e.g. `QRIS`. */
  method: Scalars['String']['input'];
};

/** Whether a channel can be selected for a payment. */
export type ChannelAvailability = {
  __typename?: 'ChannelAvailability';
  /** Every reason the channel cannot take the payment, in the order the fee calculation checks them. */
  reasons: Array<UnavailabilityReason>;
  /** True when `reasons` is empty: the channel can take the payment. */
  selectable: Scalars['Boolean']['output'];
};

/** The group a channel is shown under in a checkout (contract §12); REST `group` is the lower-case value. */
export type ChannelGroup =
  /** Credit and debit cards. */
  | 'card'
  /** E-wallets (Dompet Digital): OVO, DANA, ShopeePay, ... */
  | 'ewallet'
  /** QRIS, the national QR code standard. */
  | 'qris'
  /** Payment in cash at a retail outlet (Gerai Retail): Alfamart, Indomaret, ... */
  | 'retail_outlet'
  /** Bank virtual accounts (transfer to a per-payment account number). */
  | 'virtual_account';

/** Operational state of a channel. Only ACTIVE channels accept payments. */
export type ChannelStatus =
  /** The channel may be offered to customers. */
  | 'active'
  /** The channel is under planned maintenance; do not offer it. */
  | 'maintenance'
  /** The channel is down; do not offer it. */
  | 'offline';

/** A checkout session as its holder sees it (never its secret). */
export type CheckoutSession = {
  __typename?: 'CheckoutSession';
  /** The only amount the session lists channels for and prices. */
  amount: Scalars['Decimal']['output'];
  /** The only currency. */
  currency: Scalars['String']['output'];
  /** ISO 8601 UTC instant after which the session answers SESSION_EXPIRED. */
  expiresAt: Scalars['String']['output'];
  /** Session id, `cs_…`. */
  id: Scalars['ID']['output'];
  /** The session's language (`id` or `en`), null when none was given: the component's default language. */
  locale: Maybe<Scalars['String']['output']>;
  /** The only channels (lower-case codes). */
  methods: Array<Scalars['String']['output']>;
};

/** A created checkout session. `clientSecret` is shown only here. */
export type CheckoutSessionCreated = {
  __typename?: 'CheckoutSessionCreated';
  /** The only amount the session lists channels for and prices (major unit). */
  amount: Scalars['Decimal']['output'];
  /** The credential for `Authorization: Bearer`; treat it as opaque and never log it. */
  clientSecret: Scalars['String']['output'];
  /** The only currency (ISO 4217, upper case). */
  currency: Scalars['String']['output'];
  /** ISO 8601 UTC instant after which the session answers SESSION_EXPIRED. */
  expiresAt: Scalars['String']['output'];
  /** Session id, `cs_…` (safe to log). */
  id: Scalars['ID']['output'];
  /** The session's language (`id` or `en`), null when none was given. */
  locale: Maybe<Scalars['String']['output']>;
  /** Lower-case channel codes the session may list and price. */
  methods: Array<Scalars['String']['output']>;
};

/** What a checkout session may list and price. */
export type CreateCheckoutSessionInput = {
  /** The payment amount in the currency's major unit (> 0, at most the currency's decimals). */
  amount: Scalars['Decimal']['input'];
  /** ISO 4217 code of the payment (a currency this service knows). */
  currency: Scalars['String']['input'];
  /** Lifetime in seconds, 60 to 86400; default 900. */
  expiresInSeconds?: InputMaybe<Scalars['Int']['input']>;
  /** Only channels of these groups (contract §14); with `methods` the session holds the channels of both (the intersection), and an empty intersection is INVALID_REQUEST naming `groups`. */
  groups?: InputMaybe<Array<ChannelGroup>>;
  /** The shopper's language, `id` or `en` (contract §12): the default `locale` of the session's channel and group names; omitted: stored names. */
  locale?: InputMaybe<Scalars['String']['input']>;
  /** Optional; when given it must be the authenticated key's merchant (MERCHANT_MISMATCH). */
  merchantId?: InputMaybe<Scalars['ID']['input']>;
  /** Channel codes (case-insensitive) enabled for the merchant; omitted: every channel of the merchant. */
  methods?: InputMaybe<Array<Scalars['String']['input']>>;
};

/** One amount band of a fee rule: a payment whose amount is in this band pays percentage + fixed on the whole amount. */
export type FeeBand = {
  __typename?: 'FeeBand';
  /** Fixed part in the currency's major unit. */
  fixed: Scalars['Decimal']['output'];
  /** Percentage part in percent (0.3 means 0.3 %). */
  percentage: Scalars['Decimal']['output'];
  /** Inclusive upper bound of the amounts this band prices, in the currency's major unit; null for the last band. */
  upTo: Maybe<Scalars['Decimal']['output']>;
};

/** Who pays the fees. */
export type FeeBearer =
  /** The customer pays them on top: totalAmount = amount + fees, getBalance = amount. */
  | 'CUSTOMER'
  /** The merchant absorbs them: totalAmount = amount, getBalance = amount - fees. */
  | 'MERCHANT'
  /** Each pays a part of the charges (contract §10 customerShare between 0 and 100). */
  | 'SPLIT';

/** The parts of a fee calculation (published so a checkout can explain the total). */
export type FeeBreakdown = {
  __typename?: 'FeeBreakdown';
  /** The additional fee (`additionalFee`), zero parts when the channel has none. */
  additionalFee: FeePart;
  /** The cap that decided the fee (its band price was below minFee or above maxFee), or null. */
  cap: Maybe<FeeCap>;
  /** Percent (0-100) of the charges the customer pays, after the request's chargeFeeToCustomer. */
  customerShare: Scalars['Decimal']['output'];
  /** The channel fee (`fee`). */
  fee: FeePart;
  /** Who pays fee + additionalFee after applying `chargeFeeToCustomer`. */
  feeBearer: FeeBearer;
  /** The pricing rule and band that produced `fee`. */
  pricing: AppliedPricing;
  /** How the percentage parts were rounded. */
  rounding: RoundingRule;
  /** Tax rate on the fees, percent (0 without a tax). */
  taxPercentage: Scalars['Decimal']['output'];
};

/**
 * The priced payment. With the fee charged to the customer:
 * totalAmount = amount + fee + additionalFee and getBalance = amount. Otherwise
 * totalAmount = amount and getBalance = amount - fee - additionalFee.
 */
export type FeeCalculation = {
  __typename?: 'FeeCalculation';
  /** round_half_up(amount x additionalFeePercentage / 100) + additionalFeeValue; 0 when the channel has no additional fee. */
  additionalFee: Scalars['Decimal']['output'];
  /** The base amount, echoed. */
  amount: Scalars['Decimal']['output'];
  /** How `fee` and `additionalFee` were computed, and who bears them. */
  breakdown: FeeBreakdown;
  /** ISO 4217 currency code of every amount above. */
  currency: Scalars['String']['output'];
  /** The customer's part of fee + additionalFee + feeTax (included in totalAmount). */
  customerFee: Scalars['Decimal']['output'];
  /** The channel fee: the band of the pricing rule in force that contains `amount` prices it, round_half_up(amount x percentage / 100) + fixed, then held within the rule's minFee/maxFee (`breakdown` shows how). */
  fee: Scalars['Decimal']['output'];
  /** Tax on fee + additionalFee (contract §10); 0 when the rule sets no tax. */
  feeTax: Scalars['Decimal']['output'];
  /** What the merchant receives: `amount` - `merchantFee`. */
  getBalance: Scalars['Decimal']['output'];
  /** The merchant's part of the same charges (deducted in getBalance); customerFee + merchantFee = fee + additionalFee + feeTax. */
  merchantFee: Scalars['Decimal']['output'];
  /**
   * A signed statement of this calculation that the gateway honours until it
   * expires (contract §11). Computed (signed) only when selected: 1 work unit
   * on `calculateFee`, 3 for the quotes of a whole list (`PaymentChannel.fee`).
   * A checkout session's quote never outlives the session. Always null in a
   * live event (`paymentChannelsChanged`): a quote belongs to one shopper, so
   * ask `calculateFee { quote }` when the customer chooses.
   */
  quote: Maybe<FeeQuote>;
  /** What the customer pays: `amount` + `customerFee`. */
  totalAmount: Scalars['Decimal']['output'];
};

/** Which bound of the fee rule decided the fee (contract §10). */
export type FeeCap =
  /** The band's fee was above the rule's maxFee and was lowered to it. */
  | 'MAXIMUM'
  /** The band's fee was below the rule's minFee and was raised to it. */
  | 'MINIMUM';

/** Fee settings and amount limits of a channel, in the channel's currency major unit. */
export type FeeInfo = {
  __typename?: 'FeeInfo';
  /** Percentage part of the additional fee (0 when none). */
  additionalFeePercentage: Scalars['Decimal']['output'];
  /** Fixed part of the additional fee (0 when none). */
  additionalFeeValue: Scalars['Decimal']['output'];
  /** Percentage part of the fee: 0.7 means 0.7 % of the amount. */
  feePercentage: Scalars['Decimal']['output'];
  /** Fixed part of the fee. */
  feeValue: Scalars['Decimal']['output'];
  /** Largest accepted amount (inclusive). */
  maxTransactions: Scalars['Decimal']['output'];
  /** Smallest accepted amount (inclusive). */
  minTransactions: Scalars['Decimal']['output'];
};

/** One fee: a rounded percentage of the amount plus a fixed part. */
export type FeePart = {
  __typename?: 'FeePart';
  /** The configured fixed part. */
  fixedPart: Scalars['Decimal']['output'];
  /** The configured rate in percent (0.7 means 0.7 %). */
  percentage: Scalars['Decimal']['output'];
  /** round_half_up(amount x percentage / 100) to the currency's minor unit. */
  percentagePart: Scalars['Decimal']['output'];
  /** percentagePart + fixedPart. */
  total: Scalars['Decimal']['output'];
};

/** A fee quote: a JWS (EdDSA, Ed25519) of one calculation, verifiable offline with the keys at /.well-known/jwks.json. */
export type FeeQuote = {
  __typename?: 'FeeQuote';
  /** ISO 8601 UTC instant after which the quote is no longer honoured (the JWT `exp`). */
  expiresAt: Scalars['String']['output'];
  /** The quote id (`qt_…`, the JWT `jti`). */
  id: Scalars['ID']['output'];
  /** The JWS in compact serialisation (header `typ` fee-quote+jwt, `kid` of the signing key). */
  token: Scalars['String']['output'];
};

/** A pricing rule: amount bands, each pricing the whole amount, in force from `effectiveFrom`. */
export type FeeRule = {
  __typename?: 'FeeRule';
  /** Ascending amount bands; the last one has no upper bound. */
  bands: Array<FeeBand>;
  /** The category the rule is set for when `source` is CATEGORY, else null. */
  category: Maybe<Scalars['String']['output']>;
  /** Percent (0-100) of all charges the customer pays when the request does not say; null: the channel's fee bearer decides. */
  customerShare: Maybe<Scalars['Decimal']['output']>;
  /** ISO 8601 UTC instant from which the rule applies. */
  effectiveFrom: Scalars['String']['output'];
  /** Rule id (UUID; `flat:`-prefixed for the implicit rule of a flat fee setting). */
  id: Scalars['ID']['output'];
  /** Upper bound of the fee of any band (major unit), null when not set. */
  maxFee: Maybe<Scalars['Decimal']['output']>;
  /** Lower bound of the fee of any band (major unit), null when not set (contract §10). */
  minFee: Maybe<Scalars['Decimal']['output']>;
  /** Who the rule is set for. */
  source: FeeRuleSource;
  /** Tax on fee + additional fee, percent (11 = 11 %), null when not set. */
  taxPercentage: Maybe<Scalars['Decimal']['output']>;
};

/** Who a pricing rule is set for; the most specific one in force applies (MERCHANT, then CATEGORY, then CHANNEL). */
export type FeeRuleSource =
  /** A rule for the merchant's category (e.g. `micro`). */
  | 'CATEGORY'
  /** The channel's default rule (its flat fee unless a rule was set). */
  | 'CHANNEL'
  /** A rule for this merchant only (a per-merchant fee override is one). */
  | 'MERCHANT';

/** One way to pay with a channel: a title and ordered steps. */
export type InstructionSection = {
  __typename?: 'InstructionSection';
  /** Stable key of the section: `atm`, `mobile_banking`, `internet_banking`, `app`, `counter`, `qr`, `card`, … */
  key: Scalars['String']['output'];
  /** Ordered steps, plain text (placeholders filled as the request allows). */
  steps: Array<Scalars['String']['output']>;
  /** Heading of the section, e.g. "ATM BCA". */
  title: Scalars['String']['output'];
};

/** Operations that create something (SVC1-signed callers only). */
export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Create a checkout session (contract §9): a short-lived, read-only client secret for a browser or app,
   * scoped to this merchant, one amount and currency, and some of its channels. SVC1-signed callers only (a
   * session gets SESSION_SCOPE). The same operation as REST `POST /v1/checkout/sessions`.
   */
  createCheckoutSession: CheckoutSessionCreated;
};


/** Operations that create something (SVC1-signed callers only). */
export type MutationCreateCheckoutSessionArgs = {
  input: CreateCheckoutSessionInput;
};

/** A way to pay (QRIS, a bank virtual account, an e-wallet, ...), as configured for the merchant. */
export type PaymentChannel = {
  __typename?: 'PaymentChannel';
  /**
   * Whether a customer can pay with this channel now, and every reason why
   * not. Judged against the `amount`/`currency` of the list's `filter` when
   * given; otherwise status and KYC only.
   */
  availability: ChannelAvailability;
  /** Method code, lower case, e.g. `qris`; `calculateFee(input: { method })` matches it case-insensitively. */
  code: Scalars['String']['output'];
  /** ISO 4217 code of the currency this channel settles in. */
  currency: Scalars['String']['output'];
  /**
   * The fee of a payment of `amount` (in this channel's currency) on this
   * channel: the same result as `calculateFee` with this channel's code. Null,
   * with an error at this field's path carrying `extensions.code`
   * (CHANNEL_UNAVAILABLE, KYC_REQUIRED, AMOUNT_OUT_OF_RANGE, INVALID_REQUEST),
   * when this channel cannot price it; the other channels are unaffected.
   */
  fee: Maybe<FeeCalculation>;
  /** Fee and limit settings for this merchant (merchant overrides applied). `feePercentage`/`feeValue` are those of the first band of `feeRule`. */
  feeInfo: FeeInfo;
  /** The pricing rule in force for this merchant now: the most specific of its merchant rule, its category's rule and the channel default. */
  feeRule: FeeRule;
  /** The group the channel is shown under (contract §12), e.g. VIRTUAL_ACCOUNT. */
  group: ChannelGroup;
  /**
   * Display name of the channel's group in a language (same `locale` rules as `name`): e.g. "Dompet
   * Digital" (`id`) / "E-Wallet" (`en`). Without `locale`: the session's locale, else English.
   */
  groupName: Scalars['String']['output'];
  /** Stable channel identifier (UUID). */
  id: Scalars['ID']['output'];
  /** Relative path of the channel image, served by this service (prefix it with the service's base URL). */
  imageUrl: Scalars['String']['output'];
  /**
   * How a customer pays with this channel once they hold a pay code (contract §14): ordered sections (ATM,
   * mobile banking, the app, the cashier, …) of plain-text steps in one language. The placeholders
   * `{{pay_code}}`, `{{amount}}`, `{{merchant_name}}` and `{{expires_at}}` are filled from the arguments (the
   * merchant's name always); those without a value stay as written and are listed in `unfilled`. A checkout
   * session reads its own channels' instructions with its own amount (what the customer pays on this
   * channel, fee included), its expiry and, by default, its locale. Computed only when selected.
   */
  instructions: PaymentInstructions;
  /**
   * Changes whenever the channel's stored instructions change (in any language): a page that shows them
   * selects this cheap field in its live subscription and asks for `instructions` again when it moves.
   */
  instructionsVersion: Scalars['String']['output'];
  /** Default fee bearer: true when the customer pays the fee on top of the amount. */
  isFeeChargedToCustomer: Scalars['Boolean']['output'];
  /**
   * Display name, e.g. `QRIS`. With `locale` (contract §12) the name in that language: `id` (also `id-ID`,
   * `in`) Indonesian, `en` English, any other language tag English; proper nouns stay as they are
   * (`credit_card` is "Kartu Kredit" in `id`). Without it, a checkout session's locale when the session has
   * one, else the stored name (the REST `name`). An explicit null always gives the stored name.
   */
  name: Scalars['String']['output'];
  /** True when the merchant's KYC must be approved to use this channel. */
  requiresKyc: Scalars['Boolean']['output'];
  /** Rules for this merchant (its own, its category's, the channel default) that take effect later, in the order they start. A listed rule may be shadowed by a more specific one. */
  scheduledFeeRules: Array<FeeRule>;
  /** Current operational state. */
  status: ChannelStatus;
};


/** A way to pay (QRIS, a bank virtual account, an e-wallet, ...), as configured for the merchant. */
export type PaymentChannelFeeArgs = {
  amount: Scalars['Decimal']['input'];
  chargeFeeToCustomer?: InputMaybe<Scalars['Boolean']['input']>;
};


/** A way to pay (QRIS, a bank virtual account, an e-wallet, ...), as configured for the merchant. */
export type PaymentChannelGroupNameArgs = {
  locale?: InputMaybe<Scalars['String']['input']>;
};


/** A way to pay (QRIS, a bank virtual account, an e-wallet, ...), as configured for the merchant. */
export type PaymentChannelInstructionsArgs = {
  amount?: InputMaybe<Scalars['Decimal']['input']>;
  expiresAt?: InputMaybe<Scalars['String']['input']>;
  locale?: InputMaybe<Scalars['String']['input']>;
  payCode?: InputMaybe<Scalars['String']['input']>;
  timeZone?: InputMaybe<Scalars['String']['input']>;
};


/** A way to pay (QRIS, a bank virtual account, an e-wallet, ...), as configured for the merchant. */
export type PaymentChannelNameArgs = {
  locale?: InputMaybe<Scalars['String']['input']>;
};

/** Narrows `paymentChannels` and describes the payment availability is judged for. Every member is optional. */
export type PaymentChannelFilter = {
  /** Payment amount in the currency's major unit (> 0); channels whose limits or precision exclude it get AMOUNT_OUT_OF_RANGE / AMOUNT_PRECISION. */
  amount?: InputMaybe<Scalars['Decimal']['input']>;
  /**
   * Only these channels (codes, case-insensitive; at most 50). A code that names no channel enabled for the
   * merchant is INVALID_REQUEST naming `filter.codes` and the code (contract §14).
   */
  codes?: InputMaybe<Array<Scalars['String']['input']>>;
  /** ISO 4217 code of the payment; channels settling in another currency get CURRENCY_MISMATCH. */
  currency?: InputMaybe<Scalars['String']['input']>;
  /** Leave out these channels (codes, case-insensitive; at most 50); an unknown code is INVALID_REQUEST naming `filter.excludeCodes`. */
  excludeCodes?: InputMaybe<Array<Scalars['String']['input']>>;
  /** Only channels of these groups (contract §14), e.g. `[VIRTUAL_ACCOUNT, EWALLET]`. */
  groups?: InputMaybe<Array<ChannelGroup>>;
  /**
   * Also list channels this merchant cannot use because its KYC is not
   * approved (reason KYC_REQUIRED). Default false: the REST list.
   */
  includeIneligible?: InputMaybe<Scalars['Boolean']['input']>;
  /** Keep only channels whose `availability.selectable` is true. */
  selectableOnly?: InputMaybe<Scalars['Boolean']['input']>;
  /** Keep only channels with one of these statuses. */
  status?: InputMaybe<Array<ChannelStatus>>;
};

/** How to pay with a channel, in one language (contract §14): plain text, clients render it as text. */
export type PaymentInstructions = {
  __typename?: 'PaymentInstructions';
  /** The language the text is in: `id` or `en`. */
  locale: Scalars['String']['output'];
  /** Ordered sections, each one way to pay (ATM, mobile banking, the app, the cashier, …); empty when the channel has none in this language. */
  sections: Array<InstructionSection>;
  /** Placeholders the text still holds because the request gave no value for them (`pay_code`, `amount`, `merchant_name`, `expires_at`). */
  unfilled: Array<Scalars['String']['output']>;
};

/**
 * Everything a checkout or a merchant's server reads: the channel list (here), fee calculations
 * (schema/pricing.graphql) and the caller's checkout session (schema/sessions.graphql). Every operation is
 * authenticated: SVC1-signed, or a checkout session's `Authorization: Bearer` client secret, which acts for
 * its merchant read-only within the session's amount, currency and methods.
 */
export type Query = {
  __typename?: 'Query';
  /**
   * Estimate the fee and totals of a payment before it is created. Same result
   * as REST POST /v1/payments/calculate. Errors carry `extensions.code`
   * (CHANNEL_NOT_FOUND, CHANNEL_UNAVAILABLE, KYC_REQUIRED, UNSUPPORTED_CURRENCY,
   * AMOUNT_OUT_OF_RANGE, MERCHANT_MISMATCH, INVALID_REQUEST).
   */
  calculateFee: FeeCalculation;
  /**
   * The checkout session the request was made with (contract §9, `Authorization: Bearer <clientSecret>`),
   * so a browser can show what it may do and until when; null for SVC1-signed callers.
   */
  checkoutSession: Maybe<CheckoutSession>;
  /**
   * The payment channels enabled for the authenticated merchant, in display
   * order. Channels that are offline or under maintenance are listed with their
   * status so a checkout can hide them; only ACTIVE channels are selectable.
   * Channels requiring approved KYC are left out for a merchant whose KYC is not
   * approved (the same list as REST GET /v1/payments/channel).
   *
   * Without `filter` (or with an empty one) the result is exactly the REST
   * list. `filter` can describe a payment (`amount`, `currency`) to judge every
   * channel's `availability` against, narrow the list (`status`,
   * `selectableOnly`), or add the KYC-gated channels the merchant cannot use
   * yet (`includeIneligible`), each with its reasons.
   */
  paymentChannels: Array<PaymentChannel>;
  /**
   * Check a fee quote (contract §11) and return what it states, whatever the
   * pricing is now. Errors carry `extensions.code`: QUOTE_INVALID (malformed,
   * not in the canonical encoding, bad signature, unknown key, or another
   * merchant's quote), QUOTE_EXPIRED, MERCHANT_MISMATCH (`merchantId` is not
   * the key's merchant). A signed (SVC1) call only: a checkout session gets
   * SESSION_SCOPE (HTTP 403) before anything executes. Each verification costs
   * 1 work unit. Same as REST POST /v1/payments/quotes/verify.
   */
  verifyQuote: VerifiedQuote;
};


/**
 * Everything a checkout or a merchant's server reads: the channel list (here), fee calculations
 * (schema/pricing.graphql) and the caller's checkout session (schema/sessions.graphql). Every operation is
 * authenticated: SVC1-signed, or a checkout session's `Authorization: Bearer` client secret, which acts for
 * its merchant read-only within the session's amount, currency and methods.
 */
export type QueryCalculateFeeArgs = {
  input: CalculateFeeInput;
};


/**
 * Everything a checkout or a merchant's server reads: the channel list (here), fee calculations
 * (schema/pricing.graphql) and the caller's checkout session (schema/sessions.graphql). Every operation is
 * authenticated: SVC1-signed, or a checkout session's `Authorization: Bearer` client secret, which acts for
 * its merchant read-only within the session's amount, currency and methods.
 */
export type QueryPaymentChannelsArgs = {
  filter?: InputMaybe<PaymentChannelFilter>;
};


/**
 * Everything a checkout or a merchant's server reads: the channel list (here), fee calculations
 * (schema/pricing.graphql) and the caller's checkout session (schema/sessions.graphql). Every operation is
 * authenticated: SVC1-signed, or a checkout session's `Authorization: Bearer` client secret, which acts for
 * its merchant read-only within the session's amount, currency and methods.
 */
export type QueryVerifyQuoteArgs = {
  merchantId?: InputMaybe<Scalars['ID']['input']>;
  token: Scalars['String']['input'];
};

/** How a percentage part is rounded to the currency's minor unit. */
export type RoundingMode =
  /** Half away from zero (0.5 rounds up), to `decimals` places. */
  | 'HALF_UP';

/** The rounding applied to each percentage part separately (fixed parts are exact). */
export type RoundingRule = {
  __typename?: 'RoundingRule';
  /** Decimals kept: the currency's minor unit (IDR 0, USD 2). */
  decimals: Scalars['Int']['output'];
  /** Rounding mode. */
  mode: RoundingMode;
};

/** Live updates pushed over Server-Sent Events (`Accept: text/event-stream`; docs/live-updates.md). */
export type Subscription = {
  __typename?: 'Subscription';
  /**
   * The authenticated merchant's channel list, live (contract §8). Sent over
   * Server-Sent Events: `POST /graphql` with `Accept: text/event-stream`, signed
   * like every request (the signature is checked when the stream opens).
   *
   * The first event carries the list as `paymentChannels(filter:)` returns it
   * with the same `filter`; a new event follows within 1 s of any change that
   * alters that list as selected (status, fees, limits, KYC, enabled channels, a
   * scheduled rule taking effect), whichever process or replica made it. Two
   * consecutive events are never identical. Only this merchant's data is ever
   * sent. The stream ends when its API key is revoked (a last event with an
   * INVALID_API_KEY error, then `complete`). Opened with a checkout session
   * (contract §9), it lists the session's methods judged against its amount and
   * currency, and ends at the session's expiry (SESSION_EXPIRED) or when the key
   * that created it is revoked (SESSION_INVALID); at most 2 per session. At most `SUBSCRIPTIONS_PER_KEY`
   * (default 10) streams per API key are open at once; one more is refused
   * with HTTP 429 RATE_LIMITED. A comment line (`: heartbeat`) every 15 s keeps
   * proxies from closing an idle stream.
   */
  paymentChannelsChanged: Array<PaymentChannel>;
};


/** Live updates pushed over Server-Sent Events (`Accept: text/event-stream`; docs/live-updates.md). */
export type SubscriptionPaymentChannelsChangedArgs = {
  filter?: InputMaybe<PaymentChannelFilter>;
};

/** Why a channel cannot take a payment. */
export type UnavailabilityReason =
  /** The amount is outside the channel's min/max (calculateFee: AMOUNT_OUT_OF_RANGE). */
  | 'AMOUNT_OUT_OF_RANGE'
  /** The amount has more decimals than the channel currency allows (calculateFee: INVALID_REQUEST). */
  | 'AMOUNT_PRECISION'
  /** The payment currency is not the channel's currency (calculateFee: UNSUPPORTED_CURRENCY). */
  | 'CURRENCY_MISMATCH'
  /** The channel requires approved KYC and the merchant's KYC is not approved (calculateFee: KYC_REQUIRED). */
  | 'KYC_REQUIRED'
  /** The channel is under maintenance (calculateFee: CHANNEL_UNAVAILABLE). */
  | 'MAINTENANCE'
  /** The channel is offline (calculateFee: CHANNEL_UNAVAILABLE). */
  | 'OFFLINE';

/** What a verified quote states: the calculation as it was quoted, its id and lifetime. */
export type VerifiedQuote = {
  __typename?: 'VerifiedQuote';
  /** The additional fee as quoted. */
  additionalFee: Scalars['Decimal']['output'];
  /** The base amount. */
  amount: Scalars['Decimal']['output'];
  /** True when the customer bears all the charges. */
  chargeFeeToCustomer: Scalars['Boolean']['output'];
  /** ISO 4217 currency code of every amount. */
  currency: Scalars['String']['output'];
  /** The customer's part of the charges. */
  customerFee: Scalars['Decimal']['output'];
  /** ISO 8601 UTC instant the quote expires. */
  expiresAt: Scalars['String']['output'];
  /** The channel fee as quoted. */
  fee: Scalars['Decimal']['output'];
  /** Tax on the fees as quoted. */
  feeTax: Scalars['Decimal']['output'];
  /** What the merchant receives. */
  getBalance: Scalars['Decimal']['output'];
  /** ISO 8601 UTC instant the quote was issued. */
  issuedAt: Scalars['String']['output'];
  /** The merchant's part of the charges. */
  merchantFee: Scalars['Decimal']['output'];
  /** The merchant the quote was issued to. */
  merchantId: Scalars['ID']['output'];
  /** Channel code that priced it. */
  method: Scalars['String']['output'];
  /** The quote id (`qt_…`). */
  quoteId: Scalars['ID']['output'];
  /** Id of the pricing rule that priced it. */
  ruleId: Scalars['ID']['output'];
  /** What the customer pays. */
  totalAmount: Scalars['Decimal']['output'];
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  AppliedPricing: ResolverTypeWrapper<AppliedPricingModel>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  CalculateFeeInput: CalculateFeeInput;
  ChannelAvailability: ResolverTypeWrapper<Availability>;
  ChannelGroup: null;
  ChannelStatus: null;
  CheckoutSession: ResolverTypeWrapper<CheckoutSession>;
  CheckoutSessionCreated: ResolverTypeWrapper<CheckoutSessionCreated>;
  CreateCheckoutSessionInput: CreateCheckoutSessionInput;
  Decimal: ResolverTypeWrapper<Scalars['Decimal']['output']>;
  FeeBand: ResolverTypeWrapper<FeeBandModel>;
  FeeBearer: FeeBearer;
  FeeBreakdown: ResolverTypeWrapper<Omit<FeeBreakdown, 'pricing'> & { pricing: ResolversTypes['AppliedPricing'] }>;
  FeeCalculation: ResolverTypeWrapper<FeeCalculationModel>;
  FeeCap: FeeCap;
  FeeInfo: ResolverTypeWrapper<ChannelFeeInfo>;
  FeePart: ResolverTypeWrapper<FeePart>;
  FeeQuote: ResolverTypeWrapper<IssuedQuote>;
  FeeRule: ResolverTypeWrapper<FeeRuleModel>;
  FeeRuleSource: FeeRuleSource;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  InstructionSection: ResolverTypeWrapper<InstructionSectionModel>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  PaymentChannel: ResolverTypeWrapper<ListedChannel>;
  PaymentChannelFilter: PaymentChannelFilter;
  PaymentInstructions: ResolverTypeWrapper<ChannelInstructionsAnswer>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  RoundingMode: RoundingMode;
  RoundingRule: ResolverTypeWrapper<RoundingRule>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  UnavailabilityReason: UnavailabilityReason;
  VerifiedQuote: ResolverTypeWrapper<VerifiedQuoteModel>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  AppliedPricing: AppliedPricingModel;
  Boolean: Scalars['Boolean']['output'];
  CalculateFeeInput: CalculateFeeInput;
  ChannelAvailability: Availability;
  CheckoutSession: CheckoutSession;
  CheckoutSessionCreated: CheckoutSessionCreated;
  CreateCheckoutSessionInput: CreateCheckoutSessionInput;
  Decimal: Scalars['Decimal']['output'];
  FeeBand: FeeBandModel;
  FeeBreakdown: Omit<FeeBreakdown, 'pricing'> & { pricing: ResolversParentTypes['AppliedPricing'] };
  FeeCalculation: FeeCalculationModel;
  FeeInfo: ChannelFeeInfo;
  FeePart: FeePart;
  FeeQuote: IssuedQuote;
  FeeRule: FeeRuleModel;
  ID: Scalars['ID']['output'];
  InstructionSection: InstructionSectionModel;
  Int: Scalars['Int']['output'];
  Mutation: Record<PropertyKey, never>;
  PaymentChannel: ListedChannel;
  PaymentChannelFilter: PaymentChannelFilter;
  PaymentInstructions: ChannelInstructionsAnswer;
  Query: Record<PropertyKey, never>;
  RoundingRule: RoundingRule;
  String: Scalars['String']['output'];
  Subscription: Record<PropertyKey, never>;
  VerifiedQuote: VerifiedQuoteModel;
};

export type AppliedPricingResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['AppliedPricing'] = ResolversParentTypes['AppliedPricing']> = {
  band?: Resolver<ResolversTypes['FeeBand'], ParentType, ContextType>;
  bandIndex?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  effectiveFrom?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  ruleId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  source?: Resolver<ResolversTypes['FeeRuleSource'], ParentType, ContextType>;
};

export type ChannelAvailabilityResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['ChannelAvailability'] = ResolversParentTypes['ChannelAvailability']> = {
  reasons?: Resolver<Array<ResolversTypes['UnavailabilityReason']>, ParentType, ContextType>;
  selectable?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
};

export type ChannelGroupResolvers = { CARD: 'card', EWALLET: 'ewallet', QRIS: 'qris', RETAIL_OUTLET: 'retail_outlet', VIRTUAL_ACCOUNT: 'virtual_account' };

export type ChannelStatusResolvers = { ACTIVE: 'active', MAINTENANCE: 'maintenance', OFFLINE: 'offline' };

export type CheckoutSessionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CheckoutSession'] = ResolversParentTypes['CheckoutSession']> = {
  amount?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expiresAt?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  locale?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  methods?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
};

export type CheckoutSessionCreatedResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CheckoutSessionCreated'] = ResolversParentTypes['CheckoutSessionCreated']> = {
  amount?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  clientSecret?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expiresAt?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  locale?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  methods?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
};

export interface DecimalScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['Decimal'], any> {
  name: 'Decimal';
}

export type FeeBandResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeeBand'] = ResolversParentTypes['FeeBand']> = {
  fixed?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  percentage?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  upTo?: Resolver<Maybe<ResolversTypes['Decimal']>, ParentType, ContextType>;
};

export type FeeBreakdownResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeeBreakdown'] = ResolversParentTypes['FeeBreakdown']> = {
  additionalFee?: Resolver<ResolversTypes['FeePart'], ParentType, ContextType>;
  cap?: Resolver<Maybe<ResolversTypes['FeeCap']>, ParentType, ContextType>;
  customerShare?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  fee?: Resolver<ResolversTypes['FeePart'], ParentType, ContextType>;
  feeBearer?: Resolver<ResolversTypes['FeeBearer'], ParentType, ContextType>;
  pricing?: Resolver<ResolversTypes['AppliedPricing'], ParentType, ContextType>;
  rounding?: Resolver<ResolversTypes['RoundingRule'], ParentType, ContextType>;
  taxPercentage?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
};

export type FeeCalculationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeeCalculation'] = ResolversParentTypes['FeeCalculation']> = {
  additionalFee?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  amount?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  breakdown?: Resolver<ResolversTypes['FeeBreakdown'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  customerFee?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  fee?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  feeTax?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  getBalance?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  merchantFee?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  quote?: Resolver<Maybe<ResolversTypes['FeeQuote']>, ParentType, ContextType>;
  totalAmount?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
};

export type FeeInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeeInfo'] = ResolversParentTypes['FeeInfo']> = {
  additionalFeePercentage?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  additionalFeeValue?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  feePercentage?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  feeValue?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  maxTransactions?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  minTransactions?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
};

export type FeePartResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeePart'] = ResolversParentTypes['FeePart']> = {
  fixedPart?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  percentage?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  percentagePart?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  total?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
};

export type FeeQuoteResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeeQuote'] = ResolversParentTypes['FeeQuote']> = {
  expiresAt?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  token?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type FeeRuleResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['FeeRule'] = ResolversParentTypes['FeeRule']> = {
  bands?: Resolver<Array<ResolversTypes['FeeBand']>, ParentType, ContextType>;
  category?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  customerShare?: Resolver<Maybe<ResolversTypes['Decimal']>, ParentType, ContextType>;
  effectiveFrom?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  maxFee?: Resolver<Maybe<ResolversTypes['Decimal']>, ParentType, ContextType>;
  minFee?: Resolver<Maybe<ResolversTypes['Decimal']>, ParentType, ContextType>;
  source?: Resolver<ResolversTypes['FeeRuleSource'], ParentType, ContextType>;
  taxPercentage?: Resolver<Maybe<ResolversTypes['Decimal']>, ParentType, ContextType>;
};

export type InstructionSectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['InstructionSection'] = ResolversParentTypes['InstructionSection']> = {
  key?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  steps?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  title?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
};

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  createCheckoutSession?: Resolver<ResolversTypes['CheckoutSessionCreated'], ParentType, ContextType, RequireFields<MutationCreateCheckoutSessionArgs, 'input'>>;
};

export type PaymentChannelResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PaymentChannel'] = ResolversParentTypes['PaymentChannel']> = {
  availability?: Resolver<ResolversTypes['ChannelAvailability'], ParentType, ContextType>;
  code?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  fee?: Resolver<Maybe<ResolversTypes['FeeCalculation']>, ParentType, ContextType, RequireFields<PaymentChannelFeeArgs, 'amount'>>;
  feeInfo?: Resolver<ResolversTypes['FeeInfo'], ParentType, ContextType>;
  feeRule?: Resolver<ResolversTypes['FeeRule'], ParentType, ContextType>;
  group?: Resolver<ResolversTypes['ChannelGroup'], ParentType, ContextType>;
  groupName?: Resolver<ResolversTypes['String'], ParentType, ContextType, Partial<PaymentChannelGroupNameArgs>>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  imageUrl?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  instructions?: Resolver<ResolversTypes['PaymentInstructions'], ParentType, ContextType, Partial<PaymentChannelInstructionsArgs>>;
  instructionsVersion?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  isFeeChargedToCustomer?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType, Partial<PaymentChannelNameArgs>>;
  requiresKyc?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  scheduledFeeRules?: Resolver<Array<ResolversTypes['FeeRule']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['ChannelStatus'], ParentType, ContextType>;
};

export type PaymentInstructionsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PaymentInstructions'] = ResolversParentTypes['PaymentInstructions']> = {
  locale?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  sections?: Resolver<Array<ResolversTypes['InstructionSection']>, ParentType, ContextType>;
  unfilled?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
};

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  calculateFee?: Resolver<ResolversTypes['FeeCalculation'], ParentType, ContextType, RequireFields<QueryCalculateFeeArgs, 'input'>>;
  checkoutSession?: Resolver<Maybe<ResolversTypes['CheckoutSession']>, ParentType, ContextType>;
  paymentChannels?: Resolver<Array<ResolversTypes['PaymentChannel']>, ParentType, ContextType, Partial<QueryPaymentChannelsArgs>>;
  verifyQuote?: Resolver<ResolversTypes['VerifiedQuote'], ParentType, ContextType, RequireFields<QueryVerifyQuoteArgs, 'token'>>;
};

export type RoundingRuleResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RoundingRule'] = ResolversParentTypes['RoundingRule']> = {
  decimals?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  mode?: Resolver<ResolversTypes['RoundingMode'], ParentType, ContextType>;
};

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  paymentChannelsChanged?: SubscriptionResolver<Array<ResolversTypes['PaymentChannel']>, "paymentChannelsChanged", ParentType, ContextType, Partial<SubscriptionPaymentChannelsChangedArgs>>;
};

export type VerifiedQuoteResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['VerifiedQuote'] = ResolversParentTypes['VerifiedQuote']> = {
  additionalFee?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  amount?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  chargeFeeToCustomer?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  currency?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  customerFee?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  expiresAt?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  fee?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  feeTax?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  getBalance?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  issuedAt?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  merchantFee?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
  merchantId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  method?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  quoteId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  ruleId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  totalAmount?: Resolver<ResolversTypes['Decimal'], ParentType, ContextType>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  AppliedPricing?: AppliedPricingResolvers<ContextType>;
  ChannelAvailability?: ChannelAvailabilityResolvers<ContextType>;
  ChannelGroup?: ChannelGroupResolvers;
  ChannelStatus?: ChannelStatusResolvers;
  CheckoutSession?: CheckoutSessionResolvers<ContextType>;
  CheckoutSessionCreated?: CheckoutSessionCreatedResolvers<ContextType>;
  Decimal?: GraphQLScalarType;
  FeeBand?: FeeBandResolvers<ContextType>;
  FeeBreakdown?: FeeBreakdownResolvers<ContextType>;
  FeeCalculation?: FeeCalculationResolvers<ContextType>;
  FeeInfo?: FeeInfoResolvers<ContextType>;
  FeePart?: FeePartResolvers<ContextType>;
  FeeQuote?: FeeQuoteResolvers<ContextType>;
  FeeRule?: FeeRuleResolvers<ContextType>;
  InstructionSection?: InstructionSectionResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  PaymentChannel?: PaymentChannelResolvers<ContextType>;
  PaymentInstructions?: PaymentInstructionsResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  RoundingRule?: RoundingRuleResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
  VerifiedQuote?: VerifiedQuoteResolvers<ContextType>;
};

