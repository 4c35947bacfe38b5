/**
 * Frontend/BFF example: one signed GraphQL request gives a checkout page
 * every channel it can offer for an amount, with the total and the fee
 * breakdown. Run: BASE_URL=http://127.0.0.1:4000 npx tsx docs/examples/checkout.ts 150000
 * (credentials from API_KEY/API_SECRET, else data/demo-credentials.json).
 */
import fs from 'node:fs';
import { createClient, GatewayError } from '../../src/client/index.js';

interface CheckoutData {
  paymentChannels: {
    code: string;
    name: string;
    imageUrl: string;
    fee: { totalAmount: number; getBalance: number; breakdown: { feeBearer: 'CUSTOMER' | 'MERCHANT'; fee: { percentage: number; fixedPart: number; total: number } } } | null;
  }[];
}

const CHECKOUT = /* GraphQL */ `
  query Checkout($amount: Decimal!) {
    paymentChannels(filter: { amount: $amount, currency: "IDR", selectableOnly: true }) {
      code name imageUrl
      fee(amount: $amount) { totalAmount getBalance breakdown { feeBearer fee { percentage fixedPart total } } }
    }
  }
`;

function credentials(): { apiKey: string; apiSecret: string } {
  if (process.env.API_KEY && process.env.API_SECRET) return { apiKey: process.env.API_KEY, apiSecret: process.env.API_SECRET };
  const file = `${process.env.DATA_DIR ?? './data'}/demo-credentials.json`;
  const { merchants } = JSON.parse(fs.readFileSync(file, 'utf8')) as { merchants: { apiKey: string; apiSecret: string; kyc: string }[] };
  return merchants.find((m) => m.kyc === 'approved') ?? merchants[0]!;
}

const amount = Number(process.argv[2] ?? 150000);
const client = createClient({ baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:4000', ...credentials() });
try {
  const { paymentChannels } = await client.graphql<CheckoutData>(CHECKOUT, { amount });
  for (const c of paymentChannels) {
    const f = c.fee!;
    console.log(`${c.code.padEnd(12)} pay ${f.totalAmount} (fee ${f.breakdown.fee.total}: ${f.breakdown.fee.percentage}% + ${f.breakdown.fee.fixedPart}, paid by ${f.breakdown.feeBearer.toLowerCase()})`);
  }
} catch (err) {
  if (err instanceof GatewayError) console.error(`${err.status} ${err.code}: ${err.message} (request ${err.requestId})`);
  process.exitCode = 1;
}
