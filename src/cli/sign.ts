/**
 * `npm run sign -- METHOD TARGET [BODY]`: print the SVC1 string to sign,
 * the three headers and a ready curl command.
 *
 * Credentials: --key/--secret, or API_KEY/API_SECRET, or the first approved
 * merchant in <DATA_DIR>/demo-credentials.json. Base URL: --base-url or
 * BASE_URL (default http://127.0.0.1:4000). --timestamp fixes the time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sha256Hex, sign, stringToSign } from '../auth/svc1.js';
import type { DemoMerchantCredentials } from '../db/seed.js';
import { shellQuote } from './first-call.js';

const USAGE = 'usage: npm run sign -- METHOD TARGET [BODY] [--key K --secret S] [--timestamp T] [--base-url URL]';

function die(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    key: { type: 'string' },
    secret: { type: 'string' },
    timestamp: { type: 'string' },
    'base-url': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const [method, target, body = ''] = positionals;
if (!method || !target) die('METHOD and TARGET are required.');
if (!target.startsWith('/')) die('TARGET is the path as sent, starting with "/" (plus "?query" if any).');

let apiKey = values.key ?? process.env.API_KEY;
let apiSecret = values.secret ?? process.env.API_SECRET;
if (!apiKey || !apiSecret) {
  const file = path.resolve(process.env.DATA_DIR ?? './data', 'demo-credentials.json');
  if (!fs.existsSync(file)) die(`No credentials: pass --key/--secret, set API_KEY/API_SECRET, or start the server once to create ${file}.`);
  const { merchants } = JSON.parse(fs.readFileSync(file, 'utf8')) as { merchants: DemoMerchantCredentials[] };
  const demo = merchants.find((m) => m.kyc === 'approved') ?? merchants[0];
  if (!demo) die(`${file} lists no merchant.`);
  apiKey = demo.apiKey;
  apiSecret = demo.apiSecret;
}
const timestamp = values.timestamp ?? String(Math.floor(Date.now() / 1000));
const baseUrl = (values['base-url'] ?? process.env.BASE_URL ?? 'http://127.0.0.1:4000').replace(/\/$/, '');
const parts = { method: method.toUpperCase(), target, timestamp, apiKey, body };
const toSign = stringToSign(parts);
const signature = sign(apiSecret, parts);
const headers = { 'X-SERVICE-API-Key': apiKey, 'X-SERVICE-Timestamp': timestamp, 'X-SERVICE-Signature': signature };

const curl = [
  `curl -s -X ${parts.method} ${shellQuote(baseUrl + target)}`,
  ...Object.entries(headers).map(([k, v]) => `  -H ${shellQuote(`${k}: ${v}`)}`),
  ...(body ? [`  -H 'Content-Type: application/json'`, `  --data-raw ${shellQuote(body)}`] : []),
].join(' \\\n');

process.stdout.write(
  [
    `String to sign (lines joined by \\n; body SHA-256 ${sha256Hex(body)}):`,
    ...toSign.split('\n').map((l) => `  ${l}`),
    '',
    'Headers:',
    ...Object.entries(headers).map(([k, v]) => `  ${k}: ${v}`),
    '',
    'curl:',
    curl,
    '',
  ].join('\n'),
);
