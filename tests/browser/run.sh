#!/usr/bin/env bash
# The browser suite: the pages of web/ driven in Debian's Chromium through playwright-core,
# against `discovery-api --dev` on a free port over a temporary SQLite database.
#
#   bash tests/browser/run.sh            # from anywhere; builds the service (debug) first
#
# Every *.test.mjs here runs, one file after another (each with its own people): the journey,
# accessibility (a11y), the account's data flows and the profile's conflicts in two tabs.
# Screenshots of every page (phone 390 px and desktop 1280 px) go to docs/screenshots/, or to
# SCREENSHOTS=<dir> (CI points it elsewhere so a run leaves the tree clean).
# Environment: CARGO_TARGET_DIR is honoured; DISCOVERY_API=<path> skips the build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq && apt-get install -y -qq chromium
fi
if ! command -v node >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq nodejs npm
fi
npm ci --prefix "$here" --no-audit --no-fund --loglevel=error

if [ -z "${DISCOVERY_API:-}" ]; then
  cargo build --locked -p api-actix --bin discovery-api
  DISCOVERY_API="${CARGO_TARGET_DIR:-$root/target}/debug/discovery-api"
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
base="http://127.0.0.1:$port"

DATABASE_URL="sqlite://$work/browser.db" \
BIND_ADDR="127.0.0.1:$port" \
PUBLIC_BASE_URL="$base" \
AUTH_DEV_LOGIN=true \
LLM_PROVIDER=offline \
WEB_DIR="$root/web" \
RUST_LOG="${RUST_LOG:-warn}" \
  "$DISCOVERY_API" --dev >"$work/server.log" 2>&1 &
server_pid=$!

for _ in $(seq 100); do
  if curl -fsS "$base/readyz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log"; exit 1; fi
  sleep 0.2
done

shots="${SCREENSHOTS:-$root/docs/screenshots}"
mkdir -p "$shots"
status=0
BASE_URL="$base" SCREENSHOTS="$shots" \
  node --test --test-concurrency=1 "$here"/*.test.mjs || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- service log (tail) ---"
  tail -n 50 "$work/server.log"
fi
exit "$status"
