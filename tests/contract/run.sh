#!/usr/bin/env bash
# Contract fuzzing: schemathesis (`st run --checks all`) against the service's own /openapi.json,
# on a fresh SQLite database in dev mode, every check on every operation: the document states
# what the server refuses, and the server accepts what the document allows. Each pass signs in as
# one of the people seed.py makes (or as the operator), through the document's security schemes
# (schemathesis.toml says why not `-H`), and must end with no failure and without the warnings
# that mean it tested less than it seems (schemathesis.toml, `warnings.fail-on`). Least privilege
# (docs/api.md) decides who can reach what, so the passes are cut along it:
#   1. a person with an unlocked profile and data (Bearer): every operation but those below and
#      affirming (it would lock the profile the edits and reflection need);
#   2. the same person with the session cookie: the operations only a session may call that end
#      nothing (minting and revoking API keys, the export);
#   3. the operator (the `API_KEY` operator key, acting as admin `api-key-admin`): the admin-only
#      operations (dev login never makes anyone an admin);
#   4. a person with an affirmed profile and check-ins, with a personal API key of all three
#      scopes: exactly the operations its scopes open (any other answers 403 insufficient_scope);
#   5. the same person (Bearer): the rest of pass 1's operations, which a key may not call, so
#      the edits, reflection and preferences meet a locked profile;
#   6. a person whose conversation is under way (Bearer): the conversation's operations, so the
#      answers reach their logic (the others have completed theirs);
#   7-10. one person each for the operations that end the credential they are called with
#      (sign-out; revoking a session and deleting one's account, both with the session cookie;
#      rotating the refresh token): in the passes above they would sign the run out halfway, and
#      in one pass each other.
# Then every operation of the document must have been tested by some pass (the JUnit reports say
# which were), or the run fails. The sign-in and coach rate limits are off: thousands of
# requests from one address would otherwise be answered 429, which counts as accepted and leaves
# the logic untested (the API test suite covers the limits themselves); access tokens live a day,
# so that the last passes' are still good.
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
# The operator key: the only admin credential in dev mode; new for every run.
operator_key="$(python3 -c 'import secrets; print(secrets.token_hex(24))')"

DATABASE_URL="sqlite://$work/contract.db" \
BIND_ADDR="127.0.0.1:$port" \
PUBLIC_BASE_URL="$base" \
AUTH_DEV_LOGIN=true \
LLM_PROVIDER=offline \
API_KEY="$operator_key" \
JWT_ACCESS_TTL_SECONDS=86400 \
RATE_LIMIT_SIGN_IN_PER_MINUTE=0 \
RATE_LIMIT_REFLECT_PER_MINUTE=0 \
RATE_LIMIT_COMPLETE_PER_MINUTE=0 \
RATE_LIMIT_RULE_CHANGES_PER_MINUTE=0 \
RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE=0 \
RATE_LIMIT_CHECKINS_PER_MINUTE=0 \
RATE_LIMIT_PROFILE_WRITES_PER_MINUTE=0 \
RATE_LIMIT_ENTRIES_PER_MINUTE=0 \
DELIVERY_WORKER=false \
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

# Operations named by least privilege (docs/api.md; crates/api-actix/src/auth/policy.rs).
# Admin only: the operator's.
admin_only=(
  "GET /api/admin/activity"
  "POST /coaching/run"
)
# Who may call what is declared once, by each route's policy (`Route::new` in
# crates/api-actix/src/routes/); the generated scope matrix writes it down per operation
# (crates/api-actix/tests/api/scope_matrix.md, compared with the server's answers by the API
# tests), and these two lists are read from it.
matrix="$root/crates/api-actix/tests/api/scope_matrix.md"
# `METHOD path` of each matrix row whose cells after the first satisfy the awk condition $2.
matrix_rows() {
  awk -F' [|] ' -v want="$1" '
    /^[|] (GET|POST|PUT|PATCH|DELETE) / {
      route = substr($1, 3); all = 1; any = 0
      for (i = 2; i <= NF; i++) { cell = $i; sub(/ [|]$/, "", cell)
        if (cell == want) any = 1; else all = 0 }
      if ((mode == "all" && all) || (mode == "any" && any)) print route
    }' mode="$2" "$matrix"
}
# The session cookie only (403 session_required with a key of any scope, and a Bearer token).
mapfile -t session_only < <(matrix_rows session_required all)
# What a personal key may call (allowed for one of its scopes; any other operation: 403
# insufficient_scope).
mapfile -t key_scoped < <(matrix_rows allowed any)
if [ "${#session_only[@]}" -lt 5 ] || [ "${#key_scoped[@]}" -lt 10 ]; then
  echo "run.sh: could not read the least-privilege lists from $matrix" >&2
  exit 1
fi
# The operations that end the credential they are called with.
ending=(
  "POST /api/auth/logout"
  "DELETE /api/me/sessions/{id}"
  "DELETE /api/me"
  "POST /api/auth/refresh"
)
# `--include-name`/`--exclude-name` for each name of the lists given, once each (st refuses a
# name twice), NUL-separated: `mapfile -d '' options < <(names --exclude-name "${list[@]}")`.
names() {
  local flag="$1" name; shift
  declare -A seen=()
  for name in "$@"; do
    [ -n "${seen[$name]:-}" ] || printf '%s\0%s\0' "$flag" "$name"
    seen[$name]=1
  done
}
# Whether a time zone name exists, and whether a sweep's `to` comes after its `from`, are facts
# no schema states (docs/api.md: 422 `validation_failed`): fuzzed in a pass of their own.
semantic=(
  "PUT /api/me/settings"
  "POST /integration/task-mappings/sweep"
)
mapfile -d '' person_ops < <(
  names --exclude-name "${ending[@]}" "${session_only[@]}" "${admin_only[@]}" "${semantic[@]}")

# One pass: a title, the security scheme and credential it signs in with (or "-" for none), then
# st's own options. Its configuration is schemathesis.toml with that credential appended, and
# then $pass_toml when the call sets it (`pass_toml=... fuzz ...`). Its JUnit report (which
# operations it tested) goes to pass-<n>.xml, and its options to pass-<n>.args, for the coverage
# check.
fuzz() {
  local title="$1" scheme="$2" credential="$3"; shift 3
  printf '\n--- contract pass: %s\n' "$title"
  local pass="$work/pass-$((++passes))"
  cp "$here/schemathesis.toml" "$pass.toml"
  case "$scheme" in
    -) ;;
    api_key|cookie) printf '\n[auth.openapi.%s]\napi_key = "${CONTRACT_CREDENTIAL}"\n' "$scheme" >>"$pass.toml" ;;
    bearer) printf '\n[auth.openapi.bearer]\nbearer = "${CONTRACT_CREDENTIAL}"\n' >>"$pass.toml" ;;
  esac
  printf '\n%s\n' "${pass_toml:-}" >>"$pass.toml"
  printf '%s\0' "$@" >"$pass.args"
  # From the scratch directory: schemathesis keeps a cache in the working directory.
  (cd "$work" && CONTRACT_CREDENTIAL="$credential" "$venv/bin/st" --config-file "$pass.toml" \
    run "$base/openapi.json" \
    --checks all \
    --max-examples "${CONTRACT_EXAMPLES:-100}" \
    --no-color \
    --report junit --report-junit-path "$pass.xml" \
    "$@")
}

passes=0
status=0
# Affirming locks the profile for good: here it would lock the profile that the edits and
# reflection need halfway through; pass 5's person has affirmed already, so it runs there.
# Restoring is fuzzed on revision 1, which every seeded profile has (a random number names none).
restore_first="$(printf '[[operations]]\ninclude-name = "%s"\nparameters = { number = 1 }' \
  "POST /discovery/profile/me/revisions/{number}/restore")"
pass_toml="$restore_first" \
fuzz "person (Bearer; unlocked profile, completed conversation)" bearer "$(field person)" \
  "${person_ops[@]}" \
  --exclude-name "POST /discovery/profile/me/affirm" || status=1
# The time zone and the sweep, with every check but the one that a schema-valid request be
# accepted (a zone the tz database does not know, or `to` not after `from`, is a 422 by contract).
mapfile -d '' semantic_ops < <(names --include-name "${semantic[@]}")
fuzz "person (Bearer): time zones and sweeps" bearer "$(field person)" \
  --exclude-checks positive_data_acceptance "${semantic_ops[@]}" || status=1
# Cookie-authenticated unsafe requests need the service's Origin (CSRF defence). Revoking keys
# here revokes only this person's own (pass 4's key is another person's).
fuzz "person (session cookie): API keys, export" cookie "$(field person)" -H "Origin: $base" \
  --include-name "POST /api/me/api-keys" \
  --include-name "GET /api/me/api-keys" \
  --include-name "DELETE /api/me/api-keys/{id}" \
  --include-name "GET /api/me/export" || status=1
# Webhooks. Whether a URL is accepted depends on where its host resolves now (public addresses
# only, docs/api.md), which no schema can state: registering is fuzzed with every check but the one
# that a schema-valid request be accepted; the other webhook operations with all of them.
fuzz "person (session cookie): registering webhooks" cookie "$(field person)" -H "Origin: $base" \
  --exclude-checks positive_data_acceptance \
  --include-name "POST /api/me/webhooks" || status=1
# The test ping and the delivery log are fuzzed on the person's seeded webhook (deleting takes
# any id: the one it finds is gone for the rest of the pass).
pass_toml="$(printf '[[operations]]\ninclude-name = "%s"\nparameters = { id = "%s" }\n' \
  "POST /api/me/webhooks/{id}/test" "$(field webhook)" \
  "GET /api/me/webhooks/{id}/deliveries" "$(field webhook)")" \
fuzz "person (session cookie): webhooks" cookie "$(field person)" -H "Origin: $base" \
  --include-name "GET /api/me/webhooks" \
  --include-name "DELETE /api/me/webhooks/{id}" \
  --include-name "POST /api/me/webhooks/{id}/test" \
  --include-name "GET /api/me/webhooks/{id}/deliveries" || status=1
mapfile -d '' admin_ops < <(names --include-name "${admin_only[@]}")
fuzz "operator (operator key, admin api-key-admin): admin-only operations" api_key "$operator_key" \
  "${admin_ops[@]}" || status=1
# The check-in to answer is one of the person's own (none of the document's links leads to one;
# the person of pass 1 has none: check-ins need an affirmed profile).
# The semantic operations a key may call are fuzzed in their own pass above, as everywhere.
mapfile -d '' key_ops < <(names --include-name "${key_scoped[@]}"; names --exclude-name "${semantic[@]}")
pass_toml="$(printf '[[operations]]\ninclude-name = "POST /coaching/checkins/{id}/response"\nparameters = { id = "%s" }' "$(field checkin)")" \
fuzz "affirmed person (personal API key, all three scopes; affirmed profile, check-ins)" \
  api_key "$(field api_key)" "${key_ops[@]}" || status=1
# Pass 1's operations less those a key may call, in one list (st refuses a name twice).
mapfile -d '' not_key_ops < <(names --exclude-name \
  "${ending[@]}" "${session_only[@]}" "${admin_only[@]}" "${semantic[@]}" "${key_scoped[@]}")
# Reopening would unlock the profile whose locked answers this pass is for; it runs in pass 1,
# where it answers the unlocked profile unchanged.
pass_toml="$restore_first" \
fuzz "affirmed person (Bearer): what a key may not call" bearer "$(field affirmed)" \
  "${not_key_ops[@]}" \
  --exclude-name "POST /discovery/profile/me/reopen" || status=1
# Completing the conversation would end the drafting halfway; completion runs in passes 1 and 5
# and in seed.py.
fuzz "drafter (Bearer; conversation under way)" bearer "$(field drafter)" \
  --include-path-regex '^/discovery/(conversation|prompts)' \
  --exclude-name "POST /discovery/conversation/me/complete" || status=1
# The e-mails' one-click unsubscribe takes no credential, only its signed token (a fuzzed one
# is never valid: 404).
fuzz "one-click unsubscribe (no sign-in)" - "" \
  --include-name "POST /api/notifications/unsubscribe" || status=1
fuzz "sign-out (its own person)" - "" -H "Authorization: Bearer $(field sign_out)" \
  --include-name "POST /api/auth/logout" || status=1
fuzz "revoking a session (its own person, two sessions; session cookie)" cookie "$(field sessions)" \
  -H "Origin: $base" \
  --include-name "GET /api/me/sessions" --include-name "DELETE /api/me/sessions/{id}" || status=1
fuzz "deleting one's account (its own person; session cookie)" cookie "$(field deleted)" \
  -H "Origin: $base" \
  --include-name "DELETE /api/me" || status=1
fuzz "rotating the refresh token (its own person)" - "" \
  -H "Cookie: ds_refresh=$(field refresh)" -H "Origin: $base" \
  --include-name "POST /api/auth/refresh" || status=1

# Coverage: every operation of the document was tested by some pass (a pass's JUnit report names
# each operation it tested), and every operation the passes name is in the document (a misspelt
# `--exclude-name` would exclude nothing).
printf '\n--- contract coverage\n'
curl -fsS "$base/openapi.json" >"$work/openapi.json"
python3 - "$work" "$passes" <<'PY' || status=1
import json, sys, xml.etree.ElementTree as ET
work, passes = sys.argv[1], int(sys.argv[2])
document = json.load(open(f"{work}/openapi.json"))
methods = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
operations = {f"{m.upper()} {p}" for p, item in document["paths"].items() for m in item if m in methods}
tested, named, ok = {}, set(), True
for n in range(1, passes + 1):
    args = open(f"{work}/pass-{n}.args", "rb").read().decode().split("\0")
    named |= {value for flag, value in zip(args, args[1:]) if flag in ("--include-name", "--exclude-name")}
    try:
        report = ET.parse(f"{work}/pass-{n}.xml")
    except (OSError, ET.ParseError) as e:
        print(f"pass {n}: no JUnit report ({e})"); ok = False; continue
    for case in report.iter("testcase"):
        if case.get("name") in operations and case.find("skipped") is None:
            tested.setdefault(case.get("name"), []).append(n)
for name in sorted(named - operations):
    print(f"named by a pass but not in the document: {name}"); ok = False
for name in sorted(operations - tested.keys()):
    print(f"documented but tested by no pass: {name}"); ok = False
print(f"{len(tested)} of {len(operations)} documented operations tested in {passes} passes")
sys.exit(0 if ok else 1)
PY

if grep -q ' ERROR ' "$work/server.log"; then
  echo "the service logged errors during contract fuzzing:"; grep ' ERROR ' "$work/server.log" | head -20
  status=1
fi
exit "$status"
