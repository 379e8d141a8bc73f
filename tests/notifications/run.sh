#!/usr/bin/env bash
# Notifications and webhooks against real processes (README.md here): discovery-api and
# discovery-batch on fresh databases, a real SMTP server (aiosmtpd) and real HTTP receivers on
# loopback; every webhook request verified with the standardwebhooks library.
#
#   bash tests/notifications/run.sh                 # SQLite
#   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bash tests/notifications/run.sh
#                                                   # also the PostgreSQL fan-out, on a fresh database
#
# The Python environment is kept in ~/.cache/discovery-notifications/venv (NOTIFICATIONS_CACHE
# moves it) and rebuilt when requirements.txt changes. Environment: DISCOVERY_API /
# DISCOVERY_BATCH (skip the build), CARGO_TARGET_DIR, TEST_DATABASE_URL, NOTIFY_FANOUT_EVENTS.
# The exit status is non-zero when any check failed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/discovery-target}"

say() { printf '[%s] notifications: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "python3 >= 3.11 is needed")'
if [ -n "${TEST_DATABASE_URL:-}" ] && ! command -v psql >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq postgresql-client
fi

# --- the Python environment ---------------------------------------------------------------------
cache="${NOTIFICATIONS_CACHE:-$HOME/.cache/discovery-notifications}"
venv="$cache/venv"
mkdir -p "$cache"
if ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
  say "building the Python environment in $venv"
  rm -rf "$venv"
  if ! {
    python3 -m venv "$venv" &&
      "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$here/requirements.txt"
  } >"$cache/venv-build.log" 2>&1; then
    tail -n 15 "$cache/venv-build.log" >&2 || true
    rm -rf "$venv"
    echo "notifications: could not build the Python environment (log: $cache/venv-build.log)" >&2
    exit 1
  fi
  cp "$here/requirements.txt" "$venv/requirements.txt"
fi

# --- the binaries -------------------------------------------------------------------------------
if [ -z "${DISCOVERY_API:-}" ] || [ -z "${DISCOVERY_BATCH:-}" ]; then
  cargo build --locked -p api-actix --bin discovery-api -p batch --bin discovery-batch
  export DISCOVERY_API="$CARGO_TARGET_DIR/debug/discovery-api"
  export DISCOVERY_BATCH="$CARGO_TARGET_DIR/debug/discovery-batch"
fi

started=$SECONDS
status=0
"$venv/bin/python" "$here/notifications.py" || status=$?
say "$((SECONDS - started))s, exit $status"
exit "$status"
