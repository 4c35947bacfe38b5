import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Resolver types from the SDL in schema/. The output is committed; CI runs
 * `npm run codegen:check` and fails when it is stale.
 */
const config: CodegenConfig = {
  schema: 'schema/*.graphql',
  generates: {
    'src/generated/graphql.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useTypeImports: true,
        contextType: '../context.js#GraphQLContext',
        mappers: {
          PaymentChannel: '../services/channels.js#ChannelView',
          FeeInfo: '../services/channels.js#FeeInfoView',
          FeeCalculation: '../domain/pricing.js#PricedFee',
          FeeRule: '../domain/pricing.js#FeeRule as FeeRuleModel',
          FeeBand: '../domain/pricing.js#FeeBand as FeeBandModel',
          AppliedPricing: '../domain/pricing.js#AppliedPricing as AppliedPricingModel',
          ChannelAvailability: '../services/eligibility.js#Availability',
        },
        scalars: { Decimal: { input: 'string', output: 'string | number' } },
        enumValues: { ChannelStatus: { ACTIVE: 'active', OFFLINE: 'offline', MAINTENANCE: 'maintenance' } },
        enumsAsTypes: true,
        avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
      },
    },
  },
};

export default config;
