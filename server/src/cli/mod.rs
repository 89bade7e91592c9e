//! Client subcommands for people at a terminal: they talk gRPC to any
//! gateway through the Rust client crate, print the rendered text by default
//! and JSON with `--json`.
//!
//! One file per command group: [`history`] (history), [`message`] (message,
//! recall, forward), [`group`] (members, groups, poke), [`send`],
//! [`account`] (accounts), [`events`], [`tools`], [`health`], [`download`],
//! [`search`], [`mcp`] (MCP on stdin/stdout), [`group_actions`] (react,
//! essence, essences, typing, files, group-file, mute, mute-all, kick,
//! card); [`connection`] is how every
//! command reaches the gateway and [`output`] holds the shared JSON and
//! error printing. [`archive`] (`archive purge`) is the one local command:
//! it opens the archive the configuration names, without a gateway;
//! [`sandbox`] (`sandbox inject`) talks to a sandbox peer, not a gateway.

mod account;
pub mod archive;
mod connection;
mod download;
mod events;
mod governance;
mod group;
mod group_actions;
mod health;
mod history;
mod mcp;
mod message;
mod output;
#[cfg(feature = "sandbox")]
pub mod sandbox;
mod search;
mod send;
mod tools;

use std::process::ExitCode;

use clap::Subcommand;

/// The client subcommands.
#[derive(Subcommand, Debug)]
pub enum ClientCommand {
    /// Read one page of a group's or private chat's history.
    History(history::HistoryArgs),
    /// List the members of a group.
    Members(group::MembersArgs),
    /// List the groups the account may use.
    Groups(group::GroupsArgs),
    /// Send text, images, a video, a voice and a file to a group or a private chat,
    /// optionally quoting a message and mentioning members (local files are
    /// uploaded first).
    Send(Box<send::SendArgs>),
    /// Read one message by id, with what it quotes.
    Message(message::MessageArgs),
    /// Recall (撤回) a message.
    Recall(message::RecallArgs),
    /// Open a merged-forward bundle by its id.
    Forward(message::ForwardArgs),
    /// Poke (戳一戳) a group member.
    Poke(group::PokeArgs),
    /// List the gateway's accounts and their connection state.
    Accounts(account::AccountsArgs),
    /// Follow an account's events until interrupted.
    Events(events::EventsArgs),
    /// List or call the agent tools.
    #[command(subcommand)]
    Tools(tools::ToolsCommand),
    /// Check the gateway's health (optionally waiting until it serves).
    Health(health::HealthArgs),
    /// Speak the Model Context Protocol on stdin/stdout (for agents that
    /// launch MCP servers as commands), over the gateway at --addr.
    Mcp(mcp::McpArgs),
    /// Download a received (or uploaded) media item into a file:
    /// `<media-id | message-id:index> -o FILE`.
    Download(download::DownloadArgs),
    /// Search the gateway's message archive (newest matches first).
    Search(search::SearchArgs),
    /// List the actions held for a bot owner's approval (newest first).
    Approvals(governance::ApprovalsArgs),
    /// Show one approval (optionally waiting for its decision).
    Approval(governance::ApprovalArgs),
    /// Approve a pending approval: the held action runs (needs a token
    /// with `approve = true`).
    Approve(governance::DecideArgs),
    /// Reject a pending approval: the held action never runs.
    Reject(governance::DecideArgs),
    /// List the audit trail: every write performed or refused, every
    /// approval's change (newest first).
    Audit(governance::AuditArgs),
    /// Add (or remove) an emoji reaction to a group message.
    React(group_actions::ReactArgs),
    /// Mark (or unmark) a group message as essence (精华).
    Essence(group_actions::EssenceArgs),
    /// List a group's essence messages.
    Essences(group_actions::EssencesArgs),
    /// Show "正在输入" (typing) in a private chat.
    Typing(group_actions::TypingArgs),
    /// List a group's files (群文件): one folder's folders and files.
    Files(group_actions::FilesArgs),
    /// Download a file of a group's files: `<file-id> -o FILE`.
    GroupFile(group_actions::GroupFileArgs),
    /// Mute (禁言) a group member for some seconds, or lift it with 0.
    Mute(group_actions::MuteArgs),
    /// Turn the whole-group mute (全员禁言) on, or off with --off.
    MuteAll(group_actions::MuteAllArgs),
    /// Remove (踢出) a member from the group.
    Kick(group_actions::KickArgs),
    /// Set a member's group card (群名片).
    Card(group_actions::CardArgs),
}

impl ClientCommand {
    /// How the command reaches the gateway.
    fn conn(&self) -> &connection::Connection {
        match self {
            ClientCommand::History(a) => &a.conn,
            ClientCommand::Members(a) => &a.conn,
            ClientCommand::Groups(a) => &a.conn,
            ClientCommand::Send(a) => &a.conn,
            ClientCommand::Message(a) => &a.conn,
            ClientCommand::Recall(a) => &a.conn,
            ClientCommand::Forward(a) => &a.conn,
            ClientCommand::Poke(a) => &a.conn,
            ClientCommand::Accounts(a) => &a.conn,
            ClientCommand::Events(a) => &a.conn,
            ClientCommand::Tools(c) => c.conn(),
            ClientCommand::Health(a) => &a.conn,
            ClientCommand::Mcp(a) => &a.conn,
            ClientCommand::Download(a) => &a.conn,
            ClientCommand::Search(a) => &a.conn,
            ClientCommand::Approvals(a) => &a.conn,
            ClientCommand::Approval(a) => &a.conn,
            ClientCommand::Approve(a) | ClientCommand::Reject(a) => &a.conn,
            ClientCommand::Audit(a) => &a.conn,
            ClientCommand::React(a) => &a.conn,
            ClientCommand::Essence(a) => &a.conn,
            ClientCommand::Essences(a) => &a.conn,
            ClientCommand::Typing(a) => &a.conn,
            ClientCommand::Files(a) => &a.conn,
            ClientCommand::GroupFile(a) => &a.conn,
            ClientCommand::Mute(a) => &a.conn,
            ClientCommand::MuteAll(a) => &a.conn,
            ClientCommand::Kick(a) => &a.conn,
            ClientCommand::Card(a) => &a.conn,
        }
    }
}

/// Runs one client subcommand; errors are printed (as JSON with `--json`)
/// and turned into a failure exit code. An unreachable gateway and a
/// missing token are explained (the address tried, what to do).
pub async fn run(command: ClientCommand) -> ExitCode {
    let conn = command.conn();
    // `mcp` speaks JSON-RPC on stdout: its own errors are plain text.
    let json = conn.json && !matches!(command, ClientCommand::Mcp(_));
    let addr = conn.addr.clone();
    let result = match command {
        ClientCommand::History(a) => history::run(a).await,
        ClientCommand::Members(a) => group::members(a).await,
        ClientCommand::Groups(a) => group::groups(a).await,
        ClientCommand::Send(a) => send::run(*a).await,
        ClientCommand::Message(a) => message::message(a).await,
        ClientCommand::Recall(a) => message::recall(a).await,
        ClientCommand::Forward(a) => message::forward(a).await,
        ClientCommand::Poke(a) => group::poke(a).await,
        ClientCommand::Accounts(a) => account::run(a).await,
        ClientCommand::Events(a) => events::run(a).await,
        ClientCommand::Tools(c) => tools::run(c).await,
        ClientCommand::Health(a) => health::run(a).await,
        ClientCommand::Mcp(a) => mcp::run(a).await,
        ClientCommand::Download(a) => download::run(a).await,
        ClientCommand::Search(a) => search::run(a).await,
        ClientCommand::Approvals(a) => governance::approvals(a).await,
        ClientCommand::Approval(a) => governance::approval(a).await,
        ClientCommand::Approve(a) => governance::decide(a, true).await,
        ClientCommand::Reject(a) => governance::decide(a, false).await,
        ClientCommand::Audit(a) => governance::audit(a).await,
        ClientCommand::React(a) => group_actions::react(a).await,
        ClientCommand::Essence(a) => group_actions::essence(a).await,
        ClientCommand::Essences(a) => group_actions::essences(a).await,
        ClientCommand::Typing(a) => group_actions::typing(a).await,
        ClientCommand::Files(a) => group_actions::files(a).await,
        ClientCommand::GroupFile(a) => group_actions::group_file(a).await,
        ClientCommand::Mute(a) => group_actions::mute(a).await,
        ClientCommand::MuteAll(a) => group_actions::mute_all(a).await,
        ClientCommand::Kick(a) => group_actions::kick(a).await,
        ClientCommand::Card(a) => group_actions::card(a).await,
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            output::print_error(&connection::explain(err, &addr), json);
            ExitCode::FAILURE
        }
    }
}
