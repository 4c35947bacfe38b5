/** The start-up banner: where the credentials are and a ready-to-paste signed call. */
import fs from 'node:fs';
import path from 'node:path';
import { signatureHeaders } from '../modules/auth/svc1.js';
import { shellQuote } from '../shared/shell-quote.js';
import type { DemoMerchantCredentials } from '../modules/admin/demo-seed.js';


/** Where the tools (npm run sign, SDK examples, docs/examples/*) look for the server without BASE_URL. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4000';

/**
 * The credentials file the tools (npm run sign, docs/examples/*) sign with: GATEWAY_CREDENTIALS when set,
 * else `$DATA_DIR/demo-credentials.json` (DATA_DIR default ./data), resolved against the working directory.
 */
export function toolCredentialsFile(env: NodeJS.ProcessEnv): string {
  return path.resolve(env.GATEWAY_CREDENTIALS || path.join(env.DATA_DIR || './data', 'demo-credentials.json'));
}

/**
 * `baseUrl` is where clients should call (a load balancer's PUBLIC_BASE_URL, else this server); `listeningOn`
 * is this process's own address when that differs (shown, but not offered for calls).
 */
export function firstCallHelp(baseUrl: string, credentialsFile: string, seededNow: boolean, listeningOn: string = baseUrl): string {
  const parsed = JSON.parse(fs.readFileSync(credentialsFile, 'utf8')) as { merchants: DemoMerchantCredentials[] };
  const merchant = parsed.merchants.find((m) => m.kyc === 'approved') ?? parsed.merchants[0];
  if (!merchant) return '';
  const target = '/v1/payments/channel';
  const headers = signatureHeaders(merchant.apiKey, merchant.apiSecret, { method: 'GET', target });
  const curl = [`curl -s ${shellQuote(baseUrl + target)}`, ...Object.entries(headers).map(([k, v]) => `  -H ${shellQuote(`${k}: ${v}`)}`)].join(' \\\n');
  return [
    '',
    `${listeningOn === baseUrl ? `Payment gateway listening on ${baseUrl}` : `Payment gateway at ${baseUrl} (the load balancer; this replica listens on ${listeningOn})`}, Node.js ${process.version}`,
    `  GraphQL + GraphiQL: ${baseUrl}/graphql    REST: ${baseUrl}/v1/payments/channel, ${baseUrl}/v1/payments/calculate`,
    `  Demo credentials (${seededNow ? 'just created' : 'existing'}): ${credentialsFile}`,
    `  Demo merchant: ${merchant.name} (${merchant.merchantId}), key ${merchant.apiKey}`,
    '',
    'First call (signed now; valid for 5 minutes):',
    curl,
    '',
    'Sign any other request with: npm run sign -- METHOD TARGET [BODY]',
    ...toolsHint(baseUrl, credentialsFile),
    '',
  ].join('\n');
}

/**
 * How the tools reach this server with its credentials. Their defaults are DEFAULT_BASE_URL and
 * ./data/demo-credentials.json of the directory they run in (taken as this process's); whatever
 * differs is one `export` line.
 */
function toolsHint(baseUrl: string, credentialsFile: string): string[] {
  const exports = [
    ...(baseUrl === DEFAULT_BASE_URL ? [] : [`  export BASE_URL=${baseUrl}`]),
    ...(path.resolve(credentialsFile) === toolCredentialsFile({}) ? [] : [`  export GATEWAY_CREDENTIALS=${shellQuote(path.resolve(credentialsFile))}`]),
  ];
  if (exports.length === 0) return [`The tools (npm run sign, docs/examples/*) call ${DEFAULT_BASE_URL} with ./data/demo-credentials.json by default: this server.`];
  return [`The tools (npm run sign, docs/examples/*) call ${DEFAULT_BASE_URL} with ./data/demo-credentials.json by default; for this server first run:`, ...exports];
}
