#!/usr/bin/env bash
# CI staleness check of the committed migrations, for both dialects: drizzle-kit's own consistency check,
# then a dry generate that must find nothing to do (a probe migration it would write fails the check).
set -euo pipefail
cd "$(dirname "$0")/.."
for config in drizzle.config.ts drizzle.pg.config.ts; do
  npx drizzle-kit check --config "$config"
  out=$(npx drizzle-kit generate --config "$config" --name ci-staleness-probe 2>&1)
  echo "$out"
  if ! grep -q "No schema changes" <<<"$out"; then
    echo "error: migrations are stale for $config: run npm run db:generate and commit the result" >&2
    exit 1
  fi
done
