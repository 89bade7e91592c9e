//! `members`, `groups` and `poke`: the GroupService.

use std::process::ExitCode;

use clap::Args;
use onebot_gateway_client::Error;

use super::connection::Connection;
use super::output::{self, outln};

/// Arguments of `members`.
#[derive(Args, Debug)]
pub struct MembersArgs {
    /// Group number.
    pub group_id: i64,
    /// Maximum members shown (1-500; default 100).
    #[arg(long, default_value_t = 100)]
    pub limit: i32,
    /// Bypass the caches and ask the peer for a fresh list.
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `groups`.
#[derive(Args, Debug)]
pub struct GroupsArgs {
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `poke`.
#[derive(Args, Debug)]
pub struct PokeArgs {
    /// QQ number of the member to poke.
    pub user_id: i64,
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short)]
    pub group: Option<i64>,
    #[command(flatten)]
    pub requester: super::governance::Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Runs `members`.
pub async fn members(args: MembersArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let no_cache = args.no_cache.then_some(true);
    let list = client.members(args.group_id, args.limit, no_cache).await?;
    if args.conn.json {
        output::print_message(&list)?;
    } else {
        outln!("{}", list.rendered);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `groups`.
pub async fn groups(args: GroupsArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let list = client.groups().await?;
    if args.conn.json {
        output::print_message(&list)?;
    } else {
        outln!("{}", list.rendered);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `poke`.
pub async fn poke(args: PokeArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let done = client
        .poke_for(args.group, args.user_id, args.requester.on_behalf_of())
        .await?;
    if args.conn.json {
        output::print_message(&done)?;
    } else {
        outln!("poked {} in group {}", done.user_id, done.group_id);
    }
    Ok(ExitCode::SUCCESS)
}
