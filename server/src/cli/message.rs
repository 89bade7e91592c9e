//! `message`, `recall` and `forward`: one message by id, recalling one, and
//! opening a merged-forward bundle.

use std::process::ExitCode;

use clap::Args;
use onebot_gateway_client::{Error, pb};
use serde_json::json;

use super::connection::Connection;
use super::output::{self, outln};

/// Arguments of `message`.
#[derive(Args, Debug)]
pub struct MessageArgs {
    /// The message id (as history, events or sends report it).
    #[arg(allow_hyphen_values = true)]
    pub id: i64,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `recall`.
#[derive(Args, Debug)]
pub struct RecallArgs {
    /// The message id to recall.
    #[arg(allow_hyphen_values = true)]
    pub id: i64,
    #[command(flatten)]
    pub requester: super::governance::Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `forward`.
#[derive(Args, Debug)]
pub struct ForwardArgs {
    /// The forward bundle's id (`ForwardSegment.id` of a received message).
    pub id: String,
    #[command(flatten)]
    pub conn: Connection,
}

/// Runs `message`: prints its history line (JSON with `--json`).
pub async fn message(args: MessageArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let got = client.get_message(args.id).await?;
    if args.conn.json {
        output::print_message(&got)?;
    } else {
        outln!("{}", got.rendered);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `recall`.
pub async fn recall(args: RecallArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    client
        .recall_for(args.id, args.requester.on_behalf_of())
        .await?;
    if args.conn.json {
        output::print_json(&json!({"recalled": true, "messageId": args.id}));
    } else {
        outln!("recalled message {}", args.id);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `forward`: one line per forwarded message.
pub async fn forward(args: ForwardArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let bundle: pb::GetForwardMessagesResponse = client.get_forward(args.id).await?;
    if args.conn.json {
        output::print_message(&bundle)?;
    } else {
        outln!("{}", bundle.rendered);
    }
    Ok(ExitCode::SUCCESS)
}
