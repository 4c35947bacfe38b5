/**
 * The legacy REST routes as prebuilt GraphQL operations: REST requests are
 * executed by the same schema, resolvers and plugin pipeline as /graphql,
 * and only the wire shape differs (contract §2).
 */

export const REST_LIST_CHANNELS = /* GraphQL */ `
  query RestListChannels {
    paymentChannels {
      id name code imageUrl status isFeeChargedToCustomer currency
      feeInfo { feePercentage feeValue minTransactions maxTransactions }
    }
  }
`;

export const REST_CALCULATE_FEE = /* GraphQL */ `
  query RestCalculateFee($input: CalculateFeeInput!) {
    calculateFee(input: $input) { amount fee additionalFee totalAmount getBalance currency }
  }
`;

/** A channel as the GraphQL operation returns it. */
export interface GqlChannel {
  id: string;
  name: string;
  code: string;
  imageUrl: string;
  status: 'ACTIVE' | 'OFFLINE' | 'MAINTENANCE';
  isFeeChargedToCustomer: boolean;
  currency: string;
  feeInfo: { feePercentage: number; feeValue: number; minTransactions: number; maxTransactions: number };
}

/** The seed's channel object (snake_case, lower-case status); `currency` is an additive field. */
export function toRestChannel(c: GqlChannel) {
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
    },
    currency: c.currency,
  };
}
