//! What the gateway measures and records: Prometheus metrics ([`metrics`])
//! and the account and chat fields of the current RPC's span.

#![warn(missing_docs)]

pub mod metrics;

/// Records the account of the current RPC on its span.
pub fn record_account(account_id: &str) {
    let id = if account_id.is_empty() {
        onebot_gateway_config::DEFAULT_ACCOUNT
    } else {
        account_id
    };
    tracing::Span::current().record("account", id);
}

/// Records the chat of the current RPC (`group:<id>`, `private:<id>`) on
/// its span.
pub fn record_chat(target: &str) {
    tracing::Span::current().record("chat", target);
}
