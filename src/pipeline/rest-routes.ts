/**
 * The legacy REST routes as prebuilt GraphQL operations: REST requests are
 * executed by the same schema, resolvers and plugin pipeline as /graphql,
 * and only the wire shape differs (contract §2).
 */
import type { RestRouteDef } from '../shared/routes.js';

export const REST_LIST_CHANNELS = /* GraphQL */ `
  query RestListChannels {
    paymentChannels {
      # name(locale: null): the stored name, whatever a session's locale (contract §12: the REST wire is unchanged)
      id name(locale: null) code imageUrl status isFeeChargedToCustomer currency group
      feeInfo { feePercentage feeValue minTransactions maxTransactions }
      feeRule { bands { upTo percentage fixed } minFee maxFee taxPercentage customerShare }
    }
  }
`;

/** The list narrowed to the channels of one order (contract §14: `?code`, `?exclude`, `?group`): the same fields. */
export const REST_LIST_CHANNELS_FILTERED = /* GraphQL */ `
  query RestListChannelsFiltered($filter: PaymentChannelFilter!) {
    paymentChannels(filter: $filter) {
      id name(locale: null) code imageUrl status isFeeChargedToCustomer currency group
      feeInfo { feePercentage feeValue minTransactions maxTransactions }
      feeRule { bands { upTo percentage fixed } minFee maxFee taxPercentage customerShare }
    }
  }
`;

/** One channel's instructions (contract §14): the list narrowed to its code, so a session reaches only its own channels. */
export const REST_CHANNEL_INSTRUCTIONS = /* GraphQL */ `
  query RestChannelInstructions($filter: PaymentChannelFilter!, $locale: String, $payCode: String, $amount: Decimal, $expiresAt: String, $timeZone: String) {
    paymentChannels(filter: $filter) {
      instructions(locale: $locale, payCode: $payCode, amount: $amount, expiresAt: $expiresAt, timeZone: $timeZone) { sections { key title steps } unfilled }
    }
  }
`;

export const REST_CALCULATE_FEE = /* GraphQL */ `
  query RestCalculateFee($input: CalculateFeeInput!) {
    calculateFee(input: $input) { amount fee additionalFee totalAmount getBalance currency feeTax customerFee merchantFee }
  }
`;

/** Calculate with `"quote": true` (contract §11): the same fields plus the signed quote, selected only when asked. */
export const REST_CALCULATE_FEE_QUOTED = /* GraphQL */ `
  query RestCalculateFeeQuoted($input: CalculateFeeInput!) {
    calculateFee(input: $input) { amount fee additionalFee totalAmount getBalance currency feeTax customerFee merchantFee quote { token expiresAt } }
  }
`;

export const REST_VERIFY_QUOTE = /* GraphQL */ `
  query RestVerifyQuote($token: String!, $merchantId: ID) {
    verifyQuote(token: $token, merchantId: $merchantId) {
      amount fee additionalFee totalAmount getBalance currency feeTax customerFee merchantFee
      method chargeFeeToCustomer ruleId quoteId merchantId issuedAt expiresAt
    }
  }
`;

export const REST_CREATE_CHECKOUT_SESSION = /* GraphQL */ `
  mutation RestCreateCheckoutSession($input: CreateCheckoutSessionInput!) {
    createCheckoutSession(input: $input) { id clientSecret expiresAt amount currency methods locale }
  }
`;

/** The prebuilt operation of each REST route (src/shared/routes.ts names the routes). */
export const REST_OPERATIONS: Readonly<Record<RestRouteDef['name'], string>> = {
  listChannels: REST_LIST_CHANNELS,
  calculateFee: REST_CALCULATE_FEE,
  createCheckoutSession: REST_CREATE_CHECKOUT_SESSION,
  verifyQuote: REST_VERIFY_QUOTE,
  channelInstructions: REST_CHANNEL_INSTRUCTIONS,
};

/**
 * The GraphQL request a REST route's (type-checked) body becomes: its prebuilt operation and variables. A
 * calculate body with `"quote": true` selects the quote (signing is paid only by requests that ask); the
 * verification body's `quote` is the operation's `token`, its `merchantId` the operation's.
 */
export function restOperationOf(name: RestRouteDef['name'], variables: Record<string, unknown> | undefined): { query: string; variables: Record<string, unknown> | undefined } {
  if (name === 'calculateFee' && variables) {
    const { quote, ...input } = variables.input as Record<string, unknown>;
    return { query: quote === true ? REST_CALCULATE_FEE_QUOTED : REST_CALCULATE_FEE, variables: { input } };
  }
  if (name === 'verifyQuote' && variables) {
    // `merchantId` (optional) is held to the key's merchant as everywhere (contract §5: MERCHANT_MISMATCH).
    const { quote, merchantId } = variables.input as { quote: string; merchantId?: string | null };
    return { query: REST_VERIFY_QUOTE, variables: { token: quote, merchantId: merchantId ?? null } };
  }
  if (name === 'listChannels' && variables) return { query: REST_LIST_CHANNELS_FILTERED, variables };
  if (name === 'createCheckoutSession' && variables) {
    // REST names groups in lower case, like a channel object's `group`; GraphQL's enum in upper case.
    const input = variables.input as { groups?: string[] | null };
    return { query: REST_CREATE_CHECKOUT_SESSION, variables: input.groups ? { input: { ...input, groups: input.groups.map((g) => g.toUpperCase()) } } : variables };
  }
  return { query: REST_OPERATIONS[name], variables };
}

/** The REST calculate answer: the calculation, plus `quote` and `quoteExpiresAt` when a quote was asked for. */
export function toRestCalculation(calculation: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!calculation || !('quote' in calculation)) return calculation;
  const { quote, ...rest } = calculation as { quote: { token: string; expiresAt: string } | null };
  return quote ? { ...rest, quote: quote.token, quoteExpiresAt: quote.expiresAt } : rest;
}

/** A channel as the GraphQL operation returns it. */
export interface GqlChannel {
  id: string;
  name: string;
  code: string;
  imageUrl: string;
  status: 'ACTIVE' | 'OFFLINE' | 'MAINTENANCE';
  isFeeChargedToCustomer: boolean;
  currency: string;
  group: 'QRIS' | 'VIRTUAL_ACCOUNT' | 'EWALLET' | 'RETAIL_OUTLET' | 'CARD';
  feeInfo: { feePercentage: number; feeValue: number; minTransactions: number; maxTransactions: number };
  /** The rule in force (its bands decide whether the channel object carries `fee_tiers`; its §10 settings go to `fee_info`). */
  feeRule: {
    bands: { upTo: number | null; percentage: number; fixed: number }[];
    minFee: number | null;
    maxFee: number | null;
    taxPercentage: number | null;
    customerShare: number | null;
  };
}

/** One band of a banded rule on the REST wire (contract §7 `fee_tiers`). */
export interface RestFeeTier {
  up_to: number | null;
  fee_percentage: number;
  fee_value: number;
}

/**
 * The seed's channel object (snake_case, lower-case status); `currency` is an
 * additive field, and so is `fee_tiers`, present only when the rule in force
 * has more than one band (contract §7: a flat rule keeps the seed's shape).
 */
export function toRestChannel(c: GqlChannel) {
  const bands = c.feeRule.bands;
  const tiers: { fee_tiers?: RestFeeTier[] } =
    bands.length > 1 ? { fee_tiers: bands.map((b) => ({ up_to: b.upTo, fee_percentage: b.percentage, fee_value: b.fixed })) } : {};
  return {
    id: c.id,
    name: c.name,
    code: c.code,
    image_url: c.imageUrl,
    status: c.status.toLowerCase(),
    is_fee_charged_to_customer: c.isFeeChargedToCustomer,
    fee_info: {
      fee_percentage: c.feeInfo.feePercentage,
      fee_value: c.feeInfo.feeValue,
      min_transactions: c.feeInfo.minTransactions,
      max_transactions: c.feeInfo.maxTransactions,
      // Contract §10, additive: the rule's caps (null when unset), its tax (0 when unset), and the customer's share
      // of the charges (the rule's, else the fee bearer's 100 or 0).
      minimum_fee: c.feeRule.minFee,
      maximum_fee: c.feeRule.maxFee,
      tax_percentage: c.feeRule.taxPercentage ?? 0,
      customer_share: c.feeRule.customerShare ?? (c.isFeeChargedToCustomer ? 100 : 0),
    },
    currency: c.currency,
    // Contract §12, additive: the group in lower case, like `status`.
    group: c.group.toLowerCase(),
    ...tiers,
  };
}
