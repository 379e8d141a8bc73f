#!/usr/bin/env bash
# Throughput of authenticated requests against /healthz, in one run on loopback with wrk:
# GET /api/me with a Bearer JWT, with an API key and with the session cookie, each beside
# GET /healthz (32 connections, bounded in time). Prints requests/s and the ratios.
# Usage: scripts/bench-auth.sh [seconds per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/discovery-target}"

command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
cargo build --release -p api-actix --bin discovery-api -q

work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
operator_key="bench-operator-key-$(head -c8 /dev/urandom | od -An -tx1 | tr -d ' \n')"
DATABASE_URL="sqlite://$work/bench.db" BIND_ADDR="127.0.0.1:$port" API_KEY="$operator_key" RUST_LOG=warn \
  "$CARGO_TARGET_DIR/release/discovery-api" --dev >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done

curl -fs -c "$work/jar" -H 'Content-Type: application/json' -d '{"email":"bench@example.org"}' "$base/api/auth/dev-login" >/dev/null
jwt=$(awk '$6=="ds_access"{print $7}' "$work/jar")
key=$(curl -fs -H "Authorization: Bearer $jwt" -H 'Content-Type: application/json' -d '{"name":"bench"}' "$base/api/me/api-keys" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')

rate() { # label, then wrk arguments
  local label=$1; shift
  local rps
  rps=$(wrk -t2 -c32 -d"${DURATION}s" "$@" | awk '/Requests\/sec/{print $2}')
  printf '%-28s %10.0f req/s\n' "$label" "$rps" >&2
  echo "$rps"
}
health=$(rate "GET /healthz" "$base/healthz")
bearer=$(rate "GET /api/me (Bearer)" -H "Authorization: Bearer $jwt" "$base/api/me")
apikey=$(rate "GET /api/me (API key)" -H "X-API-Key: $key" "$base/api/me")
cookie=$(rate "GET /api/me (cookie)" -H "Cookie: ds_access=$jwt" "$base/api/me")
health2=$(rate "GET /healthz (again)" "$base/healthz")
python3 - "$health" "$health2" "$bearer" "$apikey" "$cookie" <<'PY'
import sys
h1, h2, bearer, apikey, cookie = map(float, sys.argv[1:])
h = (h1 + h2) / 2
print(f"baseline /healthz: {h:.0f} req/s (runs {h1:.0f} and {h2:.0f})")
for name, v in [("Bearer", bearer), ("API key", apikey), ("cookie", cookie)]:
    print(f"/api/me with {name}: {v:.0f} req/s = {v / h:.2f}x of /healthz (target >= 0.70)")
PY
