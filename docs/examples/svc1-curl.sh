#!/usr/bin/env bash
# SVC1-signed request with nothing but bash, openssl and curl.
#
#   docs/examples/svc1-curl.sh GET /v1/payments/channel
#   API_KEY=pk_test_… API_SECRET=sk_test_… ./svc1-curl.sh POST /v1/payments/calculate '{"amount":150000,"currency":"IDR","method":"QRIS","merchantId":"…"}'
#
# Credentials: API_KEY and API_SECRET, else the approved demo merchant in the file GATEWAY_CREDENTIALS names
#   (default $DATA_DIR/demo-credentials.json, DATA_DIR default ./data, written by the first `npm start`; read
#   with node), like `npm run sign`. Which credentials and base URL it uses goes to stderr.
# Env: BASE_URL (default http://127.0.0.1:4000; the server's start-up banner prints the one to export),
#      TIMESTAMP (default now, Unix seconds),
#      SIGN_ONLY=1 prints the string to sign and the signature instead of calling the server.
# Exit status: 0 for a 2xx/3xx answer, 22 for a 4xx/5xx (its body is still printed), 1 when the server
#   cannot be reached, 2 for a usage or credentials problem.
set -euo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 METHOD TARGET [BODY]" >&2; exit 2; fi
if [ -z "${API_KEY:-}" ] && [ -z "${API_SECRET:-}" ]; then
  credentials_file="${GATEWAY_CREDENTIALS:-${DATA_DIR:-./data}/demo-credentials.json}"
  credentials_source=$credentials_file
  if [ ! -f "$credentials_file" ]; then
    echo "No credentials: export API_KEY and API_SECRET, or run this from the project directory after the first \`npm start\` (it writes $credentials_file; set GATEWAY_CREDENTIALS or DATA_DIR if the server uses another)." >&2
    exit 2
  fi
  # Two lines: key, secret (no JSON tool needed beyond the node the project runs on).
  { read -r API_KEY; read -r API_SECRET; } < <(node -e '
    const { merchants } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const m = merchants.find((x) => x.kyc === "approved") ?? merchants[0];
    if (m) console.log(`${m.apiKey}\n${m.apiSecret}`);' "$credentials_file")
fi
if [ -z "${API_KEY:-}" ] || [ -z "${API_SECRET:-}" ]; then
  echo "Set both API_KEY and API_SECRET (or neither, to use the demo merchant of \$DATA_DIR/demo-credentials.json)." >&2
  exit 2
fi
method=$(printf '%s' "$1" | tr '[:lower:]' '[:upper:]')
target=$2                      # path + "?query" exactly as sent
body=${3-}                     # the exact bytes sent (no trailing newline added)
timestamp=${TIMESTAMP:-$(date +%s)}

body_sha256=$(printf '%s' "$body" | openssl dgst -sha256 -r | cut -d' ' -f1)
# Five lines joined by \n, no trailing newline.
string_to_sign=$(printf '%s\n%s\n%s\n%s\n%s' "$method" "$target" "$timestamp" "$API_KEY" "$body_sha256")
signature=$(printf '%s' "$string_to_sign" | openssl dgst -sha256 -hmac "$API_SECRET" -r | cut -d' ' -f1)

if [ "${SIGN_ONLY:-}" = 1 ]; then
  printf '%s\n---\nstringToSignSha256: %s\nsignature: %s\n' "$string_to_sign" \
    "$(printf '%s' "$string_to_sign" | openssl dgst -sha256 -r | cut -d' ' -f1)" "$signature"
  exit 0
fi

base_url=${BASE_URL:-http://127.0.0.1:4000}
# A key of another server answers INVALID_API_KEY: say which keys and which server.
echo "svc1-curl: credentials ${credentials_source:-API_KEY/API_SECRET}, key $API_KEY; base URL $base_url" >&2
args=(-sS -X "$method" "$base_url$target"
  -H "X-SERVICE-API-Key: $API_KEY" -H "X-SERVICE-Timestamp: $timestamp" -H "X-SERVICE-Signature: $signature")
if [ -n "$body" ]; then args+=(-H 'Content-Type: application/json' --data-raw "$body"); fi
# --fail-with-body: an error answer (4xx/5xx) is still printed (the problem details say what is wrong) and the
# script exits non-zero, so `svc1-curl.sh … && next-step` stops at a refused request.
status=0
curl --fail-with-body "${args[@]}" || status=$?
echo
case $status in
  0) ;;
  22) echo "svc1-curl: the gateway refused the request (HTTP status 400 or above; its answer is above)." >&2; exit 22 ;;
  6|7) echo "Cannot reach the gateway at $base_url. Start it with \`npm start\`, or set BASE_URL (the server's start-up banner prints it; default http://127.0.0.1:4000)." >&2; exit 1 ;;
  *) exit "$status" ;;
esac
