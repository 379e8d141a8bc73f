# syntax=docker/dockerfile:1
# The Discovery Service as a container: discovery-api and discovery-batch, built in one stage
# and copied into a small Debian runtime that runs as a non-root user.
# Untested on the development machine (Docker cannot run there); see docs/operations.md.
#
#   docker build -t discovery .
#   docker run -p 8011:8011 -e DATABASE_URL=postgres://... -e JWT_SECRET=... discovery

FROM rust:1.95-bookworm AS build
# libpq is built from source by pq-sys; its TLS links the system OpenSSL.
RUN apt-get update && apt-get install -y --no-install-recommends libssl-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p api-actix -p batch \
    && install -D target/release/discovery-api target/release/discovery-batch -t /out

FROM debian:bookworm-slim AS runtime
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libssl3 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin discovery
COPY --from=build /out/ /usr/local/bin/
COPY web/ /app/web/
WORKDIR /app
ENV BIND_ADDR=0.0.0.0:8011 \
    WEB_DIR=/app/web \
    RUST_LOG=info
USER 10001
EXPOSE 8011
ENTRYPOINT ["discovery-api"]
