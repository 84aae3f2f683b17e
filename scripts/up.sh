#!/usr/bin/env bash
# One command from a fresh clone to a running suite: installs what is missing, then `npm start`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1; then
  echo "hindsight needs Node.js 20 or newer: https://nodejs.org (or: apt-get install -y nodejs npm)" >&2
  exit 1
fi
node -e 'const [M,m]=process.versions.node.split(".").map(Number); process.exit(M>20||(M===20&&m>=19)?0:1)' || {
  echo "hindsight needs Node.js >= 20.19 (found $(node --version))" >&2
  exit 1
}

# Redis: the launcher uses REDIS_URL, else 127.0.0.1:6379, else starts redis-server itself.
if ! command -v redis-server >/dev/null 2>&1 && [ -z "${REDIS_URL:-}" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing redis-server (apt-get)…"
    apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
  else
    echo "note: redis-server is not installed; the launcher needs it unless REDIS_URL points at a Redis." >&2
    echo "      install it with: sudo apt-get install -y redis-server   (macOS: brew install redis)" >&2
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing npm dependencies…"
  npm ci --no-audit --no-fund
fi

exec npm start
