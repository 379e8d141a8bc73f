#!/usr/bin/env bash
# Contract fuzzing: schemathesis (`st run --checks all`) against the service's own /openapi.json,
# on a fresh SQLite database in dev mode, every check on every operation: the document states
# what the server refuses, and the server accepts what the document allows. Each pass signs in as
# one of the people seed.py makes, through the document's security schemes (schemathesis.toml
# says why not `-H`), and must end with no failure and without the warnings that mean it tested
# less than it seems (schemathesis.toml, `warnings.fail-on`):
#   1. an admin with an unlocked profile and data (Bearer): every operation but those below and
#      affirming (it would lock the profile the edits and reflection need);
#   2. a person with an affirmed profile and check-ins (personal API key): the same, but the
#      admin-only ones and revoking an API key (the key would revoke itself);
#   3. a person whose conversation is under way (Bearer): the conversation's operations, so the
#      answers reach their logic (passes 1-2 have completed theirs);
#   4. one person each for the operations that end the credential they are called with
#      (sign-out, revoking a session, deleting one's account, rotating the refresh token): in
#      the passes above they would sign the run out halfway, and in one pass each other.
# The sign-in and coach rate limits are off: thousands of requests from one address would
# otherwise be answered 429, which counts as accepted and leaves the logic untested (the API
# test suite covers the limits themselves).
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
RATE_LIMIT_SIGN_IN_PER_MINUTE=0 \
RATE_LIMIT_REFLECT_PER_MINUTE=0 \
RATE_LIMIT_COMPLETE_PER_MINUTE=0 \
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
  "POST /api/auth/logout"
  "DELETE /api/me/sessions/{id}"
  "DELETE /api/me"
  "POST /api/auth/refresh"
)
not_ending=()
for name in "${ending[@]}"; do not_ending+=(--exclude-name "$name"); done

# One pass: a title, the security scheme and credential it signs in with (or "-" for none), then
# st's own options. Its configuration is schemathesis.toml with that credential appended, and
# then $pass_toml when the call sets it (`pass_toml=... fuzz ...`).
fuzz() {
  local title="$1" scheme="$2" credential="$3"; shift 3
  printf '\n--- contract pass: %s\n' "$title"
  local config="$work/pass-$((++passes)).toml"
  cp "$here/schemathesis.toml" "$config"
  case "$scheme" in
    -) ;;
    api_key) printf '\n[auth.openapi.api_key]\napi_key = "${CONTRACT_CREDENTIAL}"\n' >>"$config" ;;
    bearer) printf '\n[auth.openapi.bearer]\nbearer = "${CONTRACT_CREDENTIAL}"\n' >>"$config" ;;
  esac
  printf '\n%s\n' "${pass_toml:-}" >>"$config"
  # From the scratch directory: schemathesis keeps a cache in the working directory.
  (cd "$work" && CONTRACT_CREDENTIAL="$credential" "$venv/bin/st" --config-file "$config" \
    run "$base/openapi.json" \
    --checks all \
    --max-examples "${CONTRACT_EXAMPLES:-100}" \
    --no-color \
    "$@")
}

passes=0
status=0
# Affirming locks the profile for good: here it would lock the profile that the edits and
# reflection need halfway through; pass 2's person has affirmed already, so it runs there.
fuzz "admin (Bearer; unlocked profile, completed conversation)" bearer "$(field admin)" \
  "${not_ending[@]}" \
  --exclude-name "POST /discovery/profile/me/affirm" || status=1
# The check-in to answer is one of the person's own (none of the document's links leads to one;
# the admin of pass 1 has none: check-ins need an affirmed profile).
pass_toml="$(printf '[[operations]]\ninclude-name = "POST /coaching/checkins/{id}/response"\nparameters = { id = "%s" }' "$(field checkin)")" \
fuzz "person (API key; affirmed profile, check-ins)" api_key "$(field api_key)" \
  "${not_ending[@]}" \
  --exclude-name "DELETE /api/me/api-keys/{id}" \
  --exclude-name "GET /api/admin/activity" \
  --exclude-name "POST /coaching/run" || status=1
# Completing the conversation would end the drafting halfway; completion runs in passes 1-2 and
# in seed.py.
fuzz "drafter (Bearer; conversation under way)" bearer "$(field drafter)" \
  --include-path-regex '^/discovery/(conversation|prompts)' \
  --exclude-name "POST /discovery/conversation/me/complete" || status=1
fuzz "sign-out (its own person)" - "" -H "Authorization: Bearer $(field sign_out)" \
  --include-name "POST /api/auth/logout" || status=1
fuzz "revoking a session (its own person, two sessions)" bearer "$(field sessions)" \
  --include-name "GET /api/me/sessions" --include-name "DELETE /api/me/sessions/{id}" || status=1
fuzz "deleting one's account (its own person)" bearer "$(field deleted)" \
  --include-name "DELETE /api/me" || status=1
fuzz "rotating the refresh token (its own person)" - "" \
  -H "Cookie: ds_refresh=$(field refresh)" -H "Origin: $base" \
  --include-name "POST /api/auth/refresh" || status=1

if grep -q ' ERROR ' "$work/server.log"; then
  echo "the service logged errors during contract fuzzing:"; grep ' ERROR ' "$work/server.log" | head -20
  status=1
fi
exit "$status"
