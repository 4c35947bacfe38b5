/**
 * Resolvers: thin adapters from GraphQL to the services. No business rule
 * lives here.
 */
import type { QueryResolvers, Resolvers } from '../generated/graphql.js';
import { DecimalScalar } from './decimal-scalar.js';

const paymentChannels: NonNullable<QueryResolvers['paymentChannels']> = (_parent, _args, ctx) =>
  ctx.services.channels.listForMerchant(ctx.principal);

const calculateFee: NonNullable<QueryResolvers['calculateFee']> = (_parent, { input }, ctx) => ctx.services.fees.quote(ctx.principal, input);

export const resolvers: Resolvers = {
  Decimal: DecimalScalar,
  // Internal enum values are the lower-case database/REST values.
  ChannelStatus: { ACTIVE: 'active', OFFLINE: 'offline', MAINTENANCE: 'maintenance' },
  Query: { paymentChannels, calculateFee },
};
