//! Client subcommands for people at a terminal: they talk gRPC to any
//! gateway through the Rust client crate, print the rendered text by default
//! and JSON with `--json`.
//!
//! One file per command group: [`history`] (history), [`group`] (members,
//! groups, poke), [`send`], [`account`] (accounts), [`events`], [`tools`],
//! [`health`]; [`output`] holds the shared JSON and error printing.

mod account;
mod events;
mod group;
mod health;
mod history;
mod output;
mod send;
mod tools;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use onebot_gateway_client::{Client, DEFAULT_ADDRESS, Error};

/// The client subcommands.
#[derive(Subcommand, Debug)]
pub enum ClientCommand {
    /// Read one page of a group's or private chat's history.
    History(history::HistoryArgs),
    /// List the members of a group.
    Members(group::MembersArgs),
    /// List the groups the account may use.
    Groups(group::GroupsArgs),
    /// Send text, images, a video and a file to a group (local files are
    /// uploaded first).
    Send(send::SendArgs),
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
}

/// How to reach the gateway; shared by every client subcommand.
#[derive(Args, Debug, Clone)]
pub struct Connection {
    /// Gateway address: http://host:port (plaintext) or https://host:port (TLS).
    #[arg(long, env = "ONEBOT_GATEWAY_ADDR", default_value = DEFAULT_ADDRESS)]
    pub addr: String,
    /// Bearer token sent as `authorization: Bearer <token>`.
    #[arg(long, env = "ONEBOT_GATEWAY_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// PEM file of the CA that signed the gateway's certificate (https only;
    /// default: the system's roots).
    #[arg(long)]
    pub ca_file: Option<PathBuf>,
    /// Account to act as (default: the gateway's `default`).
    #[arg(long)]
    pub account: Option<String>,
    /// Deadline of each call, e.g. `10s` (none by default).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub timeout: Option<Duration>,
    /// Print JSON instead of rendered text.
    #[arg(long)]
    pub json: bool,
}

impl Connection {
    /// A client that connects on first use.
    pub fn client(&self) -> Result<Client, Error> {
        let mut builder = Client::builder(self.addr.clone())
            .maybe_token(self.token.clone())
            .account_id(self.account.clone().unwrap_or_default());
        if let Some(ca) = &self.ca_file {
            builder = builder.ca_file(ca.clone());
        }
        if let Some(timeout) = self.timeout {
            builder = builder.timeout(timeout);
        }
        builder.connect_lazy()
    }
}

/// Runs one client subcommand; errors are printed (as JSON with `--json`)
/// and turned into a failure exit code.
pub async fn run(command: ClientCommand) -> ExitCode {
    let (json, result) = match command {
        ClientCommand::History(a) => (a.conn.json, history::run(a).await),
        ClientCommand::Members(a) => (a.conn.json, group::members(a).await),
        ClientCommand::Groups(a) => (a.conn.json, group::groups(a).await),
        ClientCommand::Send(a) => (a.conn.json, send::run(a).await),
        ClientCommand::Poke(a) => (a.conn.json, group::poke(a).await),
        ClientCommand::Accounts(a) => (a.conn.json, account::run(a).await),
        ClientCommand::Events(a) => (a.conn.json, events::run(a).await),
        ClientCommand::Tools(c) => (c.json(), tools::run(c).await),
        ClientCommand::Health(a) => (a.conn.json, health::run(a).await),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            output::print_error(&err, json);
            ExitCode::FAILURE
        }
    }
}
