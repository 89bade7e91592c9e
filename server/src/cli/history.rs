//! `history`: one page of a chat's history.

use std::process::ExitCode;

use clap::Args;
use onebot_gateway_client::{Error, pb};

use super::connection::Connection;
use super::output;

/// Arguments of `history`.
#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// The chat: `group:<id>`, `private:<id>`, or a bare QQ number (private).
    #[arg(value_parser = parse_target)]
    pub target: pb::Chat,
    /// Number of messages (1-100; default 20).
    #[arg(long, short = 'n', default_value_t = 20)]
    pub count: i32,
    /// Page anchor: only messages older than this message id.
    #[arg(long)]
    pub anchor: Option<i64>,
    #[command(flatten)]
    pub conn: Connection,
}

/// Parses a target the way the agent tools do: `group:<id>`,
/// `private:<id>`, or bare digits (a private chat).
pub fn parse_target(s: &str) -> Result<pb::Chat, String> {
    let (kind, id) = match s.split_once(':') {
        Some((kind, id)) => (kind, id),
        None => ("private", s),
    };
    let id: i64 = id
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not group:<id>, private:<id> or a QQ number"))?;
    match kind {
        "group" => Ok(pb::Chat::group(id)),
        "private" => Ok(pb::Chat::private(id)),
        _ => Err(format!(
            "{s:?} is not group:<id>, private:<id> or a QQ number"
        )),
    }
}

/// Runs `history`.
pub async fn run(args: HistoryArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let page = client.history(args.target, args.count, args.anchor).await?;
    if args.conn.json {
        output::print_message(&page)?;
    } else {
        println!("{}", page.rendered);
        if let Some(anchor) = page.next_anchor_message_id {
            eprintln!("(older messages: --anchor {anchor})");
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_like_the_agent_tools() {
        assert_eq!(
            parse_target("group:20000003").unwrap(),
            pb::Chat::group(20000003)
        );
        assert_eq!(
            parse_target("private:10001").unwrap(),
            pb::Chat::private(10001)
        );
        assert_eq!(parse_target("10001").unwrap(), pb::Chat::private(10001));
        assert!(parse_target("channel:1").is_err());
        assert!(parse_target("group:abc").is_err());
    }
}
