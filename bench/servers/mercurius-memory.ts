/**
 * Peer "Fastify + Mercurius + graphql-jit, channels cached in memory": what a user would build
 * instead of this service. Float fields, no authentication, no logs/metrics/limits, channels parsed from the
 * project's own REST answer and held in memory, and a plain-number fee resolver (the §5 formula in binary
 * floating point, rounding half-up to whole IDR). The same query documents as the project's scenarios, with
 * the amount variable typed `Float!` (the bench rewrites `Decimal!`).
 */
import Fastify from 'fastify';
import mercurius from 'mercurius';
import { announce } from './common.js';
import { restAnswer, type RestChannel } from './memory.js';

const { channels } = restAnswer();
const byCode = new Map<string, RestChannel>(channels.map((c) => [c.code, c]));

const schema = /* GraphQL */ `
  enum ChannelStatus { ACTIVE OFFLINE MAINTENANCE }
  type FeeInfo { feePercentage: Float! feeValue: Float! minTransactions: Float! maxTransactions: Float! }
  type PaymentChannel {
    id: ID! name: String! code: String! imageUrl: String! status: ChannelStatus!
    isFeeChargedToCustomer: Boolean! feeInfo: FeeInfo!
  }
  input CalculateFeeInput { amount: Float! currency: String! method: String! merchantId: ID chargeFeeToCustomer: Boolean }
  type FeeCalculation { amount: Float! fee: Float! additionalFee: Float! totalAmount: Float! getBalance: Float! currency: String! }
  type Query {
    paymentChannels: [PaymentChannel!]!
    calculateFee(input: CalculateFeeInput!): FeeCalculation!
  }
`;

/** GraphQL view of a REST channel, built once (the list resolver returns the same objects every time). */
const views = channels.map((c) => ({
  id: c.id,
  name: c.name,
  code: c.code,
  imageUrl: c.image_url,
  status: c.status.toUpperCase(),
  isFeeChargedToCustomer: c.is_fee_charged_to_customer,
  feeInfo: { feePercentage: c.fee_info.fee_percentage, feeValue: c.fee_info.fee_value, minTransactions: c.fee_info.min_transactions, maxTransactions: c.fee_info.max_transactions },
}));

interface CalcInput { amount: number; currency: string; method: string; chargeFeeToCustomer?: boolean | null }

const resolvers = {
  Query: {
    paymentChannels: () => views,
    calculateFee: (_: unknown, { input }: { input: CalcInput }) => {
      const c = byCode.get(input.method.toLowerCase());
      if (!c || c.status !== 'active') throw new Error('channel not found or unavailable');
      if (input.currency !== 'IDR') throw new Error('unsupported currency');
      if (input.amount < c.fee_info.min_transactions || input.amount > c.fee_info.max_transactions) throw new Error('amount out of range');
      const fee = Math.round((input.amount * c.fee_info.fee_percentage) / 100) + c.fee_info.fee_value;
      const toCustomer = input.chargeFeeToCustomer ?? c.is_fee_charged_to_customer;
      return {
        amount: input.amount,
        fee,
        additionalFee: 0,
        totalAmount: toCustomer ? input.amount + fee : input.amount,
        getBalance: toCustomer ? input.amount : input.amount - fee,
        currency: input.currency,
      };
    },
  },
};

const app = Fastify({ logger: false });
await app.register(mercurius, { schema, resolvers, jit: 1 });
await app.listen({ port: 0, host: '127.0.0.1' });
announce((app.server.address() as { port: number }).port);
