//! The relay: a measured floor for a gateway's call on the replay peer.
//!
//! It is the echo RPC (the same tonic service, codec, runtime and server
//! settings as `echo-server`) where each call first makes one OneBot action
//! round trip over one shared WebSocket, the way the gateway's account
//! connection does it: the call writes its action frame itself, under the
//! socket's lock; one task reads the socket and hands each reply to its
//! call by the echo read off the end of its text (the gateway's own
//! [`frame::peek_echo`]); the call passes over the reply's JSON once with
//! serde_json building nothing (`IgnoredAny`). Then it answers as many
//! bytes as the gateway's answer.
//!
//! Whatever a gateway does beyond that (decoding the reply into its model,
//! rendering, building the proto answer, auth, limits, metrics, tracing,
//! the archive) is above this floor. `bench echo-server --relay-peer <ws>
//! --relay-rpc history|members` serves it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use onebot_gateway::onebot::frame;
use onebot_gateway::onebot::transport::ws::forget_writer;
use serde::de::IgnoredAny;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use tonic::Status;

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

/// Hands a reply to the call its echo names; replies for no call (and
/// events) are dropped.
fn deliver(waiters: &Waiters, text: Utf8Bytes) {
    let Some(echo) = frame::peek_echo(text.as_str()).and_then(|e| e.parse::<u64>().ok()) else {
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

impl Relay {
    /// Connects to the OneBot peer at `ws_url`; each call will send the
    /// action the gateway sends for `rpc` (`history` or `members`).
    pub async fn connect(ws_url: &str, rpc: &str) -> Result<Relay> {
        let (action, params) = match rpc {
            "history" => crate::run::direct_history(),
            "members" => crate::run::direct_members(),
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
            // As the gateway does: the writer is by now waiting for its
            // own reply and needs no wake when the socket turns readable.
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
