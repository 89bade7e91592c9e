//! `history`: one page of a chat's history.

use std::process::ExitCode;

use clap::Args;
use onebot_gateway_client::{Error, pb};

use super::connection::Connection;
use super::output::{self, out};

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
        out!("{}", render(&page));
    }
    Ok(ExitCode::SUCCESS)
}

/// The page as printed: its lines, then the hint for the older page on a
/// line of its own.
pub fn render(page: &pb::GetHistoryResponse) -> String {
    let mut out = page.rendered.trim_end_matches('\n').to_owned();
    out.push('\n');
    if let Some(anchor) = page.next_anchor_message_id {
        out.push_str(&format!("(older messages: --anchor {anchor})\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_older_page_hint_has_a_line_of_its_own() {
        let page = pb::GetHistoryResponse {
            rendered: "[10:00:05] 王五(10003): 好".into(),
            next_anchor_message_id: Some(-7),
            ..Default::default()
        };
        assert_eq!(
            render(&page),
            "[10:00:05] 王五(10003): 好\n(older messages: --anchor -7)\n"
        );
        let last = pb::GetHistoryResponse {
            rendered: "x".into(),
            ..Default::default()
        };
        assert_eq!(render(&last), "x\n");
    }

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
