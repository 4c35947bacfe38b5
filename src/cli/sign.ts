/**
 * `npm run sign -- METHOD TARGET [BODY]`: print the SVC1 string to sign,
 * the three headers and a ready curl command.
 *
 * Credentials: --key/--secret, or API_KEY/API_SECRET, or the first approved
 * merchant in the file GATEWAY_CREDENTIALS names (default
 * <DATA_DIR>/demo-credentials.json; `npm run cluster:local` writes a cluster.env
 * setting it). Base URL: --base-url or BASE_URL (default http://127.0.0.1:4000).
 * Which credentials and base URL it used goes to stderr (stdout stays the
 * signature). --timestamp fixes the time.
 * The body is the third argument, or the bytes of --body-file (use "-" for
 * stdin), signed exactly as given (no re-serialisation).
 *
 * Besides the signature it prints the SHA-256 of the string to sign and of
 * the body, and the body's length: a SIGNATURE_MISMATCH answer to a test key
 * carries the server's (`stringToSignSha256`, `bodySha256`, `bodyBytes`, all
 * of what it RECEIVED) to compare with. The comparison only diagnoses when
 * the body given here is what the caller's code SIGNED: hashing the body as
 * sent reproduces the server's hashes whatever was signed, so the output says
 * which bytes to give.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { sha256Hex, sign, stringToSign } from '../modules/auth/svc1.js';
import type { DemoMerchantCredentials } from '../modules/admin/demo-seed.js';
import { DEFAULT_BASE_URL, toolCredentialsFile } from '../app/first-call.js';
import { shellQuote } from '../shared/shell-quote.js';

const USAGE = [
  'usage: npm run sign -- METHOD TARGET [BODY] [--body-file FILE|-] [--key K --secret S] [--timestamp T] [--base-url URL]',
  '  credentials: --key/--secret, else API_KEY/API_SECRET, else the approved merchant in $GATEWAY_CREDENTIALS (default $DATA_DIR/demo-credentials.json)',
  `  example: npm run sign -- POST /v1/payments/calculate '{"amount":150000,"currency":"IDR","method":"QRIS","merchantId":"…"}'`,
].join('\n');

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
    'body-file': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const [method, target, bodyArg, ...extra] = positionals;
if (!method || !target) die('METHOD and TARGET are required.');
if (extra.length > 0) die(`Unexpected argument(s): ${extra.join(' ')} (quote the BODY as one argument).`);
if (!/^[A-Za-z]+$/.test(method)) die(`METHOD must be an HTTP method such as GET or POST, not "${method}".`);
if (bodyArg !== undefined && values['body-file'] !== undefined) die('Give the BODY either as an argument or with --body-file, not both.');
let body = bodyArg ?? '';
if (values['body-file'] !== undefined) {
  const file = values['body-file'];
  try {
    body = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    die(`Cannot read --body-file ${file}: ${(err as Error).message}`);
  }
}
if (!target.startsWith('/')) die('TARGET is the path as sent, starting with "/" (plus "?query" if any).');

let apiKey = values.key ?? process.env.API_KEY;
let apiSecret = values.secret ?? process.env.API_SECRET;
if ((apiKey && !apiSecret) || (!apiKey && apiSecret)) die('Give both the key and the secret (--key/--secret or API_KEY/API_SECRET).');
let credentialsSource = values.key ? '--key/--secret' : 'API_KEY/API_SECRET';
if (!apiKey || !apiSecret) {
  const file = toolCredentialsFile(process.env);
  if (!fs.existsSync(file)) die(`No credentials: pass --key/--secret, set API_KEY/API_SECRET, or start the server once to create ${file}${process.env.GATEWAY_CREDENTIALS ? ' (GATEWAY_CREDENTIALS)' : ''}.`);
  const { merchants } = JSON.parse(fs.readFileSync(file, 'utf8')) as { merchants: DemoMerchantCredentials[] };
  const demo = merchants.find((m) => m.kyc === 'approved') ?? merchants[0];
  if (!demo) die(`${file} lists no merchant.`);
  apiKey = demo.apiKey;
  apiSecret = demo.apiSecret;
  credentialsSource = `${file}${process.env.GATEWAY_CREDENTIALS ? ' (GATEWAY_CREDENTIALS)' : ''}, merchant ${demo.name}`;
}
const timestamp = values.timestamp ?? String(Math.floor(Date.now() / 1000));
if (!/^[0-9]{1,12}$/.test(timestamp)) die('--timestamp is Unix time in seconds (decimal digits), not milliseconds.');
const baseUrl = (values['base-url'] ?? process.env.BASE_URL ?? DEFAULT_BASE_URL).replace(/\/$/, '');
const baseUrlSource = values['base-url'] ? '--base-url' : process.env.BASE_URL ? 'BASE_URL' : 'default';
// A signature for the wrong server answers INVALID_API_KEY: say which keys and which server, every time.
process.stderr.write(`sign: credentials ${credentialsSource}; key ${apiKey}\nsign: base URL ${baseUrl} (${baseUrlSource})\n`);
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
    'String to sign (5 lines joined by \\n, no trailing newline):',
    ...toSign.split('\n').map((l) => `  ${l}`),
    '',
    `Body SHA-256 (bodySha256):                ${sha256Hex(body)}`,
    `Body length (bodyBytes):                  ${Buffer.byteLength(body, 'utf8')}`,
    `String-to-sign SHA-256 (stringToSignSha256): ${sha256Hex(toSign)}`,
    `Signature = hex(HMAC-SHA256(secret, string to sign)): ${signature}`,
    '',
    'Debugging a 401 SIGNATURE_MISMATCH (test keys)? Compare what your code SIGNED with what the server RECEIVED',
    '(the problem\'s bodySha256, bodyBytes and stringToSignSha256). The BODY / --body-file given here must be the exact',
    'bytes your code passed to the HMAC, not a copy of the body you meant to send or captured from the wire: those',
    'reproduce the server\'s hashes whatever your code signed.',
    ...(values.timestamp === undefined
      ? ['  first run this again with --timestamp <the X-SERVICE-Timestamp you sent>: with another timestamp stringToSignSha256 always differs.']
      : [
          '  bodySha256 or bodyBytes differs: the bytes sent are not the bytes signed: the body was re-serialised after signing',
          '    (pretty-printed or re-encoded JSON, reordered keys, a trailing newline, another encoding); send the signed string itself.',
          '  body equal, only stringToSignSha256 differs: the method, target (path and ?query as sent), timestamp or key line.',
          '  both equal: the secret is wrong (not this key\'s secret, or with extra characters).',
        ]),
    '',
    'Headers:',
    ...Object.entries(headers).map(([k, v]) => `  ${k}: ${v}`),
    '',
    'curl:',
    curl,
    '',
  ].join('\n'),
);
