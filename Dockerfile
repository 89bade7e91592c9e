# syntax=docker/dockerfile:1.7
# onebot-gateway: a Rust build stage, then a distroless runtime (glibc, CA
# certificates, no shell, no package manager) running as the non-root user
# 65532. Build from the repository root:
#   docker build -t onebot-gateway .
#   docker build --build-arg FEATURES=otlp -t onebot-gateway:otlp .

ARG RUST_VERSION=1.95.0

FROM rust:${RUST_VERSION}-bookworm AS build
WORKDIR /src
# Cargo features of the binary (e.g. `otlp`).
ARG FEATURES=""
COPY . .
# The registry and target caches stay out of the image; the binary is copied
# out in the same step, without the line tables the workspace keeps for
# backtraces (about 120 MB → 27 MB; symbol names stay).
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/src/target,sharing=locked \
    CARGO_PROFILE_RELEASE_STRIP=debuginfo \
    cargo build --release --locked -p onebot-gateway --features "${FEATURES}" \
    && install -D -m 0755 target/release/onebot-gateway /out/onebot-gateway \
    && install -d -m 0750 /out/data

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/onebot-gateway /usr/local/bin/onebot-gateway
COPY --from=build --chown=65532:65532 /out/data /var/lib/onebot-gateway
# In a container the listener must leave loopback; logs are JSON lines.
ENV ONEBOT_GATEWAY__SERVER__LISTEN=0.0.0.0:50051 \
    ONEBOT_GATEWAY__SERVER__DATA_DIR=/var/lib/onebot-gateway \
    ONEBOT_GATEWAY_LOG_FORMAT=json \
    RUST_LOG=info
USER 65532:65532
# gRPC, and Prometheus when [metrics] listens on 0.0.0.0:9464.
EXPOSE 50051 9464
VOLUME ["/var/lib/onebot-gateway"]
# The standard gRPC health check (plaintext; override with --addr https://...
# and --ca-file when [server.tls] is on).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/onebot-gateway", "health", "--addr", "http://127.0.0.1:50051"]
ENTRYPOINT ["/usr/local/bin/onebot-gateway"]
# Without a config the gateway serves its embedded sandbox; mount a config and
# run `serve --config /etc/onebot-gateway/config.toml` for a real peer.
CMD ["serve"]
