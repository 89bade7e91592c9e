//! `search`: finds messages in the gateway's archive.

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use clap::Args;
use onebot_gateway_client::{Error, pb};

use super::connection::Connection;
use super::history::parse_target;
use super::output::{self, outln};

/// Arguments of `search`.
#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Text to find in the messages (case-insensitive; empty: every message).
    #[arg(default_value = "")]
    pub query: String,
    /// Only this chat: `group:<id>`, `private:<id>`, or a bare QQ number
    /// (private).
    #[arg(long, value_parser = parse_target)]
    pub chat: Option<pb::Chat>,
    /// Only messages since then: a duration ago (`7d`, `12h`, `30m`) or an
    /// RFC 3339 time (`2026-11-30T18:00:00+08:00`).
    #[arg(long, value_parser = parse_time)]
    pub since: Option<SystemTime>,
    /// Only messages before then (same forms as `--since`).
    #[arg(long, value_parser = parse_time)]
    pub until: Option<SystemTime>,
    /// Only messages from this QQ number.
    #[arg(long)]
    pub sender: Option<i64>,
    /// Matches per page (1-100; default 20).
    #[arg(long, short = 'n', default_value_t = 20)]
    pub limit: i32,
    /// Pages to print, newest first (default 1; 0: every page).
    #[arg(long, default_value_t = 1)]
    pub pages: u32,
    /// Include recalled messages.
    #[arg(long)]
    pub include_recalled: bool,
    #[command(flatten)]
    pub conn: Connection,
}

/// `7d` ago, or an RFC 3339 time.
pub fn parse_time(s: &str) -> Result<SystemTime, String> {
    if let Ok(ago) = humantime::parse_duration(s) {
        return Ok(SystemTime::now()
            .checked_sub(ago)
            .unwrap_or(SystemTime::UNIX_EPOCH));
    }
    s.parse::<jiff::Timestamp>()
        .map(|t| {
            let nanos = u64::try_from(t.as_nanosecond()).unwrap_or(0);
            SystemTime::UNIX_EPOCH + Duration::from_nanos(nanos)
        })
        .map_err(|_| {
            format!(
                "{s:?} is neither a duration ago (7d, 12h) nor an RFC 3339 time (2026-11-30T18:00:00+08:00)"
            )
        })
}

/// Runs `search`.
pub async fn run(args: SearchArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let timestamp = |t: SystemTime| {
        let d = t
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or(Duration::ZERO);
        prost_types::Timestamp {
            seconds: d.as_secs() as i64,
            nanos: d.subsec_nanos() as i32,
        }
    };
    let request = pb::SearchMessagesRequest {
        chat: args.chat,
        query: args.query,
        since: args.since.map(timestamp),
        until: args.until.map(timestamp),
        sender_id: args.sender,
        limit: args.limit,
        include_recalled: args.include_recalled,
        ..pb::SearchMessagesRequest::default()
    };
    let mut pages = client.search(request);
    let mut printed = 0;
    while args.pages == 0 || printed < args.pages {
        let Some(page) = pages.next_page().await? else {
            break;
        };
        printed += 1;
        if args.conn.json {
            output::print_message(&page)?;
        } else {
            outln!("{}", page.rendered);
        }
        if page.next_page_token.is_empty() {
            break;
        }
        if args.pages != 0 && printed == args.pages && !args.conn.json {
            eprintln!("(older matches: --pages {})", printed + 1);
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_durations_ago_or_rfc3339() {
        let week = parse_time("7d").unwrap();
        let ago = SystemTime::now().duration_since(week).unwrap();
        assert!(
            ago >= Duration::from_secs(7 * 86_400) && ago < Duration::from_secs(7 * 86_400 + 60)
        );
        let t = parse_time("2026-11-30T10:00:00Z").unwrap();
        assert_eq!(
            t.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs(),
            1_796_032_800
        );
        assert_eq!(parse_time("2026-11-30T18:00:00+08:00").unwrap(), t);
        assert!(parse_time("yesterday-ish").is_err());
    }
}
