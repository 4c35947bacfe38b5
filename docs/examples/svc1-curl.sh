#!/usr/bin/env bash
# SVC1-signed request with nothing but bash, openssl and curl.
#
#   API_KEY=pk_test_… API_SECRET=sk_test_… ./svc1-curl.sh GET /v1/payments/channel
#   API_KEY=… API_SECRET=… ./svc1-curl.sh POST /v1/payments/calculate '{"amount":150000,"currency":"IDR","method":"QRIS","merchantId":"…"}'
#
# Env: BASE_URL (default http://127.0.0.1:4000), TIMESTAMP (default now, Unix seconds),
#      SIGN_ONLY=1 prints the string to sign and the signature instead of calling the server.
set -euo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 METHOD TARGET [BODY]" >&2; exit 2; fi
: "${API_KEY:?set API_KEY}" "${API_SECRET:?set API_SECRET}"
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

args=(-sS -X "$method" "${BASE_URL:-http://127.0.0.1:4000}$target"
  -H "X-SERVICE-API-Key: $API_KEY" -H "X-SERVICE-Timestamp: $timestamp" -H "X-SERVICE-Signature: $signature")
if [ -n "$body" ]; then args+=(-H 'Content-Type: application/json' --data-raw "$body"); fi
curl "${args[@]}"
echo
