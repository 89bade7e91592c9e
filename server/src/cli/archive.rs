//! `archive purge`: deletes people's words from the message archive, on
//! this machine, without going through a gateway: the archive the
//! configuration names (the data directory's `archive.sqlite3`, or the
//! PostgreSQL database of `archive.url`) is opened directly. It may run
//! while the gateway serves.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use onebot_gateway_client::pb;
use onebot_gateway_config::{Config, Overrides};
use onebot_gateway_domain::archive::purge::{NoCapturedMedia, purge};
use onebot_gateway_domain::archive::store::PurgeScope;
use onebot_gateway_domain::model::ChatRef;
use serde_json::json;

use super::history::parse_target;
use super::output::outln;

/// `archive` subcommands.
#[derive(Subcommand, Debug)]
pub enum ArchiveCommand {
    /// Delete every archived message of a chat (`--chat`) or every message
    /// one person sent anywhere (`--user`), with the captured media only
    /// those messages referenced.
    Purge(PurgeArgs),
}

/// Arguments of `archive purge`.
#[derive(Args, Debug)]
pub struct PurgeArgs {
    /// The chat: `group:<id>`, `private:<id>`, or a bare QQ number
    /// (private).
    #[arg(long, value_parser = parse_target, required_unless_present = "user", conflicts_with = "user")]
    pub chat: Option<pb::Chat>,
    /// The person's QQ number: their messages in every chat.
    #[arg(long)]
    pub user: Option<i64>,
    /// Only this account's archive (default: every account).
    #[arg(long)]
    pub account: Option<String>,
    /// The gateway's TOML configuration file (where the archive is).
    #[arg(long, short)]
    pub config: Option<PathBuf>,
    /// Data directory (overrides `server.data_dir`).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs an `archive` subcommand.
pub async fn run(command: ArchiveCommand) -> ExitCode {
    let ArchiveCommand::Purge(args) = command;
    let json = args.json;
    match purge_cmd(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if json {
                outln!("{}", json!({"error": {"message": e.to_string()}}));
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::FAILURE
        }
    }
}

async fn purge_cmd(args: PurgeArgs) -> anyhow::Result<()> {
    let overrides = Overrides {
        listen: None,
        data_dir: args.data_dir.clone(),
    };
    let config = Config::load(args.config.as_deref(), std::env::vars(), &overrides)?;
    if !config.archive.enabled {
        anyhow::bail!("the archive is turned off in this configuration (archive.enabled = false)");
    }
    let store = onebot_gateway_store::open::archive(&config.archive, &config.server.data_dir)
        .await
        .map_err(|e| anyhow::anyhow!("opening the message archive: {e}"))?
        .ok_or_else(|| anyhow::anyhow!("the archive is turned off"))?;
    let scope = match (args.chat, args.user) {
        (Some(chat), _) => {
            let chat = match chat.kind {
                Some(pb::chat::Kind::GroupId(id)) => ChatRef::Group(id),
                Some(pb::chat::Kind::UserId(id)) => ChatRef::Private(id),
                None => anyhow::bail!("--chat needs group:<id> or private:<id>"),
            };
            PurgeScope::Chat {
                account_id: args.account.clone(),
                chat,
            }
        }
        (None, Some(user_id)) if user_id > 0 => PurgeScope::Sender {
            account_id: args.account.clone(),
            user_id,
        },
        (None, Some(user_id)) => {
            anyhow::bail!("--user must be a positive QQ number, got {user_id}")
        }
        (None, None) => anyhow::bail!("give --chat or --user"),
    };
    let what = match &scope {
        PurgeScope::Chat { chat, .. } => chat.target(),
        PurgeScope::Sender { user_id, .. } => format!("user {user_id}"),
    };
    let report = purge(store.as_ref(), scope, &NoCapturedMedia)
        .await
        .map_err(|e| anyhow::anyhow!("purging {what}: {e}"))?;
    if args.json {
        outln!(
            "{}",
            json!({
                "archive": store.describe(),
                "purged": what,
                "messages": report.messages,
                "media": report.media,
            })
        );
    } else {
        outln!(
            "purged {what} from {}: {} messages, {} captured media",
            store.describe(),
            report.messages,
            report.media
        );
    }
    Ok(())
}
