import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * Resolver types from the SDL in the top-level schema/ folder (one file per domain), the same files
 * src/graphql/schema.ts serves. The output is committed; CI runs
 * `npm run codegen:check` and fails when it is stale.
 */
const config: CodegenConfig = {
  schema: ['schema/*.graphql'],
  generates: {
    'src/graphql/generated.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useTypeImports: true,
        contextType: './context.js#GraphQLContext',
        mappers: {
          PaymentChannel: '../modules/channels/service.js#ListedChannel',
          FeeInfo: '../modules/catalogue/records.js#ChannelFeeInfo',
          FeeCalculation: '../modules/pricing/service.js#FeeCalculationModel',
          FeeQuote: '../modules/quotes/service.js#IssuedQuote',
          VerifiedQuote: '../modules/quotes/service.js#VerifiedQuote as VerifiedQuoteModel',
          FeeRule: '../modules/pricing/domain/pricing.js#FeeRule as FeeRuleModel',
          FeeBand: '../modules/pricing/domain/pricing.js#FeeBand as FeeBandModel',
          AppliedPricing: '../modules/pricing/domain/pricing.js#AppliedPricing as AppliedPricingModel',
          ChannelAvailability: '../modules/channels/eligibility.js#Availability',
          PaymentInstructions: '../modules/channels/instructions.js#ChannelInstructionsAnswer',
          InstructionSection: '../modules/channels/domain/instructions.js#InstructionSection as InstructionSectionModel',
        },
        scalars: { Decimal: { input: 'string', output: 'string | number' } },
        enumValues: {
          ChannelStatus: { ACTIVE: 'active', OFFLINE: 'offline', MAINTENANCE: 'maintenance' },
          ChannelGroup: { QRIS: 'qris', VIRTUAL_ACCOUNT: 'virtual_account', EWALLET: 'ewallet', RETAIL_OUTLET: 'retail_outlet', CARD: 'card' },
        },
        enumsAsTypes: true,
        avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
      },
    },
  },
};

export default config;
