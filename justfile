# Every developer command. `just` is optional: each recipe is one plain command you can copy.
# Install it with `pip install rust-just` (seconds) or `cargo install just`.

export CARGO_TARGET_DIR := env_var_or_default("CARGO_TARGET_DIR", env_var("HOME") + "/.cache/discovery-target")
pg_url := env_var_or_default("TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")

# List the recipes.
default:
    @just --list

# Start the service in dev mode (embedded SQLite under ./data, dev login, offline coach).
run:
    cargo run -p api-actix --bin discovery-api -- --dev

# Run every test on SQLite (sign-in end-to-end tests need `npm ci --prefix tests/oidc-provider`).
test:
    cargo test --workspace

# Run every test again against PostgreSQL (each test makes and drops its own database).
test-pg:
    TEST_DATABASE_URL={{pg_url}} cargo test --workspace

# The pages in Debian's Chromium (installs chromium and playwright-core; rewrites docs/screenshots/).
test-browser:
    bash tests/browser/run.sh

# Format check and clippy with warnings as errors.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# Storage benchmarks (SQLite; PostgreSQL too when TEST_DATABASE_URL is set).
bench:
    TEST_DATABASE_URL={{pg_url}} cargo bench -p adapters-diesel

# `discovery-batch checkins` for 100,000 people on PostgreSQL, beside a plain batched INSERT.
bench-checkins users="100000":
    TEST_DATABASE_URL={{pg_url}} BENCH_USERS={{users}} cargo bench -p batch --bench checkins

# The cost of check-in e-mails: checkins + deliver to a loopback SMTP server vs checkins alone.
bench-deliveries users="10000":
    TEST_DATABASE_URL={{pg_url}} BENCH_USERS={{users}} cargo bench -p batch --bench deliveries

# HTTP benchmarks against raw-database baselines (wrk on loopback; PostgreSQL too).
bench-http seconds="10":
    BENCH_SECONDS={{seconds}} TEST_DATABASE_URL={{pg_url}} cargo bench -p api-actix --bench http

# Bulk ingest: the batch route against the native floor (and the peer, given its binary).
bench-ingest peer="":
    PEER_AW_SERVER={{peer}} TEST_DATABASE_URL={{pg_url}} cargo bench -p api-actix --bench ingest

# Re-classification after a rule change: 1,000,000 entries and 500 rules, rule-write latency, job throughput, another person's write p99 (SQLite, and PostgreSQL).
bench-reclassify entries="1000000":
    BENCH_ENTRIES={{entries}} TEST_DATABASE_URL={{pg_url}} cargo bench -p api-actix --bench reclassify

# Builds the ingest bench's peer, aw-server-rust at 59eaae3, from a clone of its source.
build-peer source:
    bash crates/api-actix/benches/peer/build-aw-server.sh {{source}}

# Rewrite docs/openapi.json from the code (a test compares the two; run this when a route, request or view changes).
openapi:
    UPDATE_OPENAPI=1 cargo test -p api-actix --lib openapi::checked_in

# Rewrite .env.example's values from the defaults the code reads (a test compares the two; run this when a setting is added, removed or its default changes, then describe a new one in its section).
env-example:
    UPDATE_ENV_EXAMPLE=1 cargo test -p settings --test env_example

# Contract fuzzing: schemathesis against the service's /openapi.json (zero failures expected).
contract:
    bash tests/contract/run.sh

# No two files of a crate import each other (also part of `cargo test --workspace`).
modules:
    cargo test -p architecture

# Exactly what CI runs.
ci:
    bash .ci/run

# Reliability: PostgreSQL stopped under load, the model hanging, SIGTERM (a private throwaway cluster).
faults:
    python3 tests/reliability/faults.py

# Reliability: two instances on one fresh PostgreSQL database for `seconds`, then two check-in runs at once.
scale-out seconds="60":
    TEST_DATABASE_URL={{pg_url}} DURATION={{seconds}} python3 tests/reliability/scale_out.py

# Reliability: kill -9 of the service at random moments under mixed writes, SQLite and PostgreSQL (mode: short = 50 rounds per backend, long = 1,000).
crash mode="long":
    TEST_DATABASE_URL={{pg_url}} CRASH_MODE={{mode}} python3 tests/reliability/crash.py

# Reliability: SQLite on a small tmpfs of its own (needs root), filled under load: 507 storage_full, reads go on, writes come back.
disk-full:
    python3 tests/reliability/disk_full.py

# Reliability: back up under load (discovery-batch backup / pg_dump), restore into a fresh instance, check what came back.
backup-drill:
    TEST_DATABASE_URL={{pg_url}} python3 tests/reliability/backup_drill.py

# wrk against the main routes beside raw-database baselines, peak RSS (release; report in the target dir).
load seconds="10":
    TEST_DATABASE_URL={{pg_url}} LOAD_SECONDS={{seconds}} RELIABILITY_PROFILE=release python3 tests/reliability/load.py

# Scale on PostgreSQL: 10,000 people, 10,000,000 task mappings, work patterns, a rule change and a 1,000,000-row Toggl import against raw baselines (about 10 minutes on 2 cores; smaller: SCALE_ROWS=200000 SCALE_HEAVY=50000 SCALE_IMPORT=50000).
bench-scale:
    TEST_DATABASE_URL={{pg_url}} cargo bench -p sync --bench scale
