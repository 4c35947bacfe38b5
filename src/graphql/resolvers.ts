/**
 * Resolvers: thin adapters from GraphQL to the services. No business rule
 * lives here.
 */
import { OperationTypeNode } from 'graphql';
import type { FeeCalculationResolvers, MutationResolvers, FeeRuleResolvers, PaymentChannelResolvers, QueryResolvers, Resolvers } from './generated.js';
import { DecimalScalar } from './decimal-scalar.js';
import { paymentChannelsChanged } from './subscriptions.js';

const paymentChannels: NonNullable<QueryResolvers['paymentChannels']> = (_parent, { filter }, ctx) =>
  filter == null ? ctx.services.channels.listForMerchant(ctx.principal) : ctx.services.channels.search(ctx.principal, filter);

const calculateFee: NonNullable<QueryResolvers['calculateFee']> = (_parent, { input }, ctx) => ctx.services.fees.quote(ctx.principal, input);

const verifyQuote: NonNullable<QueryResolvers['verifyQuote']> = (_parent, { token, merchantId }, ctx) => {
  ctx.answerDependsOnClock();
  return ctx.services.quotes.verify(ctx.principal, token, merchantId);
};

const checkoutSession: NonNullable<QueryResolvers['checkoutSession']> = (_parent, _args, ctx) => {
  const session = ctx.principal.session;
  return session
    ? { id: session.id, amount: session.amount, currency: session.currency, methods: [...session.methods], expiresAt: new Date(session.expiresAt).toISOString(), locale: session.locale ?? null }
    : null;
};

const createCheckoutSession: NonNullable<MutationResolvers['createCheckoutSession']> = (_parent, { input }, ctx) => ctx.services.sessions.create(ctx.principal, input);

const PaymentChannel: PaymentChannelResolvers = {
  // `args.locale` is undefined when the argument is absent and null when given as null: the service tells them apart.
  name: (channel, args, ctx) => ctx.services.channels.nameOf(ctx.principal, channel, args.locale),
  groupName: (channel, args, ctx) => ctx.services.channels.groupNameOf(ctx.principal, channel, args.locale),
  feeRule: (channel) => channel.pricing.rule,
  scheduledFeeRules: (channel) => channel.pricing.scheduled,
  availability: (channel, _args, ctx) => ctx.services.channels.availabilityFor(ctx.principal, channel),
  fee: (channel, { amount, chargeFeeToCustomer }, ctx) => ctx.services.fees.quoteForChannel(ctx.principal, channel, amount, chargeFeeToCustomer),
  // Contract §14: computed only when selected (a live event without it renders nothing).
  instructions: (channel, args, ctx) => ctx.services.instructions.forChannel(ctx.principal, channel, args),
};

const FeeCalculation: FeeCalculationResolvers = {
  // Signed only when selected (contract §11: every other request costs what it cost before). Never in a live
  // event (README "Decisions"): one event's answer is shared by the streams asking the same question,
  // and a quote belongs to one shopper and one session; a page asks `calculateFee { quote }` when its customer
  // chooses, as the checkout component does.
  quote: (result, _args, ctx, info) => {
    if (info.operation.operation === OperationTypeNode.SUBSCRIPTION) return null;
    ctx.answerDependsOnClock();
    return ctx.services.quotes.issue(ctx.principal, result);
  },
  breakdown: (result) => ({
    fee: result.breakdown.fee,
    additionalFee: result.breakdown.additionalFee,
    feeBearer: result.feeChargedToCustomer ? 'CUSTOMER' : result.customerShare === '0' ? 'MERCHANT' : 'SPLIT',
    customerShare: result.customerShare,
    cap: result.breakdown.cap,
    taxPercentage: result.breakdown.taxPercentage,
    rounding: { mode: result.breakdown.rounding, decimals: result.breakdown.minorUnits },
    pricing: result.breakdown.pricing,
  }),
};

const FeeRule: FeeRuleResolvers = {
  source: (rule) => rule.scope,
  category: (rule) => rule.category ?? null,
  minFee: (rule) => rule.settings?.minFee ?? null,
  maxFee: (rule) => rule.settings?.maxFee ?? null,
  taxPercentage: (rule) => rule.settings?.taxPercentage ?? null,
  customerShare: (rule) => rule.settings?.customerShare ?? null,
};

export const resolvers: Resolvers = {
  Decimal: DecimalScalar,
  // Internal enum values are the lower-case database/REST values.
  ChannelStatus: { ACTIVE: 'active', OFFLINE: 'offline', MAINTENANCE: 'maintenance' },
  ChannelGroup: { QRIS: 'qris', VIRTUAL_ACCOUNT: 'virtual_account', EWALLET: 'ewallet', RETAIL_OUTLET: 'retail_outlet', CARD: 'card' },
  Query: { paymentChannels, calculateFee, checkoutSession, verifyQuote },
  Mutation: { createCheckoutSession },
  Subscription: { paymentChannelsChanged },
  PaymentChannel,
  FeeCalculation,
  FeeRule,
};
