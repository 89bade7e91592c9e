//! The end-to-end tests, in one test binary (one link against the gateway
//! instead of one per file): the real gateway on `127.0.0.1:0` over gRPC/TCP
//! against sandbox peers, one module per area.
//!
//! The tests of a binary share its process and run in parallel. Tests that
//! read or install process-wide state (the process's RSS, the global metrics
//! recorder) run in a child process of their own through
//! [`onebot_gateway_tests::in_own_process`]; logs are captured per test with
//! a thread-local dispatcher (`redaction`), never a global subscriber.
//!
//! Run one area with `cargo test -p onebot-gateway-tests --test e2e faults::`.

mod archive;
mod auth;
mod bad_input;
mod conversation;
mod events;
mod exposure;
mod faults;
mod fuzz;
mod group_actions;
mod hardening;
mod limits;
mod load;
mod mcp;
mod media;
mod metrics;
mod milky;
mod milky_events;
mod milky_group_actions;
mod milky_media;
mod milky_writes;
mod nats_sink;
mod policy;
mod proxy;
mod read_side;
mod redaction;
mod send_load;
mod shares;
mod shutdown;
mod tls;
mod tools;
mod write_side;
