/**
 * Frontend/BFF example: one signed GraphQL request gives a checkout page
 * every channel it can offer for an amount, with the total and the fee
 * breakdown, and says why the others cannot take it.
 *
 *   npx tsx docs/examples/checkout.ts 150000
 *
 * Server: BASE_URL (default http://127.0.0.1:4000; the server's start-up
 * banner prints the one to export). Credentials: API_KEY/API_SECRET, else
 * the approved demo merchant in the file GATEWAY_CREDENTIALS names (default
 * $DATA_DIR/demo-credentials.json, DATA_DIR default ./data). Which ones it
 * used goes to stderr.
 *
 * Exit: 0 at least one channel can take the payment; 1 none can (each
 * channel's reason is printed), or the gateway refused the request or could
 * not be reached (what went wrong is printed); 2 usage.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createClient, GatewayError } from '../../src/client/index.js';

interface FeePart {
  percentage: number;
  fixedPart: number;
  total: number;
}

interface CheckoutData {
  offer: {
    code: string;
    name: string;
    imageUrl: string;
    fee: { amount: number; totalAmount: number; getBalance: number; breakdown: { feeBearer: 'CUSTOMER' | 'MERCHANT'; fee: FeePart; additionalFee: FeePart } };
  }[];
  all: { code: string; availability: { selectable: boolean; reasons: string[] }; feeInfo: { minTransactions: number; maxTransactions: number } }[];
}

const CHECKOUT = /* GraphQL */ `
  query Checkout($amount: Decimal!) {
    offer: paymentChannels(filter: { amount: $amount, currency: "IDR", selectableOnly: true }) {
      code name imageUrl
      fee(amount: $amount) {
        amount totalAmount getBalance
        breakdown { feeBearer fee { percentage fixedPart total } additionalFee { percentage fixedPart total } }
      }
    }
    all: paymentChannels(filter: { amount: $amount, currency: "IDR" }) {
      code availability { selectable reasons } feeInfo { minTransactions maxTransactions }
    }
  }
`;

const DEFAULT_BASE_URL = 'http://127.0.0.1:4000';

function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** The credentials and a line saying where they came from (a key of another server answers INVALID_API_KEY). */
function credentials(): { apiKey: string; apiSecret: string; source: string } {
  if (process.env.API_KEY && process.env.API_SECRET) return { apiKey: process.env.API_KEY, apiSecret: process.env.API_SECRET, source: 'API_KEY/API_SECRET' };
  const file = path.resolve(process.env.GATEWAY_CREDENTIALS || path.join(process.env.DATA_DIR || './data', 'demo-credentials.json'));
  if (!fs.existsSync(file)) {
    fail(`No credentials: set API_KEY and API_SECRET, or run this from the project directory after the first \`npm start\` (it writes ${file}; set GATEWAY_CREDENTIALS or DATA_DIR if the server uses another).`);
  }
  const { merchants } = JSON.parse(fs.readFileSync(file, 'utf8')) as { merchants: { apiKey: string; apiSecret: string; kyc: string }[] };
  const merchant = merchants.find((m) => m.kyc === 'approved') ?? merchants[0];
  if (!merchant) fail(`${file} lists no merchant.`);
  return { apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, source: `${file}${process.env.GATEWAY_CREDENTIALS ? ' (GATEWAY_CREDENTIALS)' : ''}` };
}

/** "2.9% + 2000": how one fee part is made. */
const parts = (p: FeePart) => `${p.percentage}% + ${p.fixedPart}`;

/** One line per channel; the printed numbers add up to the printed total (or balance). */
function describe(c: CheckoutData['offer'][number]): string {
  const { amount, totalAmount, getBalance, breakdown } = c.fee;
  const fees = [`fee ${breakdown.fee.total} (${parts(breakdown.fee)})`];
  if (breakdown.additionalFee.total !== 0) fees.push(`additional fee ${breakdown.additionalFee.total} (${parts(breakdown.additionalFee)})`);
  const name = c.code.padEnd(12);
  if (breakdown.feeBearer === 'CUSTOMER') return `${name} pay ${totalAmount} = ${amount} + ${fees.join(' + ')}; paid by customer`;
  return `${name} pay ${totalAmount}; merchant receives ${getBalance} = ${amount} - ${fees.join(' - ')}`;
}

/** What to check for a refused request, beyond the gateway's own message. */
function adviceFor(err: GatewayError, baseUrl: string): string {
  switch (err.code) {
    case 'INVALID_API_KEY':
      return `The key is not known to the server at ${baseUrl}. Is BASE_URL the server whose data/demo-credentials.json (or API_KEY) you use?`;
    case 'SIGNATURE_MISMATCH':
      return 'API_SECRET is not the secret of API_KEY.';
    case 'TIMESTAMP_EXPIRED':
      return "This computer's clock is too far from the server's.";
    default:
      return '';
  }
}

const arg = process.argv[2] ?? '150000';
if (process.argv.length > 3 || !/^[0-9]+(\.[0-9]+)?$/.test(arg)) fail('usage: npx tsx docs/examples/checkout.ts AMOUNT   (a positive number in IDR, e.g. 150000)', 2);
const amount = Number(arg);
const baseUrl = process.env.BASE_URL ?? DEFAULT_BASE_URL;
const { apiKey, apiSecret, source } = credentials();
process.stderr.write(`checkout: credentials ${source}, key ${apiKey}; base URL ${baseUrl}${process.env.BASE_URL ? ' (BASE_URL)' : ' (default)'}\n`);
const client = createClient({ baseUrl, apiKey, apiSecret });

let data: CheckoutData;
try {
  data = await client.graphql<CheckoutData>(CHECKOUT, { amount });
} catch (err) {
  if (err instanceof GatewayError) {
    fail([`The gateway refused the request: ${err.status} ${err.code}: ${err.message} (request ${err.requestId ?? 'n/a'})`, adviceFor(err, baseUrl)].filter(Boolean).join('\n'));
  }
  // fetch reports a refused connection as "fetch failed" with the reason in `cause`.
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : '';
  fail(
    `Cannot reach the gateway at ${baseUrl}: ${err instanceof Error ? err.message : String(err)}${cause ? ` (${cause})` : ''}.\n` +
      `Start it with \`npm start\`, or if it runs elsewhere set BASE_URL (the server's start-up banner prints it${process.env.BASE_URL ? '' : `; default ${DEFAULT_BASE_URL}`}).`,
  );
}

if (data.offer.length === 0) {
  const why = data.all.map((c) => {
    const reasons = c.availability.reasons.map((r) =>
      r === 'AMOUNT_OUT_OF_RANGE' ? `${r} (accepts ${c.feeInfo.minTransactions} to ${c.feeInfo.maxTransactions})` : r === 'AMOUNT_PRECISION' ? `${r} (IDR amounts have no decimals)` : r,
    );
    return `  ${c.code.padEnd(12)} ${reasons.join(', ')}`;
  });
  fail([`No channel can take a payment of ${arg} IDR for this merchant:`, ...(why.length > 0 ? why : ['  (no channel is enabled for this merchant)'])].join('\n'));
}
for (const c of data.offer) console.log(describe(c));
