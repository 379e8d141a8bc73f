#!/usr/bin/env bash
# Builds the peer of the ingest bench: ActivityWatch's aw-server-rust at the commit the issue
# measured (59eaae3), release, bundled SQLite, no web UI. Prints the binary's path on the last
# line, for `PEER_AW_SERVER=... cargo bench -p api-actix --bench ingest`.
#
#   build-aw-server.sh SOURCE [OUT]
#
# SOURCE: a clone (or bare git directory) of https://github.com/ActivityWatch/aw-server-rust
# holding commit 59eaae3 (the search tool's `fetch github:ActivityWatch/aw-server-rust` brings
# one). OUT: where to build (default ~/.cache/discovery-peer); it gets its own target directory,
# apart from the project's. Takes about 10 minutes on 2 cores the first time.
set -euo pipefail
commit=59eaae3
source="${1:?usage: build-aw-server.sh SOURCE [OUT]}"
out="${2:-$HOME/.cache/discovery-peer}"
tree="$out/aw-server-rust-$commit"
if [ ! -f "$tree/Cargo.toml" ]; then
  mkdir -p "$tree"
  git --git-dir="$(git -C "$source" rev-parse --absolute-git-dir)" archive "$commit" | tar -x -C "$tree"
fi
# --locked: the peer's own Cargo.lock, as its CI builds it.
CARGO_TARGET_DIR="$out/target" cargo build --release --locked -p aw-server \
  --manifest-path "$tree/Cargo.toml" >&2
echo "$out/target/release/aw-server"
