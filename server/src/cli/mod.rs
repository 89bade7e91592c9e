//! Client subcommands for people at a terminal: they talk gRPC to any
//! gateway through the Rust client crate, print the rendered text by default
//! and JSON with `--json`.
//!
//! One file per command group: [`history`] (history), [`message`] (message,
//! recall, forward), [`group`] (members, groups, poke), [`send`],
//! [`account`] (accounts), [`events`], [`tools`], [`health`], [`download`],
//! [`search`]; [`connection`] is how every command reaches the gateway and
//! [`output`] holds the shared JSON and error printing. [`archive`] (`archive purge`)
//! is the one local command: it opens the archive the configuration names,
//! without a gateway.

mod account;
pub mod archive;
mod connection;
mod download;
mod events;
mod group;
mod health;
mod history;
mod message;
mod output;
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
    /// Send text, images, a video and a file to a group or a private chat,
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
    /// Download a received (or uploaded) media item into a file:
    /// `<media-id | message-id:index> -o FILE`.
    Download(download::DownloadArgs),
    /// Search the gateway's message archive (newest matches first).
    Search(search::SearchArgs),
}

/// Runs one client subcommand; errors are printed (as JSON with `--json`)
/// and turned into a failure exit code.
pub async fn run(command: ClientCommand) -> ExitCode {
    let (json, result) = match command {
        ClientCommand::History(a) => (a.conn.json, history::run(a).await),
        ClientCommand::Members(a) => (a.conn.json, group::members(a).await),
        ClientCommand::Groups(a) => (a.conn.json, group::groups(a).await),
        ClientCommand::Send(a) => (a.conn.json, send::run(*a).await),
        ClientCommand::Message(a) => (a.conn.json, message::message(a).await),
        ClientCommand::Recall(a) => (a.conn.json, message::recall(a).await),
        ClientCommand::Forward(a) => (a.conn.json, message::forward(a).await),
        ClientCommand::Poke(a) => (a.conn.json, group::poke(a).await),
        ClientCommand::Accounts(a) => (a.conn.json, account::run(a).await),
        ClientCommand::Events(a) => (a.conn.json, events::run(a).await),
        ClientCommand::Tools(c) => (c.json(), tools::run(c).await),
        ClientCommand::Health(a) => (a.conn.json, health::run(a).await),
        ClientCommand::Download(a) => (a.conn.json, download::run(a).await),
        ClientCommand::Search(a) => (a.conn.json, search::run(a).await),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            output::print_error(&err, json);
            ExitCode::FAILURE
        }
    }
}
