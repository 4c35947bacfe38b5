#!/usr/bin/env python3
"""SVC1-signed requests from Python, standard library only.

    API_KEY=pk_test_… API_SECRET=sk_test_… python3 svc1_sign.py GET /v1/payments/channel
    API_KEY=… API_SECRET=… python3 svc1_sign.py POST /v1/payments/calculate '{"amount":150000,...}'

Env: BASE_URL (default http://127.0.0.1:4000), TIMESTAMP (default now),
SIGN_ONLY=1 prints the string to sign and the signature instead of calling the server.
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


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: svc1_sign.py METHOD TARGET [BODY]")
    method, target = sys.argv[1], sys.argv[2]
    body = sys.argv[3].encode("utf-8") if len(sys.argv) > 3 else b""
    key, secret = os.environ["API_KEY"], os.environ["API_SECRET"]
    if os.environ.get("SIGN_ONLY") == "1":
        h = svc1_headers(method, target, body, key, secret, os.environ.get("TIMESTAMP"))
        print(h["X-SERVICE-Signature"])
    else:
        status, payload = call(method, target, body, key, secret, os.environ.get("BASE_URL", "http://127.0.0.1:4000"))
        print(status, json.dumps(payload, indent=2))
