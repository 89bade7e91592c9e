//! `accounts`: the gateway's accounts and their connection state.

use std::process::ExitCode;

use clap::Args;
use onebot_gateway_client::{Error, pb};

use super::connection::Connection;
use super::output::{self, outln};

/// Arguments of `accounts`.
#[derive(Args, Debug)]
pub struct AccountsArgs {
    #[command(flatten)]
    pub conn: Connection,
}

/// Runs `accounts`.
pub async fn run(args: AccountsArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let accounts = client.accounts().await?;
    if args.conn.json {
        let response = pb::ListAccountsResponse { accounts };
        output::print_message(&response)?;
    } else if accounts.is_empty() {
        outln!("(no accounts)");
    } else {
        for account in &accounts {
            outln!("{}", render(account));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn enum_name(name: Option<&'static str>, prefix: &str) -> String {
    name.map(|n| n.strip_prefix(prefix).unwrap_or(n).to_lowercase())
        .unwrap_or_else(|| "?".into())
}

/// One line per account: id, state, QQ number and nickname, implementation,
/// transport, queue depth, groups, users (when any), how history is paged
/// (once known) and the last error.
pub fn render(a: &pb::Account) -> String {
    let state = enum_name(
        pb::ConnectionState::try_from(a.state)
            .ok()
            .map(|s| s.as_str_name()),
        "CONNECTION_STATE_",
    );
    let transport = enum_name(
        pb::Transport::try_from(a.transport)
            .ok()
            .map(|t| t.as_str_name()),
        "TRANSPORT_",
    );
    let flavor = enum_name(
        pb::Flavor::try_from(a.flavor).ok().map(|f| f.as_str_name()),
        "FLAVOR_",
    );
    let groups: Vec<String> = a.groups.iter().map(i64::to_string).collect();
    let mut line = format!(
        "{} — {state}, {}({}), {} {} [{flavor}], via {transport}, queue {}, groups [{}]",
        a.account_id,
        a.nickname,
        a.self_id,
        a.implementation,
        a.implementation_version,
        a.queue_depth,
        groups.join(", "),
    );
    if !a.users.is_empty() {
        let users: Vec<String> = a.users.iter().map(i64::to_string).collect();
        line.push_str(&format!(", users [{}]", users.join(", ")));
    }
    if !a.history_anchor.is_empty() {
        line.push_str(&format!(
            ", history by {} ({}, {})",
            a.history_anchor,
            if a.anchor_included {
                "anchor included"
            } else {
                "anchor left out"
            },
            a.history_anchor_source
        ));
    }
    if !a.last_error.is_empty() {
        line.push_str(&format!(", last error: {}", a.last_error));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_one_line() {
        let a = pb::Account {
            account_id: "default".into(),
            self_id: 10000,
            nickname: "bot".into(),
            implementation: "sandbox".into(),
            implementation_version: "1".into(),
            flavor: pb::Flavor::Napcat as i32,
            state: pb::ConnectionState::Connected as i32,
            transport: pb::Transport::ForwardWebsocket as i32,
            queue_depth: 2,
            groups: vec![20000003],
            ..Default::default()
        };
        assert_eq!(
            render(&a),
            "default — connected, bot(10000), sandbox 1 [napcat], via forward_websocket, queue 2, groups [20000003]"
        );
        let learned = pb::Account {
            history_anchor: "message_seq".into(),
            anchor_included: true,
            history_anchor_source: "probed".into(),
            ..a
        };
        assert!(
            render(&learned)
                .ends_with("groups [20000003], history by message_seq (anchor included, probed)"),
            "{}",
            render(&learned)
        );
    }
}
