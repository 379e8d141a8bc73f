#!/usr/bin/env bash
# The browser suite: the pages of web/ driven in Debian's Chromium through playwright-core,
# against `discovery-api --dev` on a free port over a temporary SQLite database.
#
#   bash tests/browser/run.sh            # from anywhere; builds the service (debug) first
#   bash tests/browser/run.sh feedback   # only the named files (feedback.test.mjs here)
#
# Every *.test.mjs here runs, one file after another (each with its own people): the journey,
# accessibility (a11y), the account's data flows, the profile's conflicts in two tabs,
# notifications (the e-mail setting, webhooks, a check-in's link), and classifying time on the
# dashboard (the Unclassified panel and the rules list), feedback beside each control (progress,
# results, refusals, counters, a failing or slow model), the way back (restore, reopen, revisit),
# the weekly trend and the time zone (weekly), phone and polish (polish), and axe-core on every page
# and state at 1280 and 390 px (axe; axe-core pinned in package.json).
# A second service runs beside the first (MAIL_BASE_URL) with e-mail configured (SMTP_URL; nothing
# listens there and nothing is sent) and DELIVERY_WORKER=false, for what needs e-mail turned on.
# A third (BROKEN_BASE_URL) has a language model that always fails: LLM_PROVIDER=openai pointed at
# a local port where nothing listens. It shares the second one's database, so a person can get a
# profile there (the offline engine) and then see the failing model refuse a reflection here.
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
server_pids=()
cleanup() {
  for pid in "${server_pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Four free ports, held together so that they differ; the last is left closed (the failing model).
read -r port mail_port broken_port closed_port < <(node -e 'const n=require("net");
const s=[0,1,2,3].map(()=>n.createServer());let up=0;
s.forEach((x)=>x.listen(0,"127.0.0.1",()=>{if(++up===4){console.log(s.map((y)=>y.address().port).join(" "));s.forEach((y)=>y.close())}}))')
base="http://127.0.0.1:$port"
mail_base="http://127.0.0.1:$mail_port"
broken_base="http://127.0.0.1:$broken_port"

# start <name> <port> [VAR=value...]: the service over its own SQLite database, log in $work/<name>.log.
start() {
  local name="$1" at="$2"
  shift 2
  env DATABASE_URL="sqlite://$work/$name.db" \
    BIND_ADDR="127.0.0.1:$at" \
    PUBLIC_BASE_URL="http://127.0.0.1:$at" \
    AUTH_DEV_LOGIN=true \
    LLM_PROVIDER=offline \
    WEB_DIR="$root/web" \
    RUST_LOG="${RUST_LOG:-warn}" \
    "$@" "$DISCOVERY_API" --dev >"$work/$name.log" 2>&1 &
  server_pids+=("$!")
}

# ready <name> <base> <pid>: waits for /readyz, or stops with the service's log.
ready() {
  for _ in $(seq 100); do
    if curl -fsS "$2/readyz" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$3" 2>/dev/null; then cat "$work/$1.log"; exit 1; fi
    sleep 0.2
  done
  echo "the $1 service did not become ready"; cat "$work/$1.log"; exit 1
}

start server "$port"
start mail "$mail_port" SMTP_URL="smtp://127.0.0.1:2525" SMTP_FROM="Discovery <discovery@example.org>" DELIVERY_WORKER=false
ready server "$base" "${server_pids[0]}"
ready mail "$mail_base" "${server_pids[1]}"
# Started once the second service has made its database, which it then shares.
start broken "$broken_port" DATABASE_URL="sqlite://$work/mail.db" DELIVERY_WORKER=false \
  LLM_PROVIDER=openai LLM_BASE_URL="http://127.0.0.1:$closed_port/v1" LLM_MODEL=nothing-listens LLM_TIMEOUT_SECONDS=5
ready broken "$broken_base" "${server_pids[2]}"

files=("$here"/*.test.mjs)
if [ "$#" -gt 0 ]; then files=(); for name in "$@"; do files+=("$here/$name.test.mjs"); done; fi

shots="${SCREENSHOTS:-$root/docs/screenshots}"
mkdir -p "$shots"
status=0
BASE_URL="$base" MAIL_BASE_URL="$mail_base" BROKEN_BASE_URL="$broken_base" SCREENSHOTS="$shots" \
  node --test --test-concurrency=1 "${files[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  for name in server mail broken; do
    echo "--- $name service log (tail) ---"
    tail -n 50 "$work/$name.log"
  done
fi
exit "$status"
