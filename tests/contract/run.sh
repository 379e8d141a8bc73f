#!/usr/bin/env bash
# Contract fuzzing: schemathesis (`st run --checks all`) against the service's own /openapi.json,
# on a fresh SQLite database in dev mode, every check on every operation: the document states
# what the server refuses, and the server accepts what the document allows. Three passes, each
# must end with zero failures:
#   1. signed in with a Bearer token as an admin with an unlocked profile and data;
#   2. with a personal API key of a person with an affirmed profile and check-ins;
#   3. the operations that end the credential they are called with (sign-out, revoking one's
#      own session, deleting one's account), as a throwaway person: in passes 1-2 they would
#      sign the run out halfway.
#
#   bash tests/contract/run.sh            # builds the service (debug) first
# Environment: DISCOVERY_API=<path> skips the build; CONTRACT_EXAMPLES (default 100) examples
# per operation and phase; CARGO_TARGET_DIR is honoured.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"

# schemathesis and everything it needs, pinned (requirements.txt), in a virtual environment kept
# beside the build; reinstalled when the pins change.
venv="$target/contract-venv"
if ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$venv/requirements.txt"
fi

if [ -z "${DISCOVERY_API:-}" ]; then
  cargo build --locked -p api-actix --bin discovery-api
  DISCOVERY_API="$target/debug/discovery-api"
fi

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
base="http://127.0.0.1:$port"

DATABASE_URL="sqlite://$work/contract.db" \
BIND_ADDR="127.0.0.1:$port" \
PUBLIC_BASE_URL="$base" \
AUTH_DEV_LOGIN=true \
LLM_PROVIDER=offline \
ADMIN_EMAILS=contract-admin@example.org \
WEB_DIR="$root/web" \
RUST_LOG="${RUST_LOG:-warn}" \
  "$DISCOVERY_API" --dev >"$work/server.log" 2>&1 &
server_pid=$!

for _ in $(seq 100); do
  if curl -fsS "$base/readyz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log"; exit 1; fi
  sleep 0.2
done

credentials="$(python3 "$here/seed.py" "$base")"
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$credentials" "$1"; }

# The operations that end the credential they are called with.
ending=(
  --include-name "POST /api/auth/logout"
  --include-name "DELETE /api/me/sessions/{id}"
  --include-name "DELETE /api/me"
)
ending_excluded=(
  --exclude-name "POST /api/auth/logout"
  --exclude-name "DELETE /api/me/sessions/{id}"
  --exclude-name "DELETE /api/me"
)

fuzz() {
  local name="$1"; shift
  printf '\n--- contract pass: %s\n' "$name"
  # From the scratch directory: schemathesis keeps a cache in the working directory.
  (cd "$work" && "$venv/bin/st" run "$base/openapi.json" \
    --checks all \
    --max-examples "${CONTRACT_EXAMPLES:-100}" \
    --no-color \
    "$@")
}

status=0
fuzz "bearer (admin, unlocked profile)" -H "Authorization: $(field bearer)" \
  "${ending_excluded[@]}" || status=1
# A key revoking itself would end this pass too; the throwaway pass below revokes keys' sessions
# and DELETE /api/me/api-keys/{id} runs in pass 1 (with a Bearer token it cannot revoke itself).
fuzz "personal API key (affirmed profile, check-ins)" -H "X-API-Key: $(field api_key)" \
  "${ending_excluded[@]}" --exclude-name "DELETE /api/me/api-keys/{id}" || status=1
fuzz "operations that end their own credential (throwaway person)" \
  -H "Authorization: $(field throwaway)" "${ending[@]}" || status=1

if grep -q ' ERROR ' "$work/server.log"; then
  echo "the service logged errors during contract fuzzing:"; grep ' ERROR ' "$work/server.log" | head -20
  status=1
fi
exit "$status"
