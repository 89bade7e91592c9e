//! The relay: a measured floor for a gateway's call on the replay peer.
//!
//! It is the echo RPC (the same tonic service, codec, runtime and server
//! settings as `echo-server`) where each call first makes one OneBot action
//! round trip over one shared WebSocket, built here on tokio-tungstenite and
//! serde_json alone: the call writes its action frame itself, under the
//! socket's lock; one task reads the socket and hands each reply to its
//! call by its echo, read off the end of the text where the peer writes it
//! last ([`echo_at_end`]); the call passes over the reply's JSON once with
//! serde_json building nothing (`IgnoredAny`). Then it answers as many
//! bytes as the gateway's answer. The action and its parameters are the
//! gateway's own for the call (`workload`).
//!
//! Whatever a gateway does beyond that (decoding the reply into its model,
//! rendering, building the proto answer, auth, limits, metrics, tracing,
//! the archive) is above this floor. `bench echo-server --relay-peer <ws>
//! --relay-rpc history|members` serves it.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Waker};

use anyhow::{Context, Result, bail};
use futures_util::stream::SplitSink;
use futures_util::{Sink, SinkExt, StreamExt};
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tonic::Status;

use crate::workload::{direct_history, direct_members};

/// The calls waiting for their reply, by echo; `None` once the connection
/// is gone, so no call waits on it any more.
type Waiters = Mutex<Option<HashMap<u64, oneshot::Sender<Utf8Bytes>>>>;
type WsSink = SplitSink<WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>, Message>;

/// One OneBot connection that every call shares, and the action each call
/// makes on it.
pub struct Relay {
    /// `None` once the connection is gone.
    sink: tokio::sync::Mutex<Option<WsSink>>,
    waiters: Arc<Waiters>,
    next: AtomicU64,
    /// The action frame's text before the echo value (`…,"echo":`).
    head: String,
}

/// The echo of a reply whose last member is `"echo": <n>` (a decimal
/// number, bare or quoted), read backwards from the end of the text without
/// decoding the rest; `None` when the text does not end that way.
fn echo_at_end(text: &str) -> Option<u64> {
    let rest = text.trim_end().strip_suffix('}')?.trim_end();
    let quoted = rest.strip_suffix('"');
    let rest = quoted.unwrap_or(rest);
    let digits = rest.len() - rest.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (rest, number) = rest.split_at(rest.len() - digits);
    let rest = match quoted {
        Some(_) => rest.strip_suffix('"')?,
        None => rest,
    };
    rest.trim_end()
        .strip_suffix(':')?
        .trim_end()
        .strip_suffix(r#""echo""#)?;
    number.parse().ok()
}

/// The echo of any reply, for one whose echo is not its last member: a
/// whole decode that keeps only the echo.
fn echo_anywhere(text: &str) -> Option<u64> {
    #[derive(Deserialize)]
    struct Echo {
        echo: Option<serde_json::Value>,
    }
    let echo = serde_json::from_str::<Echo>(text).ok()?.echo?;
    match echo {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// Hands a reply to the call its echo names; replies for no call (and
/// events) are dropped.
fn deliver(waiters: &Waiters, text: Utf8Bytes) {
    let Some(echo) = echo_at_end(text.as_str()).or_else(|| echo_anywhere(text.as_str())) else {
        return;
    };
    let waiter = waiters
        .lock()
        .ok()
        .and_then(|mut m| m.as_mut().and_then(|m| m.remove(&echo)));
    if let Some(tx) = waiter {
        let _ = tx.send(text);
    }
}

/// Leaves a no-op waker in the socket's writer slot, as a socket shared by
/// writers behind a lock needs after each write: tokio-tungstenite wakes
/// the last writer as well as the reader whenever the socket turns
/// readable, and the writer is by then waiting for its own reply. The flush
/// has nothing left to write: no system call.
fn forget_writer(sink: &mut WsSink) {
    let _ = Pin::new(sink).poll_flush(&mut TaskContext::from_waker(Waker::noop()));
}

impl Relay {
    /// Connects to the OneBot peer at `ws_url`; each call will send the
    /// action the gateway sends for `rpc` (`history` or `members`).
    pub async fn connect(ws_url: &str, rpc: &str) -> Result<Relay> {
        let (action, params) = match rpc {
            "history" => direct_history(),
            "members" => direct_members(),
            other => bail!("unknown relay rpc {other:?} (history or members)"),
        };
        let (ws, _) = tokio_tungstenite::connect_async_with_config(ws_url, None, true)
            .await
            .with_context(|| format!("connecting to {ws_url}"))?;
        let (sink, mut stream) = ws.split();
        let waiters: Arc<Waiters> = Arc::new(Mutex::new(Some(HashMap::new())));
        let w = waiters.clone();
        // The reading task; it ends with the connection, and dropping the
        // senders then fails every waiter.
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                if let Message::Text(text) = msg {
                    deliver(&w, text);
                }
            }
            if let Ok(mut m) = w.lock() {
                *m = None;
            }
        });
        Ok(Relay {
            sink: tokio::sync::Mutex::new(Some(sink)),
            waiters,
            next: AtomicU64::new(1),
            head: format!(r#"{{"action":"{action}","params":{params},"echo":"#),
        })
    }

    /// One action round trip: sent, its reply awaited and passed over once.
    pub async fn round_trip(&self) -> Result<(), Status> {
        let closed = || Status::unavailable("relay: connection closed");
        let echo = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiters
            .lock()
            .map_err(|_| Status::internal("poisoned"))?
            .as_mut()
            .ok_or_else(closed)?
            .insert(echo, tx);
        let mut text = String::with_capacity(self.head.len() + 24);
        text.push_str(&self.head);
        text.push_str(&echo.to_string());
        text.push('}');
        {
            let mut guard = self.sink.lock().await;
            let sink = guard.as_mut().ok_or_else(closed)?;
            if sink.send(Message::text(text)).await.is_err() {
                *guard = None;
                return Err(closed());
            }
            forget_writer(sink);
        }
        let reply = rx.await.map_err(|_| closed())?;
        serde_json::from_str::<IgnoredAny>(reply.as_str())
            .map_err(|e| Status::internal(format!("relay: reply is not JSON: {e}")))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use tokio::net::TcpListener;

    use super::*;

    /// A peer on loopback answering each action with `reply(echo)`, the
    /// action's echo as its text; `None` closes the connection instead.
    async fn peer(reply: fn(&str) -> Option<String>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
            while let Some(Ok(Message::Text(text))) = ws.next().await {
                let action: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(action["action"], "get_group_member_list");
                match reply(&action["echo"].to_string()) {
                    Some(answer) => ws.send(Message::text(answer)).await.unwrap(),
                    None => return,
                }
            }
        });
        url
    }

    #[tokio::test]
    async fn a_round_trip_waits_for_the_reply_that_carries_its_echo() {
        let url = peer(|echo| {
            Some(format!(
                r#"{{"status":"ok","retcode":0,"data":[{{"user_id":1}}],"echo":{echo}}}"#
            ))
        })
        .await;
        let relay = Relay::connect(&url, "members").await.unwrap();
        for _ in 0..3 {
            relay.round_trip().await.unwrap();
        }
    }

    #[test]
    fn the_echo_is_read_off_the_end_of_the_reply() {
        assert_eq!(echo_at_end(r#"{"data":[],"echo":42}"#), Some(42));
        assert_eq!(echo_at_end(r#"{"data":[], "echo" : "7" }"#), Some(7));
        assert_eq!(echo_at_end(r#"{"echo":3,"data":[]}"#), None);
        assert_eq!(echo_at_end(r#"{"data":{"echo":3}}"#), None);
        assert_eq!(echo_at_end(r#"{"xecho":3}"#), None);
        assert_eq!(echo_at_end(r#"{"echo":}"#), None);
        assert_eq!(echo_anywhere(r#"{"echo":3,"data":[]}"#), Some(3));
    }

    #[tokio::test]
    async fn a_reply_whose_echo_is_not_last_reaches_its_call() {
        let url = peer(|echo| Some(format!(r#"{{"echo":{echo},"status":"ok","data":[]}}"#))).await;
        let relay = Relay::connect(&url, "members").await.unwrap();
        relay.round_trip().await.unwrap();
    }

    #[tokio::test]
    async fn a_reply_that_is_not_json_fails_the_call() {
        // The echo reads off the end; the rest is not JSON.
        let url = peer(|echo| Some(format!(r#"{{"data":[1,,],"echo":{echo}}}"#))).await;
        let relay = Relay::connect(&url, "members").await.unwrap();
        let err = relay.round_trip().await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal, "{err}");
    }

    #[tokio::test]
    async fn a_closed_connection_fails_the_waiting_call_and_every_later_one() {
        let url = peer(|_| None).await;
        let relay = Relay::connect(&url, "members").await.unwrap();
        let err = relay.round_trip().await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Unavailable, "{err}");
        // Later calls fail at once instead of waiting on a dead connection.
        let err = relay.round_trip().await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Unavailable, "{err}");
    }

    #[tokio::test]
    async fn an_unknown_rpc_is_refused() {
        let err = Relay::connect("ws://127.0.0.1:1/", "events")
            .await
            .err()
            .unwrap();
        assert!(err.to_string().contains("history or members"), "{err}");
    }
}
