//! The shape of a tool's result: text for the model, JSON details, and
//! whether it failed.

use serde_json::{Value, json};

use super::texts::Failure;
use crate::error::Error;

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text for the model: the rendered result or the error text.
    pub text: String,
    /// `{"status":"ok",...}` or `{"status":"failed","error":...}`.
    pub details: Value,
    /// True when the call failed; then `text` equals `details.error`.
    pub is_error: bool,
    /// The result as tool-result content (the MCP shape): `text` first,
    /// then any images.
    pub content: Vec<ToolContent>,
}

/// One part of a tool result.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolContent {
    /// Text for the model.
    Text(String),
    /// An image for the model.
    Image {
        /// Sniffed MIME type.
        mime_type: String,
        /// The bytes.
        data: bytes::Bytes,
    },
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: String, details: Value) -> Self {
        Self {
            content: vec![ToolContent::Text(text.clone())],
            text,
            details,
            is_error: false,
        }
    }

    /// A failed result: `details = {"status":"failed","error":text}`.
    pub fn failed(text: String) -> Self {
        Self {
            details: json!({"status": "failed", "error": text}),
            content: vec![ToolContent::Text(text.clone())],
            text,
            is_error: true,
        }
    }

    /// The result of an action held for approval (`ApprovalPending`): not
    /// an error, nothing done yet; `details = {"status":
    /// "pending_approval","approvalId","actions"}`.
    pub fn pending_approval(text: String, err: &Error) -> Self {
        let actions: Vec<&str> = err
            .meta("action")
            .unwrap_or_default()
            .split(',')
            .filter(|a| !a.is_empty())
            .collect();
        Self::ok(
            text,
            json!({
                "status": "pending_approval",
                "approvalId": err.meta("approval_id").unwrap_or_default(),
                "actions": actions,
            }),
        )
    }

    /// This result with `images` (mime type, bytes) after its text.
    pub fn with_images(mut self, images: impl IntoIterator<Item = (String, bytes::Bytes)>) -> Self {
        self.content.extend(
            images
                .into_iter()
                .map(|(mime_type, data)| ToolContent::Image { mime_type, data }),
        );
        self
    }

    /// The images of the result, in order.
    pub fn images(&self) -> impl Iterator<Item = (&str, &bytes::Bytes)> {
        self.content.iter().filter_map(|c| match c {
            ToolContent::Image { mime_type, data } => Some((mime_type.as_str(), data)),
            ToolContent::Text(_) => None,
        })
    }
}

/// Wraps a domain error of a call through `account_id`, naming the
/// account when the error does not (the texts say which account failed).
pub(super) fn domain_failure(account_id: &str) -> impl FnOnce(Error) -> Failure + '_ {
    move |err| {
        if err.meta("account_id").is_some() {
            Failure::Domain(err)
        } else {
            Failure::Domain(err.with("account_id", account_id))
        }
    }
}
