/** The start-up banner: where the credentials are and a ready-to-paste signed call. */
import fs from 'node:fs';
import { signatureHeaders } from '../modules/auth/svc1.js';
import { shellQuote } from '../shared/shell-quote.js';
import type { DemoMerchantCredentials } from '../modules/admin/demo-seed.js';


/** Where the tools (npm run sign, SDK examples, docs/examples/*) look for the server without BASE_URL. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4000';

export function firstCallHelp(baseUrl: string, credentialsFile: string, seededNow: boolean): string {
  const parsed = JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as { merchants: DemoMerchantCredentials[] };
  const merchant = parsed.merchants.find((m) => m.kyc === 'approved') ?? parsed.merchants[0];
  if (!merchant) return '';
  const target = '/v1/payments/channel';
  const headers = signatureHeaders(merchant.apiKey, merchant.apiSecret, { method: 'GET', target });
  const curl = [`curl -s ${shellQuote(baseUrl + target)}`, ...Object.entries(headers).map(([k, v]) => `  -H ${shellQuote(`${k}: ${v}`)}`)].join(' \\\n');
  return [
    '',
    `Payment gateway listening on ${baseUrl}`,
    `  GraphQL + GraphiQL: ${baseUrl}/graphql    REST: ${baseUrl}/v1/payments/channel, ${baseUrl}/v1/payments/calculate`,
    `  Demo credentials (${seededNow ? 'just created' : 'existing'}): ${credentialsFile}`,
    `  Demo merchant: ${merchant.name} (${merchant.merchantId}), key ${merchant.apiKey}`,
    '',
    'First call (signed now; valid for 5 minutes):',
    curl,
    '',
    'Sign any other request with: npm run sign -- METHOD TARGET [BODY]',
    baseUrl === DEFAULT_BASE_URL
      ? `The tools (npm run sign, docs/examples/*) call ${DEFAULT_BASE_URL} by default, this server.`
      : `The tools (npm run sign, docs/examples/*) call ${DEFAULT_BASE_URL} by default; for this server first run:\n  export BASE_URL=${baseUrl}`,
    '',
  ].join('\n');
}
