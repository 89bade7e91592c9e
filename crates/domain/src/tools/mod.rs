//! The agent tools: the QQ tools (history, members, send, poke, get
//! message, recall, get forward, get media, archive search, waiting for
//! messages, approvals, and the group actions: reactions, essence, group
//! files, moderation), each as a name, a description, a JSON Schema and a
//! text result.
//!
//! A call never fails for anything about the call itself: an unknown tool,
//! bad JSON, bad arguments and every domain or peer failure come back as a
//! [`ToolOutput`] with `is_error`, `text == details.error` and
//! `details = {"status":"failed","error":...}`. Only a disabled tool
//! service and the caller's own deadline are errors of
//! [`Gateway::call_tool`].
//!
//! Arguments are strict: a key outside the tool's input schema is refused
//! (naming it and the keys the tool takes) before anything else is read.
//!
//! The tools run the same domain code as the typed RPCs
//! ([`Gateway::get_history`], [`Gateway::list_group_members`],
//! [`Gateway::send_message`], [`Gateway::poke_member`],
//! [`Gateway::get_message`], [`Gateway::recall_message`],
//! [`Gateway::get_forward`], [`Gateway::search_messages`],
//! [`Gateway::react_to_message`], [`Gateway::set_essence`],
//! [`Gateway::list_essence`], [`Gateway::list_group_files`],
//! [`Gateway::download_group_file`], [`Gateway::moderate`]); this module only
//! parses arguments the tools' way (JavaScript number rules, lenient
//! defaults) and shapes the result.
//!
//! # Layout
//! - [`args`]: the arguments object and its accessors (clamping, targets);
//!   [`arg_error`]: why arguments are refused; [`media_arg`]: media
//!   strings; [`js`]: the JavaScript number rules.
//! - [`schema`]: names, aliases, descriptions, input and details schemas;
//!   [`input`]: the argument types the input schemas are derived from
//!   (schemars); [`props`]: details schema pieces the tools share.
//! - [`texts`]: the failure texts (zh / en) and those of argument errors;
//!   [`error_texts`], [`media_texts`]: one per domain kind, by family.
//! - [`output`]: the shape of a result; [`view`]: messages and members in
//!   the gateway's model (the gRPC API's JSON names), for the details.
//! - [`history`], [`members`], [`send`], [`poke`], [`get_message`],
//!   [`recall`], [`forward`], [`media`], [`search`], [`wait`],
//!   [`approval`], [`react`]: one file per tool, each with its parsed
//!   argument struct, its arguments object (the input schema's source) and
//!   its details' properties (the newer ones also with their description);
//!   [`essence`] (qq_set_essence, qq_list_essence), [`group_files`]
//!   (qq_list_group_files, qq_get_group_file) and [`moderation`] (qq_mute,
//!   qq_kick, qq_set_card) hold a family each.

pub mod approval;
pub mod arg_error;
pub mod args;
pub mod error_texts;
pub mod essence;
pub mod forward;
pub mod get_message;
pub mod group_files;
pub mod history;
pub mod input;
pub mod js;
pub mod media;
pub mod media_arg;
pub mod media_texts;
pub mod members;
pub mod moderation;
pub mod output;
pub mod poke;
pub mod props;
pub mod react;
pub mod recall;
pub mod schema;
pub mod search;
pub mod send;
pub mod texts;
pub mod view;
pub mod wait;

use crate::call::CallCtx;
use crate::caller::Caller;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;

use args::Args;
pub use output::ToolOutput;
pub use schema::{ToolName, ToolSpec};
use texts::Failure;

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

    /// The tools this deployment offers: all of them, without the write
    /// tools when `tools.write_enabled` is false, without the search when
    /// `archive.enabled` is false.
    pub fn list_tools(&self) -> Result<Vec<ToolSpec>> {
        self.check_tools_enabled()?;
        Ok(self.offered().map(ToolSpec::of).collect())
    }

    /// The tools `caller` may use: [`Gateway::list_tools`] without the
    /// write tools for a read-only token.
    pub fn list_tools_for(&self, caller: &Caller) -> Result<Vec<ToolSpec>> {
        Ok(self
            .list_tools()?
            .into_iter()
            .filter(|spec| spec.read_only || caller.can_write())
            .collect())
    }

    fn offered(&self) -> impl Iterator<Item = ToolName> + '_ {
        ToolName::ALL
            .into_iter()
            .filter(|t| self.config.tools.write_enabled || !t.writes())
            // Without an archive there is nothing to search.
            .filter(|t| *t != ToolName::Search || self.archive().is_some())
            // Without the governance store nothing is ever held.
            .filter(|t| *t != ToolName::Approval || self.governance().is_some())
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
            Err(Failure::Domain(err)) if err.kind == Kind::ApprovalPending => {
                let text = texts::failure_text(&Failure::Domain(err.clone()), locale);
                Ok(ToolOutput::pending_approval(text, &err))
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
        let args = Args::parse(arguments_json)
            .map_err(Failure::Args)?
            .routed_for(ctx.routed_account.clone());
        args.check_known(tool.name(), schema::accepted_keys(tool))
            .map_err(Failure::Args)?;
        match tool {
            ToolName::History => history::run(self, &args, ctx).await,
            ToolName::Members => members::run(self, &args, ctx).await,
            ToolName::Send => send::run(self, &args, ctx).await,
            ToolName::Poke => poke::run(self, &args, ctx).await,
            ToolName::GetMessage => get_message::run(self, &args, ctx).await,
            ToolName::Recall => recall::run(self, &args, ctx).await,
            ToolName::Forward => forward::run(self, &args, ctx).await,
            ToolName::Media => media::run(self, &args, ctx).await,
            ToolName::Wait => wait::run(self, &args, ctx).await,
            ToolName::Search => search::run(self, &args, ctx).await,
            ToolName::Approval => approval::run(self, &args, ctx).await,
            ToolName::React => react::run(self, &args, ctx).await,
            ToolName::SetEssence => essence::run_set(self, &args, ctx).await,
            ToolName::ListEssence => essence::run_list(self, &args, ctx).await,
            ToolName::ListGroupFiles => group_files::run_list(self, &args, ctx).await,
            ToolName::GetGroupFile => group_files::run_get(self, &args, ctx).await,
            ToolName::Mute => moderation::run_mute(self, &args, ctx).await,
            ToolName::Kick => moderation::run_kick(self, &args, ctx).await,
            ToolName::SetCard => moderation::run_set_card(self, &args, ctx).await,
        }
    }
}
