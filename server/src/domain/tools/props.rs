//! Schema pieces several tools' input schemas share.

use serde_json::{Value, json};

/// The schema of the `accountId` argument every tool takes.
pub fn account_id() -> Value {
    json!({
        "type": "string",
        "description": "Gateway account id; default \"default\".",
        "default": "default"
    })
}

/// The schema of a message id argument; `what` says which message.
pub fn message_id(what: &str) -> Value {
    json!({
        "type": ["integer", "string"],
        "pattern": "^-?[0-9]+$",
        "description": format!("{what} A message_id (non-zero; may be negative).")
    })
}
