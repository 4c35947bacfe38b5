/**
 * What a fee quote states (contract §11), shared by the gateway that signs and verifies it
 * (src/modules/quotes) and the SDK that verifies it offline (src/client/quotes.ts): one declaration, so the
 * two can never disagree on a field.
 */

/** The calculation a quote states, as on the REST wire (JSON numbers). */
export interface QuoteCalculation {
  method: string;
  amount: number;
  currency: string;
  fee: number;
  additionalFee: number;
  feeTax: number;
  customerFee: number;
  merchantFee: number;
  totalAmount: number;
  getBalance: number;
  chargeFeeToCustomer: boolean;
  ruleId: string;
}

/** A verified quote: its calculation, id and lifetime (ISO 8601 instants). */
export interface VerifiedQuote extends QuoteCalculation {
  quoteId: string;
  merchantId: string;
  issuedAt: string;
  expiresAt: string;
}
