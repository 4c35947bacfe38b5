#!/usr/bin/env python3
"""SVC1-signed requests from Python, standard library only.

    python3 docs/examples/svc1_sign.py GET /v1/payments/channel
    API_KEY=pk_test_… API_SECRET=sk_test_… python3 svc1_sign.py POST /v1/payments/calculate '{"amount":150000,...}'

Credentials: API_KEY and API_SECRET, else the approved demo merchant in the file
GATEWAY_CREDENTIALS names (default $DATA_DIR/demo-credentials.json, DATA_DIR default ./data,
written by the first `npm start`), like `npm run sign`. Which credentials and base URL it
uses goes to stderr.
Env: BASE_URL (default http://127.0.0.1:4000; the server's start-up banner prints the one to export),
TIMESTAMP (default now), SIGN_ONLY=1 prints the signature instead of calling the server.
"""
import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.request


def svc1_headers(method: str, target: str, body: bytes, api_key: str, api_secret: str, timestamp: str | None = None) -> dict:
    """The three SVC1 headers for one request. `body` must be the exact bytes you send."""
    timestamp = timestamp or str(int(time.time()))  # seconds, not milliseconds
    string_to_sign = "\n".join([method.upper(), target, timestamp, api_key, hashlib.sha256(body).hexdigest()])
    signature = hmac.new(api_secret.encode("utf-8"), string_to_sign.encode("utf-8"), hashlib.sha256).hexdigest()
    return {"X-SERVICE-API-Key": api_key, "X-SERVICE-Timestamp": timestamp, "X-SERVICE-Signature": signature}


def credentials() -> tuple[str, str, str]:
    """(key, secret, where from): API_KEY/API_SECRET, else the approved demo merchant of $GATEWAY_CREDENTIALS
    (default $DATA_DIR/demo-credentials.json); exits with a message if neither."""
    key, secret = os.environ.get("API_KEY", ""), os.environ.get("API_SECRET", "")
    if key and secret:
        return key, secret, "API_KEY/API_SECRET"
    if key or secret:
        sys.exit("Set both API_KEY and API_SECRET (or neither, to use the demo merchant of $DATA_DIR/demo-credentials.json).")
    path = os.environ.get("GATEWAY_CREDENTIALS") or os.path.join(os.environ.get("DATA_DIR") or "./data", "demo-credentials.json")
    try:
        with open(path, encoding="utf-8") as f:
            merchants = json.load(f)["merchants"]
    except FileNotFoundError:
        sys.exit(f"No credentials: export API_KEY and API_SECRET, or run this from the project directory after the first"
                 f" `npm start` (it writes {path}; set GATEWAY_CREDENTIALS or DATA_DIR if the server uses another).")
    merchant = next((m for m in merchants if m.get("kyc") == "approved"), merchants[0] if merchants else None)
    if merchant is None:
        sys.exit(f"{path} lists no merchant.")
    return merchant["apiKey"], merchant["apiSecret"], os.path.abspath(path)


def call(method: str, target: str, body: bytes, api_key: str, api_secret: str, base_url: str):
    headers = svc1_headers(method, target, body, api_key, api_secret)
    if body:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base_url + target, data=body or None, method=method.upper(), headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:  # problem details: code, detail, requestId, ...
        return err.code, json.loads(err.read())
    except urllib.error.URLError as err:  # nothing answered: say where we looked and how to point elsewhere
        sys.exit(f"Cannot reach the gateway at {base_url} ({err.reason}). Start it with `npm start`, or set BASE_URL"
                 " (the server's start-up banner prints it; default http://127.0.0.1:4000).")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: svc1_sign.py METHOD TARGET [BODY]")
    method, target = sys.argv[1], sys.argv[2]
    body = sys.argv[3].encode("utf-8") if len(sys.argv) > 3 else b""
    key, secret, source = credentials()
    base_url = os.environ.get("BASE_URL", "http://127.0.0.1:4000")
    # A key of another server answers INVALID_API_KEY: say which keys and which server.
    print(f"svc1_sign: credentials {source}, key {key}; base URL {base_url}", file=sys.stderr)
    if os.environ.get("SIGN_ONLY") == "1":
        h = svc1_headers(method, target, body, key, secret, os.environ.get("TIMESTAMP"))
        print(h["X-SERVICE-Signature"])
    else:
        status, payload = call(method, target, body, key, secret, base_url)
        print(status, json.dumps(payload, indent=2))
