//! The replay peer: a OneBot WebSocket server that costs (almost) nothing.
//!
//! It records, once, the sandbox's reply to each action the benchmark
//! makes the gateway send, then answers every action with that reply frame,
//! only its `echo` replaced. Reading an action means finding its `action`
//! and `echo` and skipping the rest; writing the reply is two copies. So the
//! gateway measured against it shows what the gateway itself costs.
//!
//! `bench replay-peer --record-from <ws_url>` runs it as its own process:
//! it records, prints `replay listening on ws://127.0.0.1:<port>/`, serves
//! until its stdin closes.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;

use crate::direct::DirectClient;
use crate::workload::{PAGE_SIZES, direct_history, direct_history_of, direct_members};

/// The actions recorded, with the parameters they are recorded with (the
/// gateway's own for the benchmark's calls; any answer does for the rest).
fn recorded_actions() -> Vec<(&'static str, serde_json::Value)> {
    let (history_action, history_params) = direct_history();
    let mut out = vec![
        ("get_login_info", json!({})),
        ("get_version_info", json!({})),
        ("get_group_list", json!({})),
        direct_members(),
    ];
    out.push((history_action, history_params));
    for count in PAGE_SIZES {
        let (action, params) = direct_history_of(count);
        out.push((action, params));
    }
    out
}

/// Reply frames by action (and, for the history action, by `count`): the
/// text before the echo value and after it.
#[derive(Debug, Default)]
struct Replies {
    by_action: HashMap<String, (String, String)>,
    history_by_count: HashMap<u64, (String, String)>,
}

impl Replies {
    fn split(data: &RawValue) -> (String, String) {
        (
            format!(
                r#"{{"status":"ok","retcode":0,"data":{},"message":"","wording":"","echo":"#,
                data.get()
            ),
            "}".to_owned(),
        )
    }
}

/// The `data` the sandbox answers `action` with, as the replay peer keeps
/// it.
async fn record(
    client: &DirectClient,
    action: &str,
    params: &serde_json::Value,
) -> Result<Box<RawValue>> {
    let data = client
        .call(action, params)
        .await
        .with_context(|| format!("recording {action}"))?;
    Ok(serde_json::value::to_raw_value(&data)?)
}

/// The whole reply frame the replay peer answers `action` with, recorded
/// from the sandbox behind `client`; `echo` (JSON text) as its echo.
pub async fn recorded_reply(
    client: &DirectClient,
    action: &str,
    params: &serde_json::Value,
    echo: &str,
) -> Result<String> {
    let (head, tail) = Replies::split(&record(client, action, params).await?);
    Ok(format!("{head}{echo}{tail}"))
}

/// What the peer reads of an action frame.
#[derive(Deserialize)]
struct Action<'a> {
    #[serde(borrow)]
    action: &'a str,
    #[serde(borrow)]
    echo: Option<&'a RawValue>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Count {
    count: Option<u64>,
}

/// Records from the sandbox at `from`, then serves on loopback until stdin
/// closes.
pub async fn serve(from: &str) -> Result<()> {
    let client = DirectClient::connect(from).await?;
    let mut replies = Replies::default();
    for (action, params) in recorded_actions() {
        let split = Replies::split(&record(&client, action, &params).await?);
        if let Some(count) = params.get("count").and_then(|c| c.as_u64())
            && action.ends_with("msg_history")
        {
            replies.history_by_count.insert(count, split.clone());
        }
        replies.by_action.entry(action.to_string()).or_insert(split);
    }
    let replies = Arc::new(replies);
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    println!("replay listening on ws://{}/", listener.local_addr()?);
    let serving = async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let replies = replies.clone();
            tokio::spawn(async move {
                let Ok(ws) = tokio_tungstenite::accept_async(stream).await else {
                    return;
                };
                let (mut sink, mut source) = ws.split();
                while let Some(Ok(msg)) = source.next().await {
                    let text = match &msg {
                        Message::Text(t) => t.as_str(),
                        Message::Close(_) => break,
                        _ => continue,
                    };
                    let reply = answer(&replies, text);
                    if sink.send(Message::text(reply)).await.is_err() {
                        break;
                    }
                }
            });
        }
    };
    // Ends when the parent closes stdin (or dies).
    let mut stdin = tokio::io::stdin();
    let mut buf = [0u8; 64];
    tokio::select! {
        _ = serving => Ok(()),
        _ = async { while stdin.read(&mut buf).await.is_ok_and(|n| n > 0) {} } => Ok(()),
    }
}

/// The reply to one action frame.
fn answer(replies: &Replies, text: &str) -> String {
    let Ok(action) = serde_json::from_str::<Action<'_>>(text) else {
        return r#"{"status":"failed","retcode":1400,"data":null,"message":"bad frame"}"#.into();
    };
    let echo = action.echo.map_or("null", RawValue::get);
    let history = action.action.ends_with("msg_history");
    let count = || {
        action
            .params
            .and_then(|p| serde_json::from_str::<Count>(p.get()).ok())
            .and_then(|c| c.count)
    };
    let found = if history {
        count()
            .and_then(|c| replies.history_by_count.get(&c))
            .or_else(|| replies.by_action.get(action.action))
    } else {
        replies.by_action.get(action.action)
    };
    match found {
        Some((head, tail)) => {
            let mut out = String::with_capacity(head.len() + echo.len() + tail.len());
            out.push_str(head);
            out.push_str(echo);
            out.push_str(tail);
            out
        }
        None => format!(
            r#"{{"status":"failed","retcode":1404,"data":null,"message":"not recorded","echo":{echo}}}"#
        ),
    }
}

/// The replay peer as a child process (ends when its stdin closes).
pub struct ReplayProc {
    _child: tokio::process::Child,
    /// Its process id.
    pub pid: u32,
    /// Its WebSocket URL.
    pub ws_url: String,
}

impl ReplayProc {
    /// Starts `bench replay-peer --record-from <from>` and waits for its URL.
    pub async fn start(from: &str) -> Result<ReplayProc> {
        let exe = std::env::current_exe().context("current_exe")?;
        let mut child = tokio::process::Command::new(exe)
            .args(["replay-peer", "--record-from", from])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .context("spawning replay-peer")?;
        let pid = child.id().context("replay-peer exited at once")?;
        let stdout = child.stdout.take().context("stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .context("replay-peer did not start")??
            .ok_or_else(|| anyhow!("replay-peer exited"))?;
        let ws_url = line
            .strip_prefix("replay listening on ")
            .context("unexpected replay-peer output")?
            .to_string();
        Ok(ReplayProc {
            _child: child,
            pid,
            ws_url,
        })
    }
}
