#!/usr/bin/env bash
# The reliability suites, one after another (see docs/reliability.md):
#   faults     PostgreSQL stopped under load, the language model hanging or refusing, SIGTERM
#              under load; on a PRIVATE throwaway PostgreSQL cluster (never the shared server)
#   scale-out  two discovery-api instances on one fresh database of the shared server, then two
#              `discovery-batch checkins` at once
#   load       wrk against the main routes beside raw-database baselines, peak RSS, a report
#   backup-drill  back up under load, restore into a fresh instance, check it (SQLite, PostgreSQL)
#   disk-full  SQLite on a small tmpfs of its own, filled under load (needs root: it mounts one)
#   crash      the kill -9 campaign, short mode: 50 rounds per backend (SQLite, PostgreSQL) and 20 of
#              PostgreSQL's postmaster killed (CRASH_MODE=long: 1,000 and 200)
#
#   DURATION=15 bash tests/reliability/run.sh     # what CI runs (about 6-7 minutes, warm build)
#
# Environment: DURATION (scale-out load, default 60; also sets LOAD_SECONDS = DURATION/5 within
# 3..10 unless given), SUITES ("faults scale-out load backup-drill disk-full crash"),
# CRASH_MODE (short), RELIABILITY_PROFILE (debug|release,
# default debug), DISCOVERY_API / DISCOVERY_BATCH (skip the build), TEST_DATABASE_URL (the shared
# server, default postgres://postgres@127.0.0.1:5432/postgres), CARGO_TARGET_DIR. Every suite
# cleans up what it started; the exit status is non-zero when any check failed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/discovery-target}"
export DURATION="${DURATION:-60}"
if [ -z "${LOAD_SECONDS:-}" ]; then
  LOAD_SECONDS=$(( DURATION / 5 ))
  if [ "$LOAD_SECONDS" -lt 3 ]; then LOAD_SECONDS=3; fi
  if [ "$LOAD_SECONDS" -gt 10 ]; then LOAD_SECONDS=10; fi
fi
export LOAD_SECONDS
profile="${RELIABILITY_PROFILE:-debug}"
suites="${SUITES:-faults scale-out load backup-drill disk-full crash}"
export CRASH_MODE="${CRASH_MODE:-short}"

# Prerequisites: python3 >= 3.11, psql and pgbench (postgresql-client), wrk (load.py installs it).
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "python3 >= 3.11 is needed")'
if ! command -v psql >/dev/null 2>&1 || ! command -v pgbench >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq postgresql-client
fi
if ! command -v wrk >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq wrk
fi

if [ -z "${DISCOVERY_API:-}" ] || [ -z "${DISCOVERY_BATCH:-}" ]; then
  flags=()
  if [ "$profile" = release ]; then flags=(--release); fi
  cargo build --locked -p api-actix -p batch "${flags[@]}"
  export DISCOVERY_API="$CARGO_TARGET_DIR/$profile/discovery-api"
  export DISCOVERY_BATCH="$CARGO_TARGET_DIR/$profile/discovery-batch"
fi

started=$(date +%s)
failed=()
for suite in $suites; do
  printf '\n=== reliability: %s (%s)\n' "$suite" "$(date -u +%H:%M:%S)"
  if ! python3 "$here/${suite//-/_}.py"; then
    failed+=("$suite")
  fi
done

printf '\n=== reliability: %ss, ' "$(( $(date +%s) - started ))"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all suites passed"
