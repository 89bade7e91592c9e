//! The agent tools: the seeds' four QQ tools (history, members, send, poke)
//! as a name, a description, a JSON Schema and a text result.
//!
//! A call never fails for anything about the call itself: an unknown tool,
//! bad JSON, bad arguments and every domain or peer failure come back as a
//! [`ToolOutput`] with `is_error`, `text == details.error` and
//! `details = {"status":"failed","error":...}`. Only a disabled tool
//! service and the caller's own deadline are errors of
//! [`Gateway::call_tool`].
//!
//! The tools run the same domain code as the typed RPCs
//! ([`Gateway::get_history`], [`Gateway::list_group_members`],
//! [`Gateway::send_message`], [`Gateway::poke_member`]); this module only
//! parses arguments the seeds' way and shapes the result.
//!
//! # Layout
//! - [`args`]: the arguments object and its accessors (clamping, targets,
//!   media strings); [`js`]: the JavaScript number rules.
//! - [`schema`]: names, aliases, descriptions, input and details schemas.
//! - [`texts`]: the failure texts (zh / en), one per domain kind.
//! - [`history`], [`members`], [`send`], [`poke`]: one file per tool, each
//!   with its argument struct.

pub mod args;
pub mod history;
pub mod js;
pub mod members;
pub mod poke;
pub mod schema;
pub mod send;
pub mod texts;

#[cfg(test)]
mod tests;

use serde_json::{Value, json};

use crate::domain::call::CallCtx;
use crate::domain::gateway::Gateway;
use crate::domain::model::RawJson;
use crate::error::{Error, Kind, Result};

use args::Args;
pub use schema::{ToolName, ToolSpec};
use texts::Failure;

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text for the model: the rendered result or the error text.
    pub text: String,
    /// `{"status":"ok",...}` or `{"status":"failed","error":...}`.
    pub details: Value,
    /// True when the call failed; then `text` equals `details.error`.
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: String, details: Value) -> Self {
        Self {
            text,
            details,
            is_error: false,
        }
    }

    /// A failed result: `details = {"status":"failed","error":text}`.
    pub fn failed(text: String) -> Self {
        Self {
            details: json!({"status": "failed", "error": text}),
            text,
            is_error: true,
        }
    }
}

/// The peer's own object as a JSON value for the details (`null` if its
/// text does not parse).
fn raw_value(raw: &RawJson) -> Value {
    serde_json::from_str(raw.text()).unwrap_or(Value::Null)
}

/// Wraps a domain error of a call through `account_id`, naming the
/// account when the error does not (the texts say which account failed).
fn domain_failure(account_id: &str) -> impl FnOnce(Error) -> Failure + '_ {
    move |err| {
        if err.meta("account_id").is_some() {
            Failure::Domain(err)
        } else {
            Failure::Domain(err.with("account_id", account_id))
        }
    }
}

impl Gateway {
    /// Fails with `ToolsDisabled` when the operator turned the tool service
    /// off (`tools.enabled = false`).
    pub fn check_tools_enabled(&self) -> Result<()> {
        if self.config.tools.enabled {
            Ok(())
        } else {
            Err(Error::new(
                Kind::ToolsDisabled,
                "the agent tool service is disabled (tools.enabled = false)",
            ))
        }
    }

    /// The tools this deployment offers: all four, or the two read tools
    /// when `tools.write_enabled` is false.
    pub fn list_tools(&self) -> Result<Vec<ToolSpec>> {
        self.check_tools_enabled()?;
        Ok(self.offered().map(ToolSpec::of).collect())
    }

    fn offered(&self) -> impl Iterator<Item = ToolName> + '_ {
        ToolName::ALL
            .into_iter()
            .filter(|t| self.config.tools.write_enabled || !t.writes())
    }

    /// Calls the tool `name` (a name or an alias) with `arguments_json` (a
    /// JSON object; empty means `{}`). Every failure about the call is an
    /// `is_error` output; the only errors are `ToolsDisabled` and
    /// `DeadlineExceeded` (the caller's deadline passed).
    pub async fn call_tool(
        &self,
        name: &str,
        arguments_json: &str,
        ctx: CallCtx,
    ) -> Result<ToolOutput> {
        self.check_tools_enabled()?;
        let locale = self.config.tools.locale;
        let expired = ctx.deadline;
        match self.run_tool(name, arguments_json, ctx).await {
            Ok(output) => Ok(output),
            // The gateway's own auth is not about the call: a gRPC error.
            Err(Failure::Domain(err)) if err.kind == Kind::TokenScope => Err(err),
            Err(Failure::Domain(err))
                if err.kind == Kind::DeadlineExceeded || expired.expired() =>
            {
                Err(Error::new(
                    Kind::DeadlineExceeded,
                    format!("the caller's deadline passed during tool {name}"),
                )
                .with("tool", name))
            }
            Err(failure) => Ok(ToolOutput::failed(texts::failure_text(&failure, locale))),
        }
    }

    async fn run_tool(
        &self,
        name: &str,
        arguments_json: &str,
        ctx: CallCtx,
    ) -> std::result::Result<ToolOutput, Failure> {
        let Some(tool) = ToolName::resolve(name) else {
            return Err(Failure::UnknownTool {
                name: name.to_owned(),
                available: self.offered().map(ToolName::name).collect(),
            });
        };
        if tool.writes() && !self.config.tools.write_enabled {
            return Err(Failure::WriteDisabled(tool.name()));
        }
        if tool.writes() {
            ctx.caller.check_write().map_err(Failure::Domain)?;
        }
        let args = Args::parse(arguments_json).map_err(Failure::Args)?;
        match tool {
            ToolName::History => history::run(self, &args, ctx).await,
            ToolName::Members => members::run(self, &args, ctx).await,
            ToolName::Send => send::run(self, &args, ctx).await,
            ToolName::Poke => poke::run(self, &args, ctx).await,
        }
    }
}
