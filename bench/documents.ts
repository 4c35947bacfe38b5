/**
 * The GraphQL request bodies every benchmark sends (bench.ts, ab.ts, profile.ts, pipeline.ts), in one place
 * so that the tools measure the same documents.
 */

/** The channel list, the fields a checkout shows. */
export const GQL_CHANNELS = JSON.stringify({ query: '{ paymentChannels { code name status feeInfo { feePercentage feeValue } } }' });

/** calculateFee for a fixed amount written into the document: the same body every time (answer cache applies). */
export const GQL_CALC = JSON.stringify({
  query: '{ calculateFee(input: { amount: 150000, currency: "IDR", method: "QRIS" }) { fee additionalFee totalAmount getBalance currency } }',
});

/**
 * The type of the amount variable in the uncached calculateFee document: the project's `Decimal`, or `Float`
 * for the in-memory Mercurius peer (Float fields, as a user would build it). Only the variable's type differs.
 */
export type AmountType = 'Decimal' | 'Float';

const GQL_CALC_VAR: Record<AmountType, string> = {
  Decimal: 'query Fee($amount: Decimal!) { calculateFee(input: { amount: $amount, currency: "IDR", method: "QRIS" }) { fee additionalFee totalAmount getBalance currency } }',
  Float: 'query Fee($amount: Float!) { calculateFee(input: { amount: $amount, currency: "IDR", method: "QRIS" }) { fee additionalFee totalAmount getBalance currency } }',
};

/**
 * calculateFee for 150,000 + (i mod 5,000,000) IDR, the amount in a variable as real clients send it: one
 * query document (parse/validate caches apply, as in production) but no two bodies alike within 5 million
 * requests (no answer cache applies).
 */
export const gqlCalcFor = (i: number, scalar: AmountType = 'Decimal'): string =>
  JSON.stringify({ query: GQL_CALC_VAR[scalar], variables: { amount: 150000 + (i % 5_000_000) } });

/** The uncached calculateFee document with the signed fee quote selected (contract §11): the cost of signing. */
const GQL_CALC_QUOTED = 'query Fee($amount: Decimal!) { calculateFee(input: { amount: $amount, currency: "IDR", method: "QRIS" }) { fee additionalFee totalAmount getBalance currency quote { token expiresAt } } }';

/** {@link gqlCalcFor} with `quote { token expiresAt }` selected: every request signs a new quote. */
export const gqlCalcQuotedFor = (i: number): string => JSON.stringify({ query: GQL_CALC_QUOTED, variables: { amount: 150000 + (i % 5_000_000) } });

const FULL_FEE =
  'amount fee additionalFee totalAmount getBalance currency feeTax customerFee merchantFee breakdown { fee { percentage percentagePart fixedPart total } additionalFee { percentage percentagePart fixedPart total } feeBearer customerShare cap taxPercentage rounding { mode decimals } pricing { ruleId source effectiveFrom bandIndex band { upTo percentage fixed } } }';

/** The heaviest kind of document a checkout session may send (6 work units: test/security/session-cost.test.ts asserts it on this very text). */
export const HEAVIEST_ALLOWED = `query Max($a: Decimal!) { paymentChannels(filter: { amount: $a, currency: "IDR" }) { code name imageUrl status availability { selectable reasons } fee(amount: $a) { amount totalAmount customerFee merchantFee currency } all: fee(amount: $a, chargeFeeToCustomer: false) { ${FULL_FEE} } } }`;

/** The session-cost probe: 15 aliases of the list with fees, breakdowns, rules and availability (50 units: refused for a session). */
export const HEAVY_DOCUMENT = `query Heavy($a: Decimal!) { ${Array.from(
  { length: 15 },
  (_, i) => `l${i}: paymentChannels(filter: { amount: $a, currency: "IDR" }) { code feeRule { bands { upTo } } availability { selectable reasons } fee(amount: $a) { fee breakdown { fee { total } pricing { ruleId } } } }`,
).join(' ')} }`;

/**
 * The most quote work a checkout session may ask for in one request: the channel list with every
 * channel's fee and its signed quote, a signature per channel (ten on the demo data) for 6 work units, the
 * session ceiling (list 1, pricing pass 2, signing pass 3: test/security/session-cost.test.ts asserts it on
 * this very text).
 */
export const QUOTE_HEAVY = 'query Quotes($a: Decimal!) { paymentChannels(filter: { amount: $a, currency: "IDR" }) { code fee(amount: $a) { totalAmount quote { token expiresAt } } } }';

/** {@link HEAVIEST_ALLOWED} as a request body, for 150,000 IDR. */
export const GQL_HEAVIEST_ALLOWED = JSON.stringify({ query: HEAVIEST_ALLOWED, variables: { a: 150000 } });
